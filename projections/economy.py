"""A campaign's budget read from its stored events, whole or as one caller may see it (CLI, tests, audits).

The pages people open read the stored budget view (projections/budget_view.py); this reads the campaign's
relevant events, decoded straight from the stored rows (the rest skipped unread).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID

import orjson

from ledger.access import can_see
from ledger.domain.actors import Actor
from ledger.economy.sheets import RELEVANT, Budget, budget
from projections.records import Record


def economy_records(ledger: Any, cid: UUID, upto: int | None = None) -> Iterator[Record]:
    for row in ledger.stored_rows(cid):
        if upto is not None and row.position > upto:
            return
        kind = row.topic.rpartition(":")[2]
        if kind in RELEVANT:
            yield Record(str(cid), row.position, kind, orjson.loads(row.state))


def campaign_budget(ledger: Any, cid: UUID, upto: int | None = None, *, actor: Actor | None = None) -> Budget:
    """The campaign's budget; with ``actor``, from the events that actor may see (ledger/access.py)."""
    state = ledger.campaign(cid)  # 404 for an unknown campaign
    records: Any = economy_records(ledger, cid, upto)
    if actor is not None:
        revealed = frozenset(state.revealed)
        records = (r for r in records if can_see(actor, {"visibility": r.data.get("visibility"),
                                                         "position": r.position}, revealed))
    return budget(records)
