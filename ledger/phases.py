"""Closing the phases of the sequence of play (TABLES.md "Sequence of play").

A turn runs through eight phases in order; a game master closes each one
(``PhaseClosed``), once. Closing a phase records the ERS lines it completes
for every country, as the budget computes them at that moment: A8 after
diplomacy, A9 and A10 when redeployment ends, A13 (RT before the exchequer
test, exceptional taxes included) and A25 after the exchequer, A31 after
peace, A32 and A33 at the end of the interphase. A
later correction changes the budget, never these recorded figures: the
budget shows both (``at_close``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID

import orjson

from ledger.application import SYSTEM, Actor, Appended, Draft, Ledger
from ledger.domain import events as ev
from ledger.domain.errors import InvalidInput, StateConflict
from ledger.economy.sheets import RELEVANT, Budget, budget

PHASES = ("events", "diplomacy", "incomes", "military", "redeployment", "exchequer", "peace", "interphase")
TITLES = {
    "events": "Events",
    "diplomacy": "Diplomacy",
    "incomes": "Incomes / Administration / Logistics",
    "military": "Military",
    "redeployment": "Redeployment",
    "exchequer": "Exchequer",
    "peace": "Peace",
    "interphase": "Interphase",
}
#: The ERS lines a phase completes, recorded when it closes.
MILESTONES: dict[str, tuple[str, ...]] = {
    "diplomacy": ("A8",),
    # A13 is "RT before the Exchequer TEST": it includes the exceptional taxes (A12), levied in the
    # exchequer phase itself (DECISIONS.md "Phases"), so it is recorded with A25 when that phase closes.
    "redeployment": ("A9", "A10"),
    "exchequer": ("A13", "A25"),
    "peace": ("A31",),
    "interphase": ("A32", "A33"),
}


def economy_records(ledger: Ledger, cid: UUID, upto: int | None = None) -> Iterator[Any]:
    """The events the budget reads, decoded straight from the stored rows (the rest skipped unread)."""
    for row in ledger.stored_rows(cid):
        if upto is not None and row.position > upto:
            return
        kind = row.topic.rpartition(":")[2]
        if kind in RELEVANT:
            yield _Row(kind, row.position, orjson.loads(row.state))


class _Row:
    __slots__ = ("type", "position", "data")

    def __init__(self, kind: str, position: int, data: dict[str, Any]):
        self.type, self.position, self.data = kind, position, data


def campaign_budget(ledger: Ledger, cid: UUID, upto: int | None = None, *, actor: Actor | None = None) -> Budget:
    """The campaign's budget; with ``actor``, from the events that actor may see (ledger/access.py)."""
    state = ledger.campaign(cid)  # 404 for an unknown campaign
    records: Any = economy_records(ledger, cid, upto)
    if actor is not None:
        from ledger.access import can_see

        revealed = set(getattr(state, "revealed", ()))
        records = (r for r in records
                   if can_see(actor, {"visibility": r.data.get("visibility"), "position": r.position}, revealed))
    return budget(records)


def close_phase(
    ledger: Ledger, cid: UUID, phase: str, *, actor: Actor = SYSTEM, idempotency_key: str | None = None
) -> Appended:
    """Close ``phase`` of the open turn: phases close in order, each once (else 409)."""
    if phase not in PHASES:
        raise InvalidInput(f"phase {phase!r}: one of {', '.join(PHASES)}", field="phase")

    def command(d: Draft) -> dict[str, Any]:
        turn = d.state.require_open_turn()
        closed = d.state.phases_closed
        if phase in closed:
            raise StateConflict(f"phase {phase} of turn {turn} is already closed", field="phase")
        expected = next(p for p in PHASES if p not in closed)
        if phase != expected:
            raise StateConflict(f"phase {phase} cannot close before {expected} (turn {turn})", field="phase")
        ers = _milestones(ledger, d, turn, phase)
        d.context["phase"] = phase
        d.add(ev.PhaseClosed, turn=turn, phase=phase, ers=ers)
        following = PHASES.index(phase) + 1
        return {"turn": turn, "phase": phase, "ers": ers,
                "next": PHASES[following] if following < len(PHASES) else None}

    return ledger.execute(cid, actor, command, idempotency_key=idempotency_key,
                          request={"close_phase": phase})


def _milestones(ledger: Ledger, d: Draft, turn: int, phase: str) -> dict[str, Any]:
    codes = MILESTONES.get(phase)
    if not codes or d.state.ruleset != "eu":
        return {}
    # Only what is in the history this command runs on (a concurrent append re-runs it).
    b = budget(economy_records(ledger, d.state.id, upto=d.state.version))
    out: dict[str, Any] = {}
    for country in d.state.countries:
        sheet = b.sheet(country, turn)
        if sheet is None or sheet.cells is None:
            out[country] = {"error": sheet.error["message"] if sheet and sheet.error else "no sheet"}
        else:
            out[country] = {code: sheet.cells[code].value for code in codes}
    return out
