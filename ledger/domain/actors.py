"""Who acts: a name, a role in the campaign, and a country for a player (ledger/access.py says what each may do)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Actor:
    id: str
    role: str = "gm"
    country: str | None = None
    # The id of the campaign token that authenticated this actor (TokenIssued's ``token_id``), None for the
    # admin token, local development and the command line. Idempotency keys are scoped by it, never by the
    # name: a holder's name is whatever the GM typed, so two tokens may share one. Not recorded in events.
    token: str | None = field(default=None, compare=False)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "role": self.role, "country": self.country}


SYSTEM = Actor("ledger", "system")
