"""The README's standalone checkpoint verifier works on real receipts and proofs, and refuses forgeries."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from uuid import UUID

import pytest

from ledger.application import Actor

README = Path(__file__).resolve().parents[2] / "README.md"
GM = Actor("gm", "gm")


def readme_verifier() -> dict:
    section = README.read_text().split("## Verifying the history", 1)[1]
    [code] = re.findall(r"```python\n(.*?)```", section, re.S)[:1]
    namespace: dict = {"__name__": "readme"}
    exec(compile(code, "README.md", "exec"), namespace)
    return namespace


def receipts(ledger) -> tuple[UUID, list[str]]:
    first = ledger.create_campaign(slug="receipts", name="R", ruleset="eu", countries=["ENG"], actor=GM)
    cid = UUID(first.data["id"])
    notes = [first.checkpoint, ledger.open_turn(cid, actor=GM).checkpoint]
    notes += [ledger.roll(cid, purpose=f"r{i}", actor=GM).checkpoint for i in range(5)]
    return cid, notes


def key(ledger) -> tuple[str, str]:
    return ledger.signer.name, base64.b64encode(ledger.signer.public).decode()


def test_the_readme_verifier_checks_receipts_inclusion_and_consistency(ledger):
    v = readme_verifier()
    cid, notes = receipts(ledger)
    origin, size, root = v["checkpoint"](notes[-1], *key(ledger))
    assert (origin, size) == (f"{ledger.signer.name}/campaigns/{cid}", 7)
    for position in range(1, 8):
        proof = ledger.inclusion_proof(cid, position, 7)
        assert v["included"](ledger.event_at(cid, position).hash, position, 7, proof["proof"], root)
        assert not v["included"](ledger.event_at(cid, position % 7 + 1).hash, position, 7, proof["proof"], root)
    for earlier in notes[:-1]:
        _, m, root_m = v["checkpoint"](earlier, *key(ledger))
        proof = ledger.consistency_proof(cid, m, 7)["proof"]
        assert v["consistent"](m, 7, root_m, root, proof)
        assert not v["consistent"](m, 7, bytes(32), root, proof)  # another history at size m


def test_the_readme_verifier_refuses_a_checkpoint_the_service_did_not_sign(ledger):
    v = readme_verifier()
    _, notes = receipts(ledger)
    body, _, sig = notes[-1].partition("\n\n")
    forged = body.replace("\n7\n", "\n8\n") + "\n\n" + sig
    with pytest.raises(Exception):
        v["checkpoint"](forged, *key(ledger))
    with pytest.raises(AssertionError):
        v["checkpoint"](notes[-1], "another.example", key(ledger)[1])
