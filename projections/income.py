"""The income proposal as a reader may see it (issue 36): ``GET /campaigns/{id}/income``, the income page and
the ERS page's lineage.

The proposal is worked out from the write-side state (ledger/economy/board_income.py: no history read); a
player's, from the map as their country sees it (ledger/domain/sight.py), for their own country only, and a
lineage position hidden from them is not named. The confirmation is shown to whoever may see its event.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from uuid import UUID

from ledger.access import ALL_SEEING, can_see
from ledger.application import Actor
from ledger.domain import sight
from ledger.domain.errors import Forbidden, InvalidInput, StateConflict
from ledger.economy import income
from ledger.economy.entries import expense_words, sheet_definition
from projections import read


def check_reader(actor: Actor, country: str) -> None:
    """The game master reads every country's proposal; a player their own; an observer none (a country's
    income is its treasury's business)."""
    if actor.role in ALL_SEEING:
        return
    if actor.role == "player" and actor.country == country:
        return
    if actor.role == "player":
        raise Forbidden(f"a player reads their own country's income ({actor.country}), not {country}'s",
                        field="country", rule="access.income")
    raise Forbidden("an observer reads no country's income proposal", field="country", rule="access.income")


def proposal_answer(ledger: Any, cid: UUID, actor: Actor, state: Any, country: str, at: int | None = None,
                    records_at: Any = None) -> dict[str, Any]:
    """The proposal of ``country`` at ``at`` (default: the head) with its lineage in words, what was confirmed,
    and whether the confirmation went stale, as ``actor`` may see it."""
    state.require_country(country)
    check_reader(actor, country)
    if not income.worked_out(state):
        raise StateConflict("this campaign has no map to work its income out from (no scenario's provinces)",
                            field="country")
    head = state
    if at is not None and at != state.version:
        if not 1 <= at <= state.version:
            raise InvalidInput(f"position {at} is not in the history (1..{state.version})", field="at")
        state = ledger.state_at(cid, at)
    seen = state
    if actor.role not in ALL_SEEING:
        stacks, military = sight.seen(state, actor)
        seen = replace(state, stacks=stacks, military=military)
    p = income.proposals(seen, [country], income.options_of(state))[country]
    doc = income.proposal_doc(p)
    doc["position"] = state.version
    hidden = _hidden_positions(ledger, cid, actor, head, doc, records_at)
    for line in doc["lines"]:
        for s in line["lineage"]:
            if s["position"] in hidden:
                s["position"] = None
        line["words"] = income.lineage_words(line)
    defn = sheet_definition(state.ruleset)
    for line in doc["lines"]:
        d = defn.get(line["line"]) if defn is not None else None
        line["name"] = d.name if d is not None else line["line"]
        line["expense"] = bool(d is not None and d.expense)
    doc["turn"] = state.turn
    doc["expenses"] = expense_words(state.ruleset)
    doc["confirmed"] = _confirmed(actor, head if state is head else state, country)
    doc["stale"] = ""
    # The game master's warning: a player's proposal is worked out from the map they see, the confirmation from
    # the whole map, so a difference there could say what is hidden from them.
    if doc["confirmed"] and state is head and income.PHASE not in head.phases_closed and actor.role in ALL_SEEING:
        moved = income.changes(head.incomes[country], p)
        doc["stale"] = income.stale_words(country, head.incomes[country], moved)
    return doc


def _confirmed(actor: Actor, state: Any, country: str) -> dict[str, Any] | None:
    c = (state.incomes or {}).get(country)
    if c is None or not can_see(actor, {"visibility": c["visibility"], "position": c["position"]}, state.revealed):
        return None
    return {"position": c["position"], "at": c["at"],
            "lines": {code: x["amount"] for code, x in c["lines"].items()},
            "kept": [code for code, x in c["lines"].items() if x["amount"] != x["computed"]]}


def _hidden_positions(ledger: Any, cid: UUID, actor: Actor, state: Any, doc: dict[str, Any],
                      records_at: Any) -> set[int]:
    """The lineage positions ``actor`` may not see (read by position, a few per line)."""
    if actor.role in ALL_SEEING:
        return set()
    wanted = sorted({s["position"] for x in doc["lines"] for s in x["lineage"] if s["position"] is not None})
    if not wanted:
        return set()
    found = records_at(cid, wanted) if records_at is not None else [
        r for n in wanted for r in read.records(ledger, cid, gt=n - 1, lte=n)]
    shown = {r.position for r in read.visible(actor, list(found), frozenset(state.revealed))}
    return set(wanted) - shown
