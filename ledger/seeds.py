"""The secret dice seeds of open turns, encrypted at rest (AES-256-GCM).

A database dump must not let anyone recompute the rolls of a turn still open,
so ``ledger_dice_seeds`` holds each seed sealed with a key derived from the
service's signing key (``Signer.derived_key``), which never is in the database.
The additional data binds a sealed seed to its campaign, turn and audience: a
row copied to another place does not open. Revealed seeds are events; what the
write side opens is checked against the commitment on the chain before use
(``Ledger.turn_seed``).
"""

from __future__ import annotations

import os
from uuid import UUID

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

NONCE = 12


class SeedBox:
    def __init__(self, key: bytes):
        self._aead = AESGCM(key)

    @staticmethod
    def _place(campaign: UUID, turn: int, audience: str) -> bytes:
        return f"ledger-seed\n{campaign}\n{turn}\n{audience}".encode()

    def seal(self, campaign: UUID, turn: int, audience: str, seed: bytes) -> bytes:
        nonce = os.urandom(NONCE)
        return nonce + self._aead.encrypt(nonce, seed, self._place(campaign, turn, audience))

    def open(self, campaign: UUID, turn: int, audience: str, sealed: bytes) -> bytes:
        """The seed; ValueError when the row was not sealed by this key for this place."""
        try:
            return self._aead.decrypt(sealed[:NONCE], sealed[NONCE:], self._place(campaign, turn, audience))
        except InvalidTag:
            raise ValueError("it does not open with the service's key (another key, or another turn's row)") from None
