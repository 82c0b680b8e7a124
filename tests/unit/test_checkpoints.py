"""Signed checkpoints: the C2SP signed-note format, and parsing that refuses anything not signed by the key."""

from __future__ import annotations

import base64
import hashlib
from uuid import UUID

import pytest
from hypothesis import given, strategies as st

from ledger.checkpoints import CheckpointError, Signer, parse_note
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

CID = UUID(int=42)
SIGNER = Signer(Ed25519PrivateKey.from_private_bytes(bytes(range(32))), "ledger.example.org")
ROOT = hashlib.sha256(b"root").digest()


def test_a_checkpoint_is_a_c2sp_signed_note():
    note = SIGNER.note(CID, 7, ROOT)
    body, signature = note.split("\n\n")
    assert body.split("\n") == [f"ledger.example.org/campaigns/{CID}", "7", base64.b64encode(ROOT).decode()]
    dash, name, blob = signature.rstrip("\n").split(" ")
    raw = base64.b64decode(blob)
    # key id = sha256(name || "\n" || 0x01 || public key)[:4], then a 64-byte Ed25519 signature of the body
    assert (dash, name) == ("\u2014", "ledger.example.org")
    assert raw[:4] == hashlib.sha256(b"ledger.example.org\n\x01" + SIGNER.public).digest()[:4] and len(raw) == 68
    assert SIGNER.verify((body + "\n").encode(), raw[4:])
    assert SIGNER.note(CID, 7, ROOT) == note  # Ed25519 is deterministic: a replay returns the same receipt


def test_parsing_returns_what_was_signed():
    cp = parse_note(SIGNER.note(CID, 7, ROOT), SIGNER.name, SIGNER.public)
    assert (cp.origin, cp.size, cp.root) == (f"ledger.example.org/campaigns/{CID}", 7, ROOT)


@pytest.mark.parametrize("edit", [
    lambda n: n.replace("\n7\n", "\n8\n"),  # a larger tree claimed
    lambda n: n.replace("campaigns/", "campaign/"),  # another origin
    lambda n: n.replace("ledger.example.org ", "other.example "),  # another key name
])
def test_an_edited_checkpoint_is_refused(edit):
    with pytest.raises(CheckpointError):
        parse_note(edit(SIGNER.note(CID, 7, ROOT)), SIGNER.name, SIGNER.public)


def test_a_checkpoint_signed_by_another_key_of_the_same_name_is_refused():
    other = Signer(Ed25519PrivateKey.generate(), SIGNER.name)
    with pytest.raises(CheckpointError):
        parse_note(other.note(CID, 7, ROOT), SIGNER.name, SIGNER.public)


@given(st.text(max_size=300))
def test_garbage_is_a_checkpoint_error_never_a_crash(text):
    with pytest.raises(CheckpointError):
        parse_note(text, SIGNER.name, SIGNER.public)
