"""Who acts: a name, a role in the campaign, and a country for a player (ledger/access.py says what each may do)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Actor:
    id: str
    role: str = "gm"
    country: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "role": self.role, "country": self.country}


SYSTEM = Actor("ledger", "system")
