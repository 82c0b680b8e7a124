"""What the ERS page shows: one country's sheets A, B and C of a turn, as the caller may see them.

The numbers are exactly those of ``GET /campaigns/{id}/ers/{country}/{turn}``:
the sheet comes from ``projections.head.Reader.sheet`` for the caller (a
player's or an observer's sheet is computed from the events they may see), and
is only laid out here, never recomputed. The events behind the cells (treasury
entries with their reasons, corrections, the scenario's starting treasury) are
read by position and filtered again by ``can_see``: a position the caller's own
sheet names is visible to them, but the page does not rely on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import orjson

from ledger.application import Actor, Ledger
from ledger.domain.campaign import CampaignState
from ledger.domain.errors import EventNotFound, InvalidInput
from ledger.economy.entries import expense_words
from ledger.i18n import N_, gettext
from projections import read, words
from projections.head import Reader

TITLES = {"A": N_("Sheet A · Royal Treasury"), "B": N_("Sheet B · Income and expenses"), "C": N_("Sheet C · Loans")}


def _title(letter: str) -> str:
    return gettext(TITLES[letter]) if letter in TITLES else gettext("Sheet {letter}").format(letter=letter)
#: A cell names at most this many events on the page (a line can gather hundreds of entries); the rest
#: are counted, and the exports list them all.
MAX_EVENTS = 200


@dataclass
class ErsView:
    country: str
    turn: int
    turns: list[int]
    countries: list[str]
    error: str | None
    sheets: list[dict[str, Any]] = field(default_factory=list)  # {"letter", "title", "rows"}
    unbooked: list[dict[str, Any]] = field(default_factory=list)
    events: dict[int, dict[str, Any]] = field(default_factory=dict)
    more_events: int = 0
    #: The lines confirmed from the board (issue 36) behind this sheet's entries: {"line", "amount", "computed",
    #: "kept", "lineage", "position", "at"}, from the ``IncomeConfirmed`` events the caller may see.
    income: list[dict[str, Any]] = field(default_factory=list)
    expenses: str = ""  # the sign convention of expense lines, in words


def _explained(record: Any) -> dict[str, Any]:
    d = record.data
    base = {"position": record.position, "type": record.type, "turn": record.turn,
            "actor": (d.get("actor") or {}).get("id"), "time": d.get("timestamp") and words.moment(d["timestamp"])}
    if record.type == "TreasuryEntryRecorded":
        return {**base, "what": "entry", "line": d.get("line"), "amount": d.get("amount"),
                "reason": d.get("reason", ""), "source": d.get("source")}
    if record.type == "CorrectionRecorded":
        return {**base, "what": "correction", "corrects": d.get("corrects"), "reason": d.get("reason", ""),
                "replacement": d.get("replacement")}
    if record.type == "ScenarioImported":
        return {**base, "what": "scenario", "reason": f"starting treasury of the scenario {d.get('name', '')}"}
    return {**base, "what": "other", "reason": record.type}


def ers_view(ledger: Ledger, reader: Reader, cid: UUID, actor: Actor, state: CampaignState, country: str,
             turn: int) -> ErsView:
    state.require_country(country)
    if turn < 1 or turn > state.turn:
        raise InvalidInput(gettext("turn {turn} has not been opened (current turn {current})").format(
            turn=turn, current=state.turn), field="turn")
    raw = reader.sheet(cid, actor, state, country, turn)  # the API's answer, for this caller
    if raw is None:
        raise EventNotFound(gettext("no ERS for {country} at turn {turn}").format(country=country, turn=turn),
                            field="turn")
    sheet = orjson.loads(raw)
    view = ErsView(country, turn, list(range(1, state.turn + 1)), list(state.countries),
                   (sheet.get("error") or {}).get("message") if sheet.get("error") else None)
    lines = {line["code"]: line for line in sheet["lines"]}
    wanted: list[int] = []
    by_letter: dict[str, list[dict[str, Any]]] = {}
    for code, line in lines.items():
        if code.endswith("_pct"):
            continue  # shown in its line's box, as on paper (the percentage in the box's top-left half)
        pct = lines.get(f"{code}_pct")
        # The "how" column says a formula in words (projections.words), never as the rules' expression.
        row = {**line, "how": words.formula(line.get("formula")),
               "pct": {**pct, "how": words.formula(pct.get("formula"))} if pct else None}
        by_letter.setdefault(line["sheet"], []).append(row)
        for cell in (row, row["pct"]):
            if cell is not None:
                wanted.extend(cell["events"])
    view.expenses = expense_words(state.ruleset)
    view.sheets = [{"letter": k, "title": _title(k), "rows": rows} for k, rows in by_letter.items()]
    view.unbooked = list(sheet.get("unbooked") or ())
    for u in view.unbooked:
        wanted.extend(u.get("positions") or ())
    positions = sorted(set(wanted))
    view.more_events = max(len(positions) - MAX_EVENTS, 0)
    revealed = frozenset(state.revealed)
    for r in read.visible(actor, reader.records_at(cid, positions[:MAX_EVENTS]), revealed):
        view.events[r.position] = _explained(r)
    sources = sorted({e["source"] for e in view.events.values() if e.get("what") == "entry" and e.get("source")})
    for r in read.visible(actor, reader.records_at(cid, sources) if sources else [], revealed):
        if r.type == "IncomeConfirmed":
            view.income.extend({**x, "position": r.position, "at": r.data.get("at")} for x in r.data.get("lines") or ())
    return view
