"""The service's Ed25519 key and signed checkpoints (C2SP tlog-checkpoint in a signed note).

A checkpoint commits to a campaign's whole history: its origin line
(``<host>/campaigns/<campaign id>``), the tree size (the head position) and the
base64 RFC 6962 root of the event hashes (ledger/merkle.py). It is signed as a
C2SP signed note: ``— <key name> base64(key id (4 bytes) || Ed25519 signature)``,
the key id being ``sha256(key name || "\\n" || 0x01 || public key)[:4]``.

The key lives in a file (``LEDGER_SIGNING_KEY_FILE``), never in the database:
whoever can only write to the database cannot sign, so a checkpoint a player
kept (a receipt) binds the service to the history it saw.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ledger.config import Settings
from ledger.files import private_dir, private_file

log = logging.getLogger("ledger.checkpoints")
ED25519 = b"\x01"  # the signed-note signature type of Ed25519
DASH = "\u2014"  # em dash that opens a signature line


class CheckpointError(ValueError):
    """A checkpoint that cannot be parsed or whose signature does not verify."""


def key_id(name: str, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + ED25519 + public).digest()[:4]


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes

    def body(self) -> str:
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"


class Signer:
    """The service's signing key and its public name."""

    def __init__(self, private: Ed25519PrivateKey, name: str):
        self.private, self.name = private, name
        self.public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.key_id = key_id(name, self.public)

    def sign(self, message: bytes) -> bytes:
        return self.private.sign(message)

    def verify(self, message: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        return True

    def derived_key(self, purpose: bytes) -> bytes:
        """A 32-byte secret for another use of the service's key (HKDF-SHA256 of the private key, one per
        ``purpose``): it is outside the database as the key is, and travels with it (backups, restores)."""
        raw = self.private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                         serialization.NoEncryption())
        return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose).derive(raw)

    def origin(self, cid: UUID) -> str:
        return f"{self.name}/campaigns/{cid}"

    def note(self, cid: UUID, size: int, root: bytes) -> str:
        """The signed checkpoint of campaign ``cid`` at ``size`` events (Ed25519 is deterministic: same input, same note)."""
        body = Checkpoint(self.origin(cid), size, root).body()
        sig = base64.b64encode(self.key_id + self.sign(body.encode())).decode()
        return f"{body}\n{DASH} {self.name} {sig}\n"

    def vkey(self) -> str:
        """The note verifier key: ``<name>+<key id hex>+base64(0x01 || public key)``."""
        return f"{self.name}+{self.key_id.hex()}+{base64.b64encode(ED25519 + self.public).decode()}"


def parse_note(text: str, name: str, public: bytes) -> Checkpoint:
    """Parse a signed checkpoint and check it carries a valid signature by the key ``(name, public)``."""
    body, sep, sigs = text.partition("\n\n")
    if not sep:
        raise CheckpointError("a checkpoint is its body, a blank line and signature lines")
    lines = body.split("\n")
    if len(lines) < 3:
        raise CheckpointError("a checkpoint body has an origin, a size and a root hash")
    try:
        size = int(lines[1])
        root = base64.b64decode(lines[2], validate=True)
    except ValueError:
        raise CheckpointError("the checkpoint's size or root hash is malformed") from None
    if size < 0 or len(root) != 32 or str(size) != lines[1]:
        raise CheckpointError("the checkpoint's size or root hash is malformed")
    want = key_id(name, public)
    for line in sigs.splitlines():
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != DASH or parts[1] != name:
            continue
        try:
            raw = base64.b64decode(parts[2], validate=True)
        except ValueError:
            continue
        if raw[:4] != want:
            continue
        try:
            Ed25519PublicKey.from_public_bytes(public).verify(raw[4:], (body + "\n").encode())
        except InvalidSignature:
            raise CheckpointError("the checkpoint's signature does not verify with the service's key") from None
        return Checkpoint(lines[0], size, root)
    raise CheckpointError(f"the checkpoint carries no signature by the key {name!r} ({want.hex()})")


def load_signer(settings: Settings) -> Signer:
    """The key file of the settings; in development and test one is generated on first start."""
    path = settings.signing_key_file
    if path is None:
        if settings.env == "production":
            raise RuntimeError("LEDGER_SIGNING_KEY_FILE is required in production (no generated key)")
        path = settings.data_dir / "signing-key.pem"
        if not path.exists():
            _generate(path)
    private_file(path)  # 0600, also a key file written before (or copied) with a looser mode (ledger/files.py)
    try:
        private = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError) as e:
        raise RuntimeError(f"cannot read the signing key {path}: {e}") from None
    if not isinstance(private, Ed25519PrivateKey):
        raise RuntimeError(f"the signing key {path} is not an Ed25519 key")
    return Signer(private, settings.public_host)


def generate_key(path: Path) -> None:
    """A new Ed25519 key at ``path`` (PEM, 0600); an existing file is kept."""
    _generate(path)


def _generate(path: Path) -> None:
    private_dir(path.parent)  # 0700 where the ledger makes it
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    # Written aside, then linked into place: the link fails if the file exists, so two processes starting at
    # once keep the first key, and no process ever reads a half-written file.
    # A name of its own per caller (threads of one process share the pid): mkstemp creates it 0600.
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    tmp = Path(name)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    try:
        os.link(tmp, path)
    except FileExistsError:
        return
    finally:
        tmp.unlink()
    log.warning("generated a new signing key at %s (development): publish its public key to your players", path)
