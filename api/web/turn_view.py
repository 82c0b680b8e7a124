"""What the web page shows at one step of a turn, computed from the events the caller may see.

One step is one event of the turn. For it: its timeline line, the ruling
explained (modifiers with their rule codes, table cell, dice and whether the
revealed seed reproduces them), the map and tracks as of that position, what
this event changed there (paths for the map's highlighting, and the same in
plain words, ``projections.words``), the ERS lines it changed, and the
corrections that reference it, each as the fields it changed. For a game
master, the dispute forms: the correctable event's own fields, or a ruling's
inputs from its procedure's input schema (``rework_form``). A player's or observer's view is replayed from the events
they may see only (``ledger.access.can_see``), like the API's.

Only the turn's events are read: the map and tracks start from the caller's
nearest checkpoint (``projections.head.Reader.checkpoint``: the stored per-turn
checkpoints for a game master, the audience's own for the others) and are
folded once; the budget's inputs are read by type, never the whole history.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import orjson

from ledger import dice as dicelib
from ledger.access import can_see
from ledger.application import Actor, Ledger
from ledger.domain.campaign import CampaignState
from ledger.domain.errors import EventNotFound, LedgerError
from ledger.domain import commands as cmd
from ledger.domain.corrections import replaced
from ledger.rules.core import get_ruleset, json_schema
from projections import read, replay, words
from projections import timeline as timeline_model
from projections.head import Reader
from projections.records import Record

_MISMATCH = re.compile(r"roll (\d+) at position (\d+) ")


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
    change_words: list[str] = field(default_factory=list)  # ``changes`` in plain words (``projections.words``)
    rework: dict[str, Any] | None = None  # the re-resolution form of a ruling: fields from its input schema
    correction_fields: list[dict[str, Any]] | None = None  # the dispute form's fields for other correctable events
    correctable: bool = False


#: The kinds of event that carry dice (``_dice_of``).
_ROLLING = ("DiceRolled", "RulingRecorded")


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


def dice_status(r: Record, dice: list[dict[str, Any]], closed: bool, commitments: Callable[[], dict[Any, Any]],
                report_of: Callable[[], dicelib.DiceReport]) -> dict[str, Any]:
    """Each die's status: physical (flagged), committed (open turn), or checked against the revealed seed.
    ``commitments()`` and ``report_of()``: the turn's, ``Reader.turn_commitments`` and ``Reader.turn_dice``
    (read only for an event with dice)."""
    if not dice:
        return {"turn": "none", "message": None}
    if not closed:
        commitments = commitments()
        # A hidden roll is drawn from its audience's seed (ledger/dice.py): the commitment shown is that seed's.
        commitment = commitments.get(dicelib.audience(r.visibility), commitments.get(None))
        for d in dice:
            d["status"] = "manual" if d["manual"] else "committed"
        return {"turn": "open", "message": f"committed (sha256 of the seed {commitment}), verifiable after the "
                                          "turn closes"}
    try:
        report = report_of()
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
    return words.ruling_words(r.data["ruling"])


def correction_words(original: Record | None, correction: Record) -> dict[str, Any]:
    """A correction beside its original, as the fields that changed (or the ruling's diff), in words."""
    replacement = correction.data.get("replacement")
    if replacement is None:
        return {"struck": True}
    if original is None or not isinstance(replacement, dict):
        return {"rows": []}
    if original.type == "RulingRecorded":
        new = replaced(original.data, replacement) or {}
        diff = words.ruling_diff(original.data["ruling"], new.get("ruling"))
        return {"ruling": diff, "rework": replacement.get("rework") and _rework_dice(replacement["rework"])}
    return {"rows": words.fields_diff(original.data, replacement)}


def _rework_dice(report: dict[str, Any]) -> dict[str, list[str]]:
    return {k: [words.dice_line(d) for d in report.get(k) or ()] for k in ("matched", "drawn", "unused")}


def _event(r: Record, summary: str) -> dict[str, Any]:
    payload = {k: v for k, v in r.data.items()
               if k not in ("context", "actor", "visibility", "prev_hash", "hash", "salt", "schema", "timestamp")}
    # The payload as rows of words; a ruling, a scenario or a replacement has its own section or is summarised.
    rows = [(words.label(k), words.plain(v)) for k, v in payload.items()
            if k not in ("ruling", "scenario", "replacement", "settings", "players")]
    return {"position": r.position, "type": r.type, "summary": summary, "turn": r.turn, "context": r.context,
            "actor": r.data.get("actor") or {}, "visibility": r.data.get("visibility") or {"scope": "public"},
            "timestamp": words.moment(r.data.get("timestamp")), "hash": r.data.get("hash"), "payload": payload, "rows": rows,
            "kind": _KINDS.get(r.type, r.type)}


#: Event types as people name them.
_KINDS = {"RulingRecorded": "Ruling", "TreasuryEntryRecorded": "Treasury entry", "CorrectionRecorded": "Correction",
          "DiceRolled": "Dice", "StackMoved": "Move", "ControlChanged": "Control", "MarkerPlaced": "Marker placed",
          "MarkerRemoved": "Marker removed", "WarDeclared": "War", "TurnOpened": "Turn opened",
          "TurnClosed": "Turn closed", "PhaseClosed": "Phase closed", "CampaignCreated": "Campaign created",
          "ScenarioImported": "Scenario", "TokenIssued": "Access token", "TokenRevoked": "Access token revoked",
          "SessionOpened": "Login", "SessionEnded": "Logout",
          "VisibilityRevealed": "Made public", "SheetsPublished": "Sheets published",
          "CampaignSettingsChanged": "Settings",
          "DiceSeedCommitted": "Dice commitment", "DiceSeedRevealed": "Dice seed revealed",
          "PeaceMade": "Peace",
          "StackSplit": "Stack split", "StackRaised": "New stack", "StacksMerged": "Stacks merged",
          "StackChanged": "Units and leaders",
          "SiegeStarted": "Siege begins", "SiegeEnded": "Siege over", "OwnerChanged": "Owner",
           "FortressChanged": "Fortress", "CountryFactsSet": "Country facts", "TradeFleetChanged": "Trade fleet",
           "TradeCentreChanged": "Trade centre", "EstablishmentChanged": "Colony or trading post",
           "MissionChanged": "Mission", "IncomeConfirmed": "Income confirmed", "DeadlineSet": "Deadline",
           "DeadlineCleared": "Deadline cleared", "ReadinessMarked": "Ready", "ReminderIssued": "Reminder",
           "MarkedAsRead": "Read up to here"}


def correction_fields(r: Record) -> list[dict[str, Any]] | None:
    """The dispute form's fields for a correctable event other than a ruling (its replacement's schema), filled
    with the event's values; None when the event cannot be corrected (a ruling has its own form)."""
    return replacement_fields(r.type, r.data)


def replacement_fields(kind: str, payload: dict[str, Any]) -> list[dict[str, Any]] | None:
    model = cmd.REPLACEMENTS.get(kind)
    if model is None or kind == "RulingRecorded":
        return None
    schema = json_schema(model)
    return list(schema_fields(schema, schema, payload, ""))


def posted_replacement(kind: str, payload: dict[str, Any], form: dict[str, str]) -> dict[str, Any]:
    """The fields of the dispute form that differ from the event: its replacement."""
    fields = replacement_fields(kind, payload) or []
    posted = form_inputs(fields, form)
    return {k: v for k, v in posted.items() if v != payload.get(k)}


def reader_of(ledger: Ledger) -> Reader:
    """A reader of the views for a caller without an app (tests, tools): the app passes its own."""
    from projections.runner import Projector

    return Reader(ledger, Projector(ledger).db)


def turn_view(ledger: Ledger, cid: UUID, turn: int, actor: Actor, *, step: int | None = None,
              position: int | None = None, reader: Reader | None = None, state: CampaignState | None = None
              ) -> TurnView:
    """The view at ``step`` (1-based, clamped) or at the step of event ``position`` of ``turn``."""
    reader = reader or reader_of(ledger)
    state = state or ledger.campaign(cid)
    revealed = frozenset(state.revealed)
    # The steps from the timeline view's rows (type, summary, visibility: nothing decoded); the events themselves
    # are read from the turn's start up to the one shown only.
    in_turn = [x for x in reader.timeline_rows(cid, turn, state.version)
               if x["turn"] == turn and can_see(actor, x, revealed)]
    if not in_turn:
        raise EventNotFound(f"turn {turn} has no event you may see", field="turn")
    if position is not None:
        found = [i for i, x in enumerate(in_turn) if x["position"] == position]
        if not found:
            raise EventNotFound(f"position {position} is not an event of turn {turn} you may see "
                                f"({in_turn[0]['position']}..{in_turn[-1]['position']})", field="position")
        i = found[0]
    else:
        i = min(max((step or 1) - 1, 0), len(in_turn) - 1)
    at = in_turn[i]["position"]
    closed = any(x["type"] == "TurnClosed" for x in in_turn) or (
        state.turn > turn or (state.turn == turn and not state.turn_open))
    # A closed turn's dice check needs nothing of the step: read while the step is read and folded
    # (``Reader.ahead``), from the moment the timeline says the step is of a kind that rolls dice.
    checked = reader.ahead(reader.turn_dice, cid, turn, state.version, actor, revealed) \
        if closed and in_turn[i]["type"] in _ROLLING else None
    every = reader.turn_records(cid, turn, at)  # up to the event shown, hidden ones too
    if not every or every[-1].position != at:  # the timeline's row, but not among the turn's records
        raise EventNotFound(f"position {at} is not an event of turn {turn}", field="position")
    r = every[-1]
    dice = _dice_of(r)

    # Map and tracks before and after the event, and what it changed, as the terminal replay shows them.
    shown = reader.step(cid, actor, state, r, every)
    docs_before, docs, first = shown.before, shown.after, every[0].position
    changes = [c for n in replay.MODELS for c in replay.diff_docs(docs_before[n], docs[n], n)]

    # Summaries name the stack owners the scenario declares, as the timeline's do: its rows give the turn's; an
    # event of another turn (a correction's target, a later correction) is summarised from the scenario, read
    # only then (a fresh process's first read of it decodes the whole scenario).
    summaries = {x["position"]: x["summary"] for x in in_turn}
    scenario: list[dict[str, Any]] = []

    def summary(x: Record) -> str:
        found = summaries.get(x.position)
        if found:
            return found
        if not scenario:
            doc = timeline_model.empty()
            for s in read.visible(actor, reader.of_types(cid, {"ScenarioImported"}, first - 1, state), revealed):
                timeline_model.row(doc, s)
            scenario.append(doc)
        return timeline_model.summary(scenario[0], x)

    status = dice_status(r, dice, closed, lambda: reader.turn_commitments(cid, turn, state.version, actor, revealed),
                         checked.result if checked is not None
                         else lambda: reader.turn_dice(cid, turn, state.version, actor, revealed))
    later = [x for x in reader.of_types(cid, {"CorrectionRecorded"}, state.version, state) if x.position > r.position]
    corrections = [{**_event(x, summary(x)), "words": correction_words(r, x)}
                   for x in read.visible(actor, later, revealed) if x.data.get("corrects") == r.position]
    corrects = None
    if r.type == "CorrectionRecorded":
        at = r.data.get("corrects")
        original = read.visible_records(ledger, cid, actor, revealed, at - 1, at) if isinstance(at, int) else []
        corrects = ({**_event(original[0], summary(original[0])), "words": correction_words(original[0], r)}
                    if original else {"position": at, "hidden": True})
    return TurnView(
        campaign=str(cid), turn=turn,
        steps=[{"position": x["position"], "type": x["type"], "summary": x["summary"]} for x in in_turn],
        index=i, event=_event(r, summaries[r.position]), ruling=_ruling(r), dice=dice, dice_status=status,
        map=docs["map"], victory=docs["victory"], changes=changes,
        budget_changes=shown.budget, corrections=corrections, corrects=corrects,
        change_words=shown.changes, rework=rework_form(r, state),
        correction_fields=correction_fields(r), correctable=r.type in cmd.REPLACEMENTS or r.type == "CorrectionRecorded",
    )


def rework_form(r: Record, state: CampaignState, inputs: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The fields of a ruling's re-resolution form, from its procedure's input schema, filled with ``inputs``
    (default: the recorded ones). One field per leaf input: a number, a yes/no, a choice or a text."""
    if r.type != "RulingRecorded":
        return None
    try:
        proc = get_ruleset(r.data["ruleset"]).get(r.data["procedure"])
    except Exception:  # noqa: BLE001 - a ruleset this server does not run: no form, the ruling still shows
        return None
    schema = proc.input_schema()
    values = inputs if inputs is not None else r.data["ruling"].get("inputs") or {}
    return {"position": r.position, "procedure": r.data["procedure"], "title": proc.title,
            "fields": list(schema_fields(schema, schema, values, ""))}


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = {**schema["$defs"][node["$ref"].rsplit("/", 1)[-1]], **{k: v for k, v in node.items() if k != "$ref"}}
    options = [x for x in node.get("anyOf") or () if x.get("type") != "null"]
    if options and "type" not in node:  # Optional[X]: the field is X, left empty for none
        node = {**_resolve(schema, options[0]), "nullable": True, **{k: v for k, v in node.items() if k != "anyOf"}}
    return node


def schema_fields(schema: dict[str, Any], node: dict[str, Any], values: Any, prefix: str):
    """(name, label, kind, choices, value, help) for every leaf of an input schema, nested objects flattened."""
    node = _resolve(schema, node)
    for name, prop in (node.get("properties") or {}).items():
        prop = _resolve(schema, prop)
        path = f"{prefix}.{name}" if prefix else name
        value = values.get(name) if isinstance(values, dict) else None
        if prop.get("type") == "object" and prop.get("properties"):
            yield from schema_fields(schema, prop, value or {}, path)
            continue
        keys, extra = _resolve(schema, prop.get("propertyNames") or {}), _resolve(schema, prop.get("additionalProperties") or {})
        if prop.get("type") == "object" and keys.get("enum") and isinstance(extra, dict) and extra.get("enum"):
            # A reading per named key (M19's leader test of each side): one optional choice each, not JSON.
            yield from schema_fields(schema, {"properties": {str(k): extra for k in keys["enum"]}}, value or {}, path)
            continue
        kind = ("choice" if "enum" in prop else "bool" if prop.get("type") == "boolean"
                else "int" if prop.get("type") == "integer" else "number" if prop.get("type") == "number"
                else "text" if prop.get("type") == "string" else _plain_kind(schema, prop) or "json")
        choices = [str(c) for c in prop.get("enum") or ()]
        if kind == "list":  # names, as a person types them: "Manche, Picardie"
            shown = ", ".join(str(x) for x in value or ())
        elif kind == "counts":  # counts by name: "LD=2, CAV=-1"
            shown = ", ".join(f"{k}={n}" for k, n in (value or {}).items())
        elif kind == "bool":  # a select, not a checkbox: "not said" (None) is not "no"
            choices = ["yes", "no"]
            shown = "" if value is None else ("yes" if value else "no")
        elif kind == "json":
            shown = orjson.dumps(value).decode() if value is not None else ""
        else:
            shown = "" if value is None else str(value)
        hint = {"list": "separated by commas", "counts": "NAME=NUMBER, separated by commas (LD=2, CAV=-1)"}
        yield {"name": path, "label": words.label(path.replace(".", " ")), "kind": kind, "choices": choices,
               "value": shown, "nullable": bool(prop.get("nullable")), "default": prop.get("default"),
               "optional": bool(prop.get("nullable")) or name not in (node.get("required") or ()),
               "help": prop.get("description") or hint.get(kind, "")}


def _plain_kind(schema: dict[str, Any], prop: dict[str, Any]) -> str | None:
    """A list of names ("list") or counts by name ("counts"), typed as words rather than JSON; else None."""
    if prop.get("type") == "array" and _resolve(schema, prop.get("items") or {}).get("type") == "string":
        return "list"
    extra = prop.get("additionalProperties")
    if prop.get("type") == "object" and isinstance(extra, dict) and _resolve(schema, extra).get("type") == "integer":
        return "counts"
    return None


def form_inputs(fields: list[dict[str, Any]], form: dict[str, str]) -> dict[str, Any]:
    """The inputs a re-resolution form posted, typed by its fields (``input.<name>``), nested again.

    A number that does not read as one is passed on as text, so the procedure's own validation names it."""
    out: dict[str, Any] = {}
    for f in fields:
        raw = form.get(f"input.{f['name']}")
        v: Any
        if raw is None or raw.strip() == "":
            if f["optional"]:
                continue
            v = raw
        elif f["kind"] == "bool":
            v = {"yes": True, "no": False}.get(raw, raw)
        elif f["kind"] == "int":
            v = int(raw) if raw.strip().lstrip("-").isdigit() else raw
        elif f["kind"] == "number":
            try:
                v = float(raw) if "." in raw else int(raw)
            except ValueError:
                v = raw
        elif f["kind"] == "list":
            v = [x.strip() for x in raw.split(",") if x.strip()]
        elif f["kind"] == "counts":
            v = {}
            for pair in (x for x in raw.split(",") if x.strip()):
                k, _, n = pair.partition("=")
                v[k.strip()] = int(n) if n.strip().lstrip("+-").isdigit() else n.strip()  # the model names a bad one
        elif f["kind"] == "json":
            try:
                v = orjson.loads(raw)
            except orjson.JSONDecodeError:
                v = raw
        else:
            v = raw
        *parents, leaf = f["name"].split(".")
        node = out
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = v
    return out
