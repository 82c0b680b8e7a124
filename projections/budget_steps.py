"""The budget's inputs just before any position, for one audience, in a bounded number of additions.

The turn page shows, for a treasury entry, the ERS cells it changed: the budget
of the events before it, and the same with it (``words.budget_changes``).
Gathering every earlier event for each step costs the campaign's whole
history. A treasury entry changes only its own country's sheets (each
country's sheets read that country's entries and the events every country
shares: the campaign, the scenario, the turns, the phases closed), so this
keeps, per country, the list of those events in order, the inputs after every
``EVERY`` of them (snapshots, copied on use), and the memo of that country's
sheets: the inputs before position ``p`` are the nearest snapshot plus fewer
than ``EVERY`` additions, and only the sheets whose inputs changed are
computed. A correction may move an entry to another country's sheet: once one
is among the events, ``before`` answers None and the caller gathers every
event as before.

Faster still, and with nothing gathered (``projections.head.Reader.budget_changes``): a treasury entry of the
turn it was recorded in changes that country's sheets from its turn on, and
each sheet reads only the three sheets before it. Those three are taken from
what the budget view stored (``proj_budget``: the line amounts), when they are
the sheets as of the entry: no correction anywhere yet, no entry booked on that
country's earlier sheets after the entry (the view's lineage, ``Lineage``), and
none of their entries hidden from the caller. The turn's own events (read for
the page already) give the rest of the inputs, so a step costs three stored
sheets and one or two computed ones, in a fresh process too.
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
from collections.abc import Iterable
from typing import Any

import orjson

from ledger.economy.sheets import RELEVANT, Budget, Inputs, Memo, Sheet, compute, trim
from projections.records import Record
from projections.store import ViewDB

EVERY = 500
Event = list[Any]  # [type, position, trimmed fields], as budget_view.relevant_events gives them


def copy_inputs(inputs: Inputs) -> Inputs:
    """A copy that later additions to either leave the other unchanged (entries are never changed once made:
    dictionaries and their lists are copied, their entries shared)."""
    out = copy.copy(inputs)
    for f in dataclasses.fields(inputs):
        value = getattr(inputs, f.name)
        if isinstance(value, dict):
            value = copy.copy(value)  # keeps a defaultdict's factory
            for k, v in value.items():
                if isinstance(v, list):
                    value[k] = list(v)
        elif not isinstance(value, (str, int, tuple, type(None))):
            value = copy.deepcopy(value)  # the corrections' standing: empty unless a correction came
        setattr(out, f.name, value)
    return out


class Steps:
    """One audience's relevant events per country, with snapshots of their inputs and a memo of their sheets."""

    def __init__(self, revealed: Any = None):
        self.revealed = revealed
        self.position = 0  # the last event taken
        self.head = 0  # the position the events were read up to
        self.shared: list[Event] = []  # the events every country's sheets read, in order
        self.events: dict[str, list[Event]] = {}  # country -> its entries and the shared events, in order
        self.positions: dict[str, list[int]] = {}
        self.snapshots: dict[str, list[Inputs]] = {}  # country -> inputs after 0, EVERY, 2 * EVERY... events
        self.memos: dict[str, Memo] = {}
        self.first_correction: int | None = None

    def extend(self, events: list[Event], head: int) -> None:
        """Take the events after ``position`` (earlier ones are skipped), in order, read up to ``head``."""
        self.head = max(self.head, head)
        for e in events:
            kind, position, data = e
            if position <= self.position:
                continue
            self.position = position
            if kind == "TreasuryEntryRecorded":
                self._list(data["country"]).append(e)
                self.positions[data["country"]].append(position)
                continue
            if kind == "CorrectionRecorded" and self.first_correction is None:
                self.first_correction = position
            self.shared.append(e)
            for country, found in self.events.items():
                found.append(e)
                self.positions[country].append(position)

    def _list(self, country: str) -> list[Event]:
        if country not in self.events:
            self.events[country] = list(self.shared)
            self.positions[country] = [e[1] for e in self.shared]
            self.snapshots[country] = [Inputs()]
            self.memos[country] = {}
        return self.events[country]

    def before(self, country: str, position: int) -> Inputs | None:
        """``country``'s inputs from the events before ``position`` (a copy, the caller's to extend), with
        ``countries`` that country alone; None once a correction came before it."""
        if self.first_correction is not None and self.first_correction < position:
            return None
        found, positions, snapshots = self._list(country), self.positions[country], self.snapshots[country]
        n = bisect.bisect_left(positions, position)
        while len(snapshots) <= n // EVERY:  # the next snapshot: the previous one and EVERY events more
            made = copy_inputs(snapshots[-1])
            start = (len(snapshots) - 1) * EVERY
            for kind, p, data in found[start:start + EVERY]:
                made.add(kind, p, data)
            snapshots.append(made)
        inputs = copy_inputs(snapshots[n // EVERY])
        for kind, p, data in found[n // EVERY * EVERY:n]:
            inputs.add(kind, p, data)
        inputs.countries = (country,)
        return inputs

    def memo(self, country: str) -> Memo:
        """A copy of the country's memo (a step's sheets of its own turn are not kept: see ``keep``)."""
        return dict(self.memos[country])

    def keep(self, country: str, memo: Memo, turn: int) -> None:
        """Keep the sheets of turns before ``turn``: later events rarely change them, so other steps find them."""
        self.memos[country].update({k: v for k, v in memo.items() if k[1] < turn})


#: The sheets a sheet reads before its own (A1 is last turn's A33, the loans read two and three turns back).
READS_BACK = 3


@dataclasses.dataclass(frozen=True)
class Lineage:
    """What the budget view stored of one country's sheets at the view's position ``view``: per turn, the
    positions its entered lines come from (each booked entry, the scenario's treasury)."""

    view: int
    by_turn: dict[int, list[int]]

    def settled_before(self, turn: int, position: int) -> bool:
        """Whether no entry booked on a sheet before ``turn`` comes after ``position``: those sheets are then
        the same as of ``position`` as at the view's position (corrections aside: the caller checks)."""
        return all(max(found) <= position for t, found in self.by_turn.items() if t < turn)

    def first_turn_with(self, positions: Iterable[int]) -> int | None:
        """The first turn whose sheet books one of ``positions`` (entries hidden from a caller), None if none."""
        hidden = frozenset(positions)
        return min((t for t, found in self.by_turn.items() if not hidden.isdisjoint(found)), default=None)


def view_position(db: ViewDB, cur: Any, campaign: str) -> int | None:
    from projections import budget_view

    cur.execute(db.sql("SELECT position FROM {proj_docs} WHERE view = ? AND campaign = ?"), (budget_view.NAME, campaign))
    row = cur.fetchone()
    return int(row["position"]) if row else None


def lineage(db: ViewDB, cur: Any, campaign: str, country: str, view: int) -> Lineage:
    """The country's stored lineage (its entered lines with events): positions ascend within a line."""
    from projections import budget_view

    ph = db.ph
    cur.execute(f"SELECT turn, events FROM {db.t('proj_budget')} WHERE campaign = {ph} AND country = {ph} "
                f"AND {budget_view.ENTERED}", (campaign, country))  # its partial index
    by_turn: dict[int, list[int]] = {}
    for row in cur.fetchall():
        by_turn.setdefault(int(row["turn"]), []).extend(orjson.loads(row["events"]))
    return Lineage(view, {t: found for t, found in by_turn.items() if found})


def stored_seeds(db: ViewDB, cur: Any, campaign: str, country: str, turn: int) -> Memo | None:
    """The memo ``compute(..., since={country: turn})`` primes from: the stored amounts of the country's
    ``READS_BACK`` sheets before ``turn``; None when one is missing or could not be computed."""
    ph, first = db.ph, max(1, turn - READS_BACK)
    if first >= turn:
        return {}
    cur.execute(f"SELECT turn, sheet FROM {db.t('proj_budget_sheets')} WHERE campaign = {ph} AND country = {ph} "
                f"AND turn >= {ph} AND turn < {ph}", (campaign, country, first, turn))
    sheets = {int(r["turn"]): orjson.loads(r["sheet"]) for r in cur.fetchall()}
    if sorted(sheets) != list(range(first, turn)) or any(s.get("error") for s in sheets.values()):
        return None
    cur.execute(f"SELECT turn, line, amount FROM {db.t('proj_budget')} WHERE campaign = {ph} AND country = {ph} "
                f"AND turn >= {ph} AND turn < {ph}", (campaign, country, first, turn))
    amounts: dict[int, dict[str, int]] = {t: {} for t in sheets}
    for r in cur.fetchall():
        amounts[int(r["turn"])][r["line"]] = int(r["amount"])
    if any(not lines for lines in amounts.values()):
        return None
    # (inputs key, token, sheet, lines): a sheet's previous sheets are read as amounts (``compute_sheet`` takes
    # ints); no inputs key matches None, and the tokens only need to differ from 0 ("not memoised").
    return {(country, t): (None, -t, None, lines) for t, lines in amounts.items()}  # type: ignore[misc]


#: Relevant events after which a country's sheets are computed again from the first turn they touch
#: (``touched``): the others (a correction, a scenario, the campaign's creation) may change any sheet.
TOUCH_TYPES = frozenset({"TreasuryEntryRecorded", "TurnOpened", "PhaseClosed"})


def touched(records: Iterable[Record], countries: Iterable[str]) -> dict[str, int] | None:
    """Per country, the first turn whose sheet the relevant ``records`` change (an entry: its country's, from
    its turn; a turn opened or a phase closed: every country's, from that turn); the earlier sheets are the
    same without them (a sheet reads only the three before it). None when one may change any sheet."""
    countries = tuple(countries)
    first: dict[str, int] = {}
    for r in records:
        if r.type not in RELEVANT:
            continue
        if r.type not in TOUCH_TYPES:
            return None
        turn = r.data.get("turn")
        if type(turn) is not int:
            return None
        for country in (r.data.get("country"),) if r.type == "TreasuryEntryRecorded" else countries:
            first[country] = min(first.get(country, turn), turn)
    return first


def seeds_of(country: str, sheets: dict[int, Sheet | None]) -> Memo | None:
    """``stored_seeds`` from sheets at hand (turn -> sheet): None when one is missing or could not be computed."""
    if any(s is None or s.cells is None for s in sheets.values()):
        return None
    return {(country, t): (None, -t, None, {code: c.value for code, c in s.cells.items()})  # type: ignore[misc, union-attr]
            for t, s in sheets.items()}


def from_turn(country: str, first: int, seeds: Memo, records: Iterable[Record]) -> Budget:
    """``country``'s sheets from turn ``first`` on, primed with ``seeds`` (the ``READS_BACK`` sheets before it),
    computed from ``records``: the campaign's first event, its scenario and the relevant records of turn
    ``first`` on (earlier ones are harmless: those sheets are not computed)."""
    inputs = Inputs()
    for r in records:
        if r.type in RELEVANT:
            inputs.add(r.type, r.position, r.data)
    inputs.countries = (country,)
    return compute(inputs, memo=dict(seeds), since={country: first})


def turn_inputs(created: Record, scenario: Iterable[Record], records: Iterable[Record], country: str,
                before: int) -> Inputs:
    """The inputs a computation from a turn's sheets on reads: the campaign's settings (``created``), the
    scenario's treasuries, and the relevant ``records`` before position ``before`` (the turn's); the other
    countries left out."""
    inputs = Inputs()
    for r in (created, *scenario, *records):
        if r.type in RELEVANT and r.position < before:
            inputs.add(r.type, r.position, trim(r.type, r.data))
    inputs.countries = (country,)
    return inputs

