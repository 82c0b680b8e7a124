"""Budget read model: the ERS of every country and turn, each cell with its lineage.

``budget(events)`` is a pure function of one campaign's history (domain events
or ``projections.records.Record``s, in order). It gathers the treasury entries
(corrections applied), sums them per country, turn and line, and lets
``ledger.rules.eu.ers.compute_sheet`` derive the rest, turn after turn (A1 is
last turn's A33, loans follow their schedule). Every entered cell lists the
positions of the events that produced it; every derived cell the lines it is
computed from. One pass over the events, then one ``compute_sheet`` per
country and turn: a 300,000-event campaign costs the pass plus a few hundred
sheets (ops/bench_budget.py).

Conventions (ledger/rules/eu/DECISIONS.md, "ERS effects"): an entry carries
what the paper sheet carries (ticks on B40–B43, the percentage on ``_pct``
boxes); entries on a line add up, except on percentage and modifier boxes,
where the latest entry stands. A correction (``CorrectionRecorded``) of a
treasury entry replaces its ``amount`` (and, if given, ``line``, ``turn``,
``country``); a correction without replacement strikes the entry.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from ledger.domain.corrections import Standing
from ledger.rules.core import RulesError
from ledger.rules.eu.ers import SheetDefinition, compute_sheet, ers_definition, sheet_lines

#: Event types the budget reads; every other event is skipped unread.
RELEVANT = frozenset(
    {"CampaignCreated", "ScenarioImported", "TurnOpened", "TreasuryEntryRecorded", "CorrectionRecorded",
     "PhaseClosed"}
)
SET_UNITS = frozenset({"percent", "modifier"})
#: The fields ``Inputs.add`` reads from each relevant event (``trim``): what a view or the write side keeps.
KEEP = {
    "TreasuryEntryRecorded": ("country", "turn", "line", "amount", "reason"),
    "CorrectionRecorded": ("corrects", "replacement"),
    "TurnOpened": ("turn",),
    "PhaseClosed": ("turn", "phase"),
    "CampaignCreated": ("countries", "settings"),
}
_CORRECTABLE = frozenset({"amount", "line", "turn", "country"})


@dataclass(frozen=True, slots=True)  # slots: a campaign's memo holds hundreds of thousands of cells
class Cell:
    code: str
    name: str
    sheet: str
    kind: str  # "entered" | "derived"
    unit: str
    value: int
    ticks: int | None
    formula: str | None
    sources: tuple[str, ...]  # lines it is computed from ("A33[t-1]": last turn's)
    events: tuple[int, ...]  # positions of the events that produced it (entries, corrections, scenario)
    defaulted: bool
    alert: str | None
    at_close: dict[str, Any] | None = None  # the value recorded when its phase closed


def _constructor(cls: type) -> Any:
    """A frozen slots dataclass's constructor, every field given in order, that sets each slot directly: the
    dataclass's ``__init__`` goes through ``object.__setattr__`` per field (3.5 us a cell against 2.0; a
    300,000-event budget builds 224,000 cells). tests/unit/test_budget.py holds the two equal."""
    fields = cls.__slots__  # type: ignore[attr-defined]
    names = {f"set_{f}": getattr(cls, f).__set__ for f in fields}
    source = (f"def make({', '.join(fields)}):\n    c = new(cls)\n"
              + "".join(f"    set_{f}(c, {f})\n" for f in fields) + "    return c\n")
    namespace = {"new": object.__new__, "cls": cls, **names}
    exec(source, namespace)
    return namespace["make"]


_cell = _constructor(Cell)


@dataclass(frozen=True)
class Sheet:
    country: str
    turn: int
    cells: dict[str, Cell] | None  # None when the sheet cannot be computed (see error)
    error: dict[str, Any] | None = None
    unbooked: tuple[dict[str, Any], ...] = ()  # entries the sheet could not take, with why
    phases_closed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Budget:
    countries: tuple[str, ...]
    turns: int
    sheets: dict[tuple[str, int], Sheet]
    corrections_unapplied: tuple[dict[str, Any], ...] = ()
    position: int = 0

    def sheet(self, country: str, turn: int) -> Sheet | None:
        return self.sheets.get((country, turn))


@dataclass
class _Entry:
    position: int
    country: str
    turn: int
    line: str
    amount: int
    reason: str
    events: tuple[int, ...] = field(default=())


def _view(e: Any) -> tuple[str, int, Mapping[str, Any]]:
    """(type, position, fields) of a domain event or a projections Record."""
    data = getattr(e, "data", None)
    if isinstance(data, dict):
        return e.type, e.position, data
    return type(e).__name__, e.originator_version, vars(e)


#: ``budget(..., memo=...)``: (country, turn) -> (inputs key, token, Sheet, computed lines). A sheet whose
#: inputs (its entries, unbooked entries, closed phases, recorded closing values, options) and whose
#: previous sheets (by token) are unchanged is taken from the memo instead of being computed again, so a
#: view that recomputes the budget after every batch pays only for the turns that changed.
Memo = dict[tuple[str, int], tuple[Any, int, "Sheet", dict[str, Any]]]  # the lines: amounts, or LineValues
_tokens = itertools.count(1)


@dataclass
class Inputs:
    """What the budget reads from one campaign's history, gathered event by event (``add``).

    A view keeps one per campaign and adds each new event; ``compute`` never changes it.
    """

    countries: tuple[str, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    start: dict[str, tuple[int, int]] = field(default_factory=dict)  # country -> (treasury, scenario position)
    turns: int = 0
    position: int = 0
    entries: dict[int, _Entry] = field(default_factory=dict)
    corrections: dict[int, tuple[int, Any]] = field(default_factory=dict)  # corrected -> (position, replacement)
    standing: Standing = field(default_factory=Standing)  # corrections of corrections folded (the views' rule)
    phases: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    closes: dict[tuple[int, str, str], dict[str, Any]] = field(default_factory=dict)
    closed_codes: dict[tuple[int, str], list[str]] = field(default_factory=lambda: defaultdict(list))
    # Entries by the (country, turn) they were recorded for, and a count of additions per sheet: a memo
    # recognises an unchanged sheet by it without regrouping every entry of the campaign.
    by_key: dict[tuple[str, int], list[int]] = field(default_factory=lambda: defaultdict(list))
    version: dict[tuple[str, int], int] = field(default_factory=lambda: defaultdict(int))

    def add(self, kind: str, pos: int, d: Mapping[str, Any]) -> bool:
        """Take one event; False when the budget does not read this kind."""
        self.position = pos
        if kind not in RELEVANT:
            return False
        if kind == "TreasuryEntryRecorded":
            self.entries[pos] = _Entry(pos, d["country"], d["turn"], d["line"], d["amount"], d.get("reason", ""),
                                       (pos,))
            self.by_key[(d["country"], d["turn"])].append(pos)
            self.version[(d["country"], d["turn"])] += 1
        elif kind == "CorrectionRecorded":
            root = self.standing.add(pos, d["corrects"], d.get("replacement"))
            now = self.standing.standing(root)
            if now is None:  # every correction of it withdrawn: the original stands
                self.corrections.pop(root, None)
            else:
                self.corrections[root] = now
        elif kind == "TurnOpened":
            self.turns = max(self.turns, d["turn"])
        elif kind == "PhaseClosed":
            # Its ``ers`` (every country's figures, in older histories) is not read: those figures were
            # public, and no reader may learn a rival's treasury from them.
            self.phases[d["turn"]].append(d["phase"])
        elif kind == "CampaignCreated":
            self.countries, self.settings = tuple(d["countries"]), d.get("settings") or {}
        elif kind == "ScenarioImported":
            for c in d["scenario"].get("countries", []):
                self.start[c["code"]] = (c["treasury"], pos)
        return True


def trim(kind: str, data: Mapping[str, Any], *, reasons: bool = True) -> dict[str, Any]:
    """The fields of a relevant event the budget reads (``reasons=False``: without the entries' reasons)."""
    if kind == "ScenarioImported":
        countries = (data.get("scenario") or {}).get("countries", [])
        return {"scenario": {"countries": [{"code": c["code"], "treasury": c["treasury"]} for c in countries]}}
    keep = KEEP[kind] if reasons or kind != "TreasuryEntryRecorded" else KEEP[kind][:-1]
    return {k: data[k] for k in keep if k in data}


def budget(events: Iterable[Any], *, definition: SheetDefinition | None = None, memo: Memo | None = None,
           countries: Iterable[str] | None = None) -> Budget:
    """Every country's ERS for every opened turn of one campaign; with ``countries``, only theirs (a page shows
    one country's sheet: the others' are not computed)."""
    inputs = Inputs()
    for e in events:
        inputs.add(*_view(e))
    if countries is None:
        return compute(inputs, definition=definition, memo=memo)
    return compute(inputs, definition=definition, memo={} if memo is None else memo,
                   since=dict.fromkeys(countries, 1))


def compute(inputs: Inputs, *, definition: SheetDefinition | None = None, memo: Memo | None = None,
            since: Mapping[str, int] | None = None) -> Budget:
    """The sheets from gathered inputs (``memo``: see ``Memo``).

    ``since`` (with ``memo``): country -> the first turn whose inputs may have changed since the memo was
    filled; only those sheets and the later ones of that country are in the answer, and the countries not
    named have none. A view that tracks what each event touches pays for those sheets only, not for a walk
    of every sheet of the campaign. A country whose earlier sheets are not all memoised starts from turn 1.
    """
    defn = definition or ers_definition()
    countries, settings, start, turns, position = (inputs.countries, inputs.settings, inputs.start, inputs.turns,
                                                   inputs.position)
    phases, closes, closed_codes = inputs.phases, inputs.closes, inputs.closed_codes
    entries, unapplied = _apply_corrections(inputs.entries, inputs.corrections)

    # Corrected entries (few) may have moved to another sheet; every other entry stays on the sheet
    # it was recorded for. ``touched``: the corrections that concern each sheet, for the memo key.
    moved_in: dict[tuple[str, int], list[int]] = defaultdict(list)
    moved_out: set[int] = set()
    touched: dict[tuple[str, int], tuple[int, ...]] = defaultdict(tuple)
    for corrected, (pos, _) in inputs.corrections.items():
        original = inputs.entries.get(corrected)
        if original is None:
            continue
        now = entries[corrected]
        old_key, new_key = (original.country, original.turn), (now.country, now.turn)
        touched[old_key] += (pos,)
        if new_key != old_key:
            touched[new_key] += (pos,)
            moved_out.add(corrected)
            moved_in[new_key].append(corrected)
    known = set(defn.codes)

    def group(key: tuple[str, int]) -> tuple[dict[str, tuple[int, tuple[int, ...]]], list[dict[str, Any]]]:
        """A sheet's entries per line -> (amount, positions), and the entries it cannot take."""
        members = [p for p in inputs.by_key.get(key, ()) if p not in moved_out]
        if key in moved_in:
            members = sorted(members + moved_in[key])  # positions ascend: the latest entry stands last
        lines: dict[str, tuple[int, tuple[int, ...]]] = {}
        unbooked: list[dict[str, Any]] = []
        for p in members:
            entry = entries[p]
            if entry.amount is None:  # struck by a correction
                continue
            if entry.line not in known:
                unbooked.append(_unbooked(entry, f"{entry.line} is not a line of the sheet"))
                continue
            d = defn.get(entry.line)
            if d.kind == "derived" and not d.carry:
                unbooked.append(_unbooked(entry, f"{entry.line} is computed by the sheet ({d.formula})"))
                continue
            if entry.line in lines and d.unit not in SET_UNITS:
                amount, positions = lines[entry.line]
                lines[entry.line] = (amount + entry.amount, positions + entry.events)
            else:  # first entry, or a box whose latest entry stands (positions ascend)
                lines[entry.line] = (entry.amount, entry.events)
        return lines, unbooked

    period_starts = set(settings.get("period_start_turns") or ())
    variants = tuple(settings.get("ers_variants") or ())
    # Sheets for the opened turns only: a correction may name any turn, and an entry for a turn that was
    # never opened has no sheet to go on.
    last_turn = turns
    sheets: dict[tuple[str, int], Sheet] = {}
    for country in countries:
        history: list[dict[str, Any] | None] = []  # computed sheets' amounts, oldest first
        tokens: list[int] = []  # memo tokens of those sheets (0: not memoised)
        broken: int | None = None
        first = 1
        if since is not None and memo is not None:
            if country not in since:
                continue
            first = max(1, since[country])
            # The three sheets before ``first`` are all the next one reads (A1 from the last, loans from three).
            primed = [memo.get((country, t)) for t in range(max(1, first - 3), first)]
            if None in primed:
                first = 1
            else:
                history = [hit[3] for hit in primed]  # type: ignore[index]
                tokens = [hit[1] for hit in primed]  # type: ignore[index]
        for turn in range(first, last_turn + 1):
            key = (country, turn)
            previous = history[-1] if history else None
            inputs_key = None
            if memo is not None and 0 not in tokens[-3:] and broken is None:
                here = {c: closes[(turn, country, c)] for c in closed_codes.get((turn, country), ())}
                inputs_key = (inputs.version.get(key, 0), touched.get(key, ()), start.get(country) if turn == 1
                              else None, tuple(phases.get(turn, ())), orjson.dumps(here, option=orjson.OPT_SORT_KEYS),
                              turn in period_starts, variants, tuple(tokens[-3:]))
                hit = memo.get(key)
                if hit is not None and hit[0] == inputs_key:
                    sheets[key] = hit[2]
                    history.append(hit[3])
                    tokens.append(hit[1])
                    continue
            lines, skipped = group(key)
            if previous is None and turn == 1 and "A1" not in lines and country in start:
                treasury, where = start[country]
                lines["A1"] = (treasury, (where,))
            if previous is not None:
                for code in [c for c in lines if defn.get(c).carry]:
                    amount, positions = lines.pop(code)
                    skipped.append({"positions": list(positions), "line": code, "amount": amount,
                                    "reason": f"{code} is carried from turn {turn - 1}'s sheet"})
            base = {"country": country, "turn": turn, "unbooked": tuple(skipped),
                    "phases_closed": tuple(phases.get(turn, ()))}
            if memo is not None:
                # Its answer is no longer the memo's: ``since`` must not prime from it. Also when it fails below
                # (a broken sheet is not memoised): the memo's older, valid answer would prime the next turn.
                memo.pop(key, None)
            if broken is not None:
                sheets[key] = Sheet(cells=None, error={"message": f"turn {broken}'s sheet could not be computed",
                                                       "field": None}, **base)
                history.append(None)
                tokens.append(0)
                continue
            earlier = tuple(reversed(history[-3:-1])) if len(history) > 1 else ()
            amounts = {c: v for c, (v, _) in lines.items()}
            try:
                # The amounts alone, and the rest of each line from its plan (``sheet_lines``): the same cells
                # as from ``compute_sheet``'s ``LineValue``s, without building those (a sheet in a fifth of the
                # CPU). The history and the memo hold the amounts, as the stored seeds do.
                computed = compute_sheet(amounts, previous, earlier=earlier, period_start=turn in period_starts,
                                         variants=variants, definition=defn, amounts_only=True)
            except RulesError as exc:
                sheets[key] = Sheet(cells=None, error={"message": str(exc), "field": exc.field}, **base)
                broken = turn
                history.append(None)
                tokens.append(0)
                continue
            history.append(computed)
            # A line has a recorded closing value only when a phase of the turn closed.
            cells = {}
            closing = closed_codes.get((turn, country))
            for d, formula, sources, entered, defaulted in sheet_lines(
                    amounts, previous, period_start=turn in period_starts, variants=variants, definition=defn):
                code = d.code
                value = computed[code]
                cells[code] = _cell(
                    code, d.name, d.sheet, d.kind, d.unit, value,
                    amounts[code] if entered and d.ducats_per_tick else None, formula, sources,
                    lines[code][1] if entered else (), defaulted,
                    d.alert_if_negative if d.alert_if_negative and value < 0 else None,
                    _at_close(closes.get((turn, country, code)), value) if closing else None,
                )
            sheets[key] = Sheet(cells=cells, **base)
            token = next(_tokens) if inputs_key is not None else 0
            tokens.append(token)
            if inputs_key is not None:
                memo[key] = (inputs_key, token, sheets[key], computed)
    return Budget(countries=countries, turns=last_turn, sheets=sheets, corrections_unapplied=tuple(unapplied),
                  position=position)


def _apply_corrections(entries: dict[int, _Entry], corrections: dict[int, tuple[int, Any]]
                       ) -> tuple[dict[int, _Entry], list[dict[str, Any]]]:
    """The entries with the latest correction of each applied (corrected ones are copies); those that do not fit."""
    unapplied = []
    out = dict(entries)
    for corrected, (pos, replacement) in corrections.items():
        entry = entries.get(corrected)
        if entry is None:
            continue  # a correction of some other event: not the budget's
        if replacement is None:
            out[corrected] = replace(entry, amount=None, events=entry.events + (pos,))
            continue
        problem = _bad_replacement(replacement)
        if problem:
            unapplied.append({"position": pos, "corrects": corrected, "reason": problem})
            continue
        out[corrected] = replace(entry, **replacement, events=entry.events + (pos,))
    return out, unapplied


def _bad_replacement(r: Any) -> str | None:
    if not isinstance(r, dict) or not r:
        return "the replacement of a treasury entry is an object with amount (and line, turn, country)"
    extra = set(r) - _CORRECTABLE
    if extra:
        return f"a treasury entry has no field(s) {sorted(extra)}"
    for k in ("amount", "turn"):
        if k in r and (isinstance(r[k], bool) or not isinstance(r[k], int)):
            return f"{k} must be a whole number"
    for k in ("line", "country"):
        if k in r and not isinstance(r[k], str):
            return f"{k} must be text"
    return None


def _unbooked(entry: _Entry, reason: str) -> dict[str, Any]:
    return {"positions": list(entry.events), "line": entry.line, "amount": entry.amount, "reason": reason}


def _at_close(recorded: dict[str, Any] | None, value: int) -> dict[str, Any] | None:
    if recorded is None:
        return None
    return {**recorded, "matches": recorded["value"] == value}


def sheet_json(s: Sheet) -> dict[str, Any]:
    """A sheet as JSON: every line with code, name, amount, entered or derived, sources."""
    lines = []
    for c in (s.cells or {}).values():
        lines.append({
            "code": c.code, "name": c.name, "sheet": c.sheet, "kind": c.kind, "unit": c.unit, "amount": c.value,
            "ticks": c.ticks, "formula": c.formula, "sources": list(c.sources), "events": list(c.events),
            "defaulted": c.defaulted, "alert": c.alert, "at_close": c.at_close,
        })
    return {"country": s.country, "turn": s.turn, "lines": lines, "error": s.error, "unbooked": list(s.unbooked),
            "phases_closed": list(s.phases_closed)}
