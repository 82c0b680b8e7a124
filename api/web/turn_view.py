"""What the web page shows at one step of a turn, computed from the events the caller may see.

One step is one event of the turn. For it: its timeline line, the ruling
explained (modifiers with their rule codes, table cell, dice and whether the
revealed seed reproduces them), the map and tracks as of that position, what
this event changed there (``projections.replay.diff_docs``), the ERS lines it
changed (``ledger.economy.sheets`` before and after it), and the corrections
that reference it. A player's or observer's view is replayed from the events
they may see only (``ledger.access.can_see``), like the API's.

Only the turn's events are read: the map and tracks start from the caller's
nearest checkpoint (``projections.head.Reader.checkpoint``: the stored per-turn
checkpoints for a game master, the audience's own for the others) and are
folded once; the budget's inputs are read by type, never the whole history.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any
from uuid import UUID

import orjson

from ledger import dice as dicelib
from ledger.application import Actor, Ledger
from ledger.domain.campaign import CampaignState, ruling_dice
from ledger.domain.errors import EventNotFound, InvalidInput, LedgerError, StateConflict
from ledger.economy.sheets import RELEVANT, Budget, Inputs, compute
from ledger.rules.core import Ruling
from ledger.rules.explain import explain
from projections import budget_view, read, replay
from projections import timeline as timeline_model
from projections.head import Reader
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


def _sheet_cells(b: Budget) -> dict[tuple[str, int, str], Any]:
    return {(country, turn, code): c.value for (country, turn), sheet in b.sheets.items()
            for code, c in (sheet.cells or {}).items()}


def budget_changes(before: list[list[Any]], event: Record) -> list[dict[str, Any]]:
    """The ERS lines whose value differs between the budget without and with ``event`` (``before``: the
    budget's inputs before it, as [type, position, fields]). One gathering of the inputs, two computations
    sharing a memo: the second computes again only the sheets the event changed."""
    if event.type not in _BUDGET_EVENTS:
        return []
    try:
        inputs, memo = Inputs(), {}
        for kind, position, data in before:
            inputs.add(kind, position, data)
        c0 = _sheet_cells(compute(inputs, memo=memo))
        inputs.add(event.type, event.position, budget_view.trim(event))
        c1 = _sheet_cells(compute(inputs, memo=memo))
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


def verify_turn_dice(cid: UUID, turn: int, records: list[Record]) -> dicelib.DiceReport:
    """``Ledger.verify_dice`` over the turn's records already read (every one, hidden ones too), rather than
    a second pass over the whole history: the same checks, the same messages."""
    opened = closed = None
    rolls: list[dicelib.RecordedRoll] = []
    for r in records:
        d = r.data
        if r.type == "TurnOpened" and d.get("turn") == turn:
            opened = d
        elif r.type == "TurnClosed" and d.get("turn") == turn:
            closed = d
        elif r.type == "DiceRolled" and d.get("turn") == turn:
            rolls.append(dicelib.RecordedRoll(r.position, d.get("index"), d["sides"], d["count"], d["purpose"],
                                              tuple(d["values"]), bool(d.get("manual"))))
        elif r.type == "RulingRecorded" and r.turn == turn:
            for die in ruling_dice(d["ruling"]):
                rolls.append(dicelib.RecordedRoll(r.position, die.get("index"), die["sides"], die["count"],
                                                  die["purpose"], tuple(die["values"]), bool(die.get("manual"))))
    if opened is None:
        raise InvalidInput(f"turn {turn} was never opened", field="turn")
    if closed is None:
        raise StateConflict(f"turn {turn} is still open: its seed is revealed when it closes", field="turn")
    server_rolls = sum(1 for r in rolls if not r.manual)
    report = dicelib.verify_turn(bytes.fromhex(closed["seed"]), opened["commitment"], str(cid), turn, rolls)
    if closed["rolls"] != server_rolls:
        problem = f"turn {turn}: the closing event counts {closed['rolls']} server rolls, the history holds {server_rolls}"
        report = replace(report, mismatches=(*report.mismatches, problem))
    return report


def dice_status(cid: UUID, r: Record, dice: list[dict[str, Any]], closed: bool, commitment: str | None,
                turn_records: list[Record]) -> dict[str, Any]:
    """Each die's status: physical (flagged), committed (open turn), or checked against the revealed seed."""
    if not dice:
        return {"turn": "none", "message": None}
    if not closed:
        for d in dice:
            d["status"] = "manual" if d["manual"] else "committed"
        return {"turn": "open", "message": f"committed (sha256 of the seed {commitment}), verifiable after the "
                                          "turn closes"}
    try:
        report = verify_turn_dice(cid, r.turn, turn_records)
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


def reader_of(ledger: Ledger) -> Reader:
    """A reader of the views for a caller without an app (tests, tools): the app passes its own."""
    from projections.runner import Projector

    return Reader(ledger, Projector(ledger).db)


def _copy(docs: dict[str, Any]) -> dict[str, Any]:
    return orjson.loads(orjson.dumps(docs))


def turn_view(ledger: Ledger, cid: UUID, turn: int, actor: Actor, *, step: int | None = None,
              position: int | None = None, reader: Reader | None = None, state: CampaignState | None = None
              ) -> TurnView:
    """The view at ``step`` (1-based, clamped) or at the step of event ``position`` of ``turn``."""
    reader = reader or reader_of(ledger)
    state = state or ledger.campaign(cid)
    revealed = frozenset(state.revealed)
    every = reader.turn_records(cid, turn, state.version)  # the turn's events, hidden ones too (dice check)
    in_turn = read.visible(actor, [r for r in every if r.turn == turn], revealed)
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

    # Map and tracks before the event: the nearest checkpoint, then the events after it, folded once.
    since, docs = reader.checkpoint(cid, actor, state, r.position - 1)
    start, first = min(since.values()), every[0].position
    earlier = read.records(ledger, cid, start, first - 1) if start < first - 1 else []
    docs_before = reader.fold(cid, actor, state, since, docs,
                              [x for x in (*earlier, *every) if start < x.position < r.position])
    docs = reader.fold(cid, actor, state, {name: r.position - 1 for name in since}, _copy(docs_before), [r])
    changes = [c for n in replay.MODELS for c in replay.diff_docs(docs_before[n], docs[n], n)]

    # Summaries name the stack owners the scenario declares, as the timeline's do.
    doc = timeline_model.empty()
    for x in read.visible(actor, reader.of_types(cid, {"ScenarioImported"}, first - 1), revealed):
        timeline_model.row(doc, x)
    summaries = {x.position: timeline_model.row(doc, x)["summary"] for x in in_turn}

    def summary(x: Record) -> str:
        return summaries.get(x.position) or timeline_model.summary(doc, x)

    closed = any(x.type == "TurnClosed" and x.data.get("turn") == turn for x in in_turn) or (
        state.turn > turn or (state.turn == turn and not state.turn_open))
    commitment = next((x.data.get("commitment") for x in in_turn
                       if x.type == "TurnOpened" and x.data.get("turn") == turn), None)
    dice = _dice_of(r)
    status = dice_status(cid, r, dice, closed, commitment, every)
    later = [x for x in reader.of_types(cid, {"CorrectionRecorded"}, state.version) if x.position > r.position]
    corrections = [_event(x, summary(x)) for x in read.visible(actor, later, revealed)
                   if x.data.get("corrects") == r.position]
    corrects = None
    if r.type == "CorrectionRecorded":
        at = r.data.get("corrects")
        original = read.visible_records(ledger, cid, actor, revealed, at - 1, at) if isinstance(at, int) else []
        corrects = _event(original[0], summary(original[0])) if original else {"position": at, "hidden": True}
    before = reader.budget_events(cid, actor, state, r.position - 1) if r.type in _BUDGET_EVENTS else []
    return TurnView(
        campaign=str(cid), turn=turn,
        steps=[{"position": x.position, "type": x.type, "summary": summaries[x.position]} for x in in_turn],
        index=i, event=_event(r, summaries[r.position]), ruling=_ruling(r), dice=dice, dice_status=status,
        map=docs["map"], victory=docs["victory"], changes=changes,
        budget_changes=budget_changes(before, r), corrections=corrections, corrects=corrects,
    )
