"""What the web page shows at one step of a turn, computed from the events the caller may see.

One step is one event of the turn. For it: its timeline line, the ruling
explained (modifiers with their rule codes, table cell, dice and whether the
revealed seed reproduces them), the map and tracks as of that position, what
this event changed there (``projections.replay.diff_docs``), the ERS lines it
changed (``ledger.economy.sheets.budget`` before and after it), and the
corrections that reference it. A player's or observer's view is replayed from
the events they may see only (``ledger.access.can_see``), like the API's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from ledger.access import can_see
from ledger.application import Actor, Ledger
from ledger.domain.errors import EventNotFound, LedgerError
from ledger.rules.core import Ruling
from ledger.rules.explain import explain
from projections import corrections, replay
from projections import timeline as timeline_model
from ledger.economy.sheets import RELEVANT, Budget, budget
from projections.records import Record

_MISMATCH = re.compile(r"roll (\d+) at position (\d+) ")
#: Events whose budget diff is worth computing (the others change no ERS line).
_BUDGET_EVENTS = RELEVANT - {"CampaignCreated", "ScenarioImported", "TurnOpened"}


@dataclass
class TurnView:
    campaign: str
    turn: int
    steps: list[dict[str, Any]]  # every visible event of the turn: position, type, summary
    index: int  # 0-based step shown
    event: dict[str, Any]
    ruling: dict[str, Any] | None
    dice: list[dict[str, Any]]
    dice_status: dict[str, Any]
    map: dict[str, Any]
    victory: dict[str, Any]
    changes: list[dict[str, Any]]
    budget_changes: list[dict[str, Any]]
    corrections: list[dict[str, Any]] = field(default_factory=list)  # later events correcting this one
    corrects: dict[str, Any] | None = None  # the original, when this event is a correction


def sees(actor: Actor, r: Record, revealed: frozenset[int]) -> bool:
    return can_see(actor, {"visibility": r.data.get("visibility"), "position": r.position}, revealed)


def visible_records(ledger: Ledger, cid: UUID, actor: Actor) -> list[Record]:
    state = ledger.campaign(cid)
    revealed = frozenset(state.revealed)
    return [r for r in replay._records(ledger, cid, 0, state.version) if sees(actor, r, revealed)]


def turns(records: list[Record]) -> list[dict[str, Any]]:
    """The turns with visible events: number, first and last position, event count."""
    out: dict[int, dict[str, Any]] = {}
    for r in records:
        if r.turn is not None:
            t = out.setdefault(r.turn, {"turn": r.turn, "first": r.position, "events": 0})
            t["last"] = r.position
            t["events"] += 1
    return [out[k] for k in sorted(out)]


def _summaries(records: list[Record]) -> dict[int, str]:
    doc = timeline_model.empty()
    return {r.position: timeline_model.row(doc, r)["summary"] for r in records}


def _state(records: list[Record]) -> dict[str, dict[str, Any]]:
    return corrections.fold(replay.MODELS, records)


def _sheet_cells(b: Budget) -> dict[tuple[str, int, str], Any]:
    return {(country, turn, code): c.value for (country, turn), sheet in b.sheets.items()
            for code, c in (sheet.cells or {}).items()}


def budget_changes(before: list[Record], event: Record) -> list[dict[str, Any]]:
    """The ERS lines whose value differs between the budget without and with ``event``."""
    if event.type not in _BUDGET_EVENTS:
        return []
    try:
        c0, c1 = _sheet_cells(budget(before)), _sheet_cells(budget([*before, event]))
    except Exception as exc:  # noqa: BLE001 - a budget that cannot be computed yet is shown, not fatal
        return [{"error": str(exc)}]
    return [{"country": k[0], "turn": k[1], "line": k[2], "from": c0.get(k), "to": v}
            for k, v in sorted(c1.items()) if c0.get(k) != v]


def _dice_of(r: Record) -> list[dict[str, Any]]:
    if r.type == "DiceRolled":
        d = r.data
        return [{"purpose": d["purpose"], "sides": d["sides"], "count": d["count"], "values": list(d["values"]),
                 "index": d.get("index"), "manual": bool(d.get("manual")), "step": None}]
    if r.type == "RulingRecorded":
        ruling = r.data["ruling"]
        out = [{**d, "step": None} for d in ruling.get("dice", [])]
        for s in ruling.get("steps", []):
            out += [{**d, "step": s["name"]} for d in s.get("dice", [])]
        return [{"purpose": d["purpose"], "sides": d.get("sides", 10), "count": d.get("count", 1),
                 "values": list(d["values"]), "index": d.get("index"), "manual": bool(d.get("manual")),
                 "step": d["step"]} for d in out]
    return []


def dice_status(ledger: Ledger, cid: UUID, r: Record, dice: list[dict[str, Any]], closed: bool,
                commitment: str | None) -> dict[str, Any]:
    """Each die's status: physical (flagged), committed (open turn), or checked against the revealed seed."""
    if not dice:
        return {"turn": "none", "message": None}
    if not closed:
        for d in dice:
            d["status"] = "manual" if d["manual"] else "committed"
        return {"turn": "open", "message": f"committed (sha256 of the seed {commitment}), verifiable after the "
                                          "turn closes"}
    try:
        report = ledger.verify_dice(cid, r.turn)
    except LedgerError as exc:
        for d in dice:
            d["status"] = "manual" if d["manual"] else "unverified"
        return {"turn": "error", "message": exc.message}
    seed_bad = any("does not match the commitment" in m for m in report.mismatches)
    bad = {(int(m.group(1)), int(m.group(2))) for p in report.mismatches if (m := _MISMATCH.search(p))}
    for d in dice:
        if d["manual"]:
            d["status"] = "manual"
        elif seed_bad or (d["index"], r.position) in bad:
            d["status"] = "mismatch"
        else:
            d["status"] = "verified"
    message = (f"turn {r.turn}: {report.checked} server rolls recomputed from the revealed seed"
               + ("" if report.ok else f"; {len(report.mismatches)} problem(s)"))
    return {"turn": "closed", "message": message, "ok": report.ok}


def _ruling(r: Record) -> dict[str, Any] | None:
    if r.type != "RulingRecorded":
        return None
    ruling = Ruling.model_validate(r.data["ruling"])
    return {"model": ruling.model_dump(mode="json"), "text": explain(ruling)}


def _event(r: Record, summary: str) -> dict[str, Any]:
    payload = {k: v for k, v in r.data.items()
               if k not in ("context", "actor", "visibility", "prev_hash", "hash", "schema", "timestamp")}
    return {"position": r.position, "type": r.type, "summary": summary, "turn": r.turn, "context": r.context,
            "actor": r.data.get("actor") or {}, "visibility": r.data.get("visibility") or {"scope": "public"},
            "timestamp": r.data.get("timestamp"), "hash": r.data.get("hash"), "payload": payload}


def turn_view(ledger: Ledger, cid: UUID, turn: int, actor: Actor, *, step: int | None = None,
              position: int | None = None) -> TurnView:
    """The view at ``step`` (1-based, clamped) or at the step of event ``position`` of ``turn``."""
    records = visible_records(ledger, cid, actor)
    in_turn = [r for r in records if r.turn == turn]
    if not in_turn:
        raise EventNotFound(f"turn {turn} has no event you may see", field="turn")
    if position is not None:
        found = [i for i, r in enumerate(in_turn) if r.position == position]
        if not found:
            raise EventNotFound(f"position {position} is not an event of turn {turn} you may see "
                                f"({in_turn[0].position}..{in_turn[-1].position})", field="position")
        i = found[0]
    else:
        i = min(max((step or 1) - 1, 0), len(in_turn) - 1)
    r = in_turn[i]
    summaries = _summaries(records)
    before = [x for x in records if x.position < r.position]
    docs_before = _state(before)
    docs = _state([*before, r])  # a correction folds the history again
    changes = [c for n in replay.MODELS for c in replay.diff_docs(docs_before[n], docs[n], n)]
    state = ledger.campaign(cid)
    closed = any(x.type == "TurnClosed" and x.data.get("turn") == turn for x in records) or (
        state.turn > turn or (state.turn == turn and not state.turn_open))
    commitment = next((x.data.get("commitment") for x in records
                       if x.type == "TurnOpened" and x.data.get("turn") == turn), None)
    dice = _dice_of(r)
    status = dice_status(ledger, cid, r, dice, closed, commitment)
    by_pos = {x.position: x for x in records}
    corrections = [_event(x, summaries[x.position]) for x in records
                   if x.type == "CorrectionRecorded" and x.data.get("corrects") == r.position]
    corrects = None
    if r.type == "CorrectionRecorded":
        original = by_pos.get(r.data.get("corrects"))
        corrects = _event(original, summaries[original.position]) if original else {
            "position": r.data.get("corrects"), "hidden": True}
    return TurnView(
        campaign=str(cid), turn=turn,
        steps=[{"position": x.position, "type": x.type, "summary": summaries[x.position]} for x in in_turn],
        index=i, event=_event(r, summaries[r.position]), ruling=_ruling(r), dice=dice, dice_status=status,
        map=docs["map"], victory=docs["victory"], changes=changes,
        budget_changes=budget_changes(before, r), corrections=corrections, corrects=corrects,
    )
