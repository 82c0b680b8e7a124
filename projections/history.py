"""A campaign's economic history as one caller may see it: the input of exports and charts.

``gather`` reads the campaign's stored rows once, decodes only the events the
budget and the victory view read, keeps those the caller may see
(``ledger.access.can_see``, the rule of every read path: a game master sees
everything; a player or an observer gets the budget and the tracks computed
from the events visible to them, as ``GET .../ers/{country}/{turn}`` and
``GET .../victory`` do), and returns the budget, the victory document with its
awards, and the hash of every event kept (the lineage columns name them).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import msgspec
import orjson

from ledger.access import ALL_SEEING, can_see
from ledger.application import Actor
from ledger.economy import sheets as budget_model
from projections import budget_steps, budget_view
from projections import victory as victory_model
from projections.records import Record, copy_doc, num, plain, type_of

#: The event types the victory document reads (projections/victory.py).
VICTORY_TYPES = frozenset({"ScenarioImported", "TurnOpened", "TurnClosed", "WarDeclared", "PeaceMade",
                           "RulingRecorded"})
READ = budget_model.RELEVANT | VICTORY_TYPES
#: A player's or an observer's part of a seeded history: who, the reveals, the countries whose sheets differ.
Audience = tuple[Actor, frozenset[int], frozenset[str]]


@dataclass(frozen=True)
class History:
    campaign: str  # the slug
    countries: tuple[str, ...]
    turns: int  # opened turns
    position: int  # the head the history was read at
    budget: budget_model.Budget
    victory: dict[str, Any]  # projections.victory document
    awards: list[dict[str, Any]]  # {position, effect, country, turn, points, reason}
    hashes: dict[int, str] = field(default_factory=dict)  # position -> event hash, for the events read
    # The treasury entries and their corrections, in order, as the caller sees them (the ``entries`` table):
    # {position, type, turn, country, line, amount, reason, actor, time, visibility, corrects, replacement}.
    entries: list[dict[str, Any]] = field(default_factory=list)
    name: str = ""  # the campaign's name, for titles people read ("" : the slug stands in)

    @property
    def title(self) -> str:
        return self.name or self.campaign


def replay_victory(records: list[Record]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The victory document and its awards (each with its event position), from records in order."""
    doc = victory_model.empty()
    awards: list[dict[str, Any]] = []
    for r in records:
        for a in victory_model.apply(doc, r):
            awards.append({"position": r.position, **a})
    return doc, awards


def from_records(campaign: str, countries: tuple[str, ...], turns: int, records: list[Record]) -> History:
    """The history of records already filtered for the caller (pure: what ``gather`` ends with)."""
    position = records[-1].position if records else 0
    doc, awards = replay_victory([r for r in records if r.type in VICTORY_TYPES])
    bud = budget_model.budget([r for r in records if r.type in budget_model.RELEVANT])
    hashes = {r.position: r.data.get("hash", "") for r in records}
    return History(campaign, countries, turns, position, bud, doc, awards, hashes, entry_log(records))


def entry_log(records: list[Record], out: list[dict[str, Any]] | None = None, entries: set[int] | None = None
              ) -> list[dict[str, Any]]:
    """The treasury entries and the corrections of them, in order (a correction of anything else is skipped);
    ``out`` and ``entries`` (the entries' positions): an earlier call's, to extend it with later records."""
    out = [] if out is None else out
    entries = set() if entries is None else entries
    for r in records:
        d = r.data
        if r.type == "TreasuryEntryRecorded":
            entries.add(r.position)
        elif not (r.type == "CorrectionRecorded" and d.get("corrects") in entries):
            continue
        out.append({"position": r.position, "type": r.type, "turn": d.get("turn", r.turn),
                    "country": d.get("country"), "line": d.get("line"), "amount": d.get("amount"),
                    "reason": d.get("reason", ""), "actor": (d.get("actor") or {}).get("id"),
                    "time": d.get("timestamp"), "visibility": d.get("visibility") or {},
                    "corrects": d.get("corrects"), "replacement": d.get("replacement")})
    return out


def kept(ledger: Any, cid: UUID, actor: Actor, revealed: frozenset[int], after: int, upto: int,
         progress: Callable[[int], None] | None = None) -> Iterator[Record]:
    """The records at ``(after, upto]`` the history reads (``READ``) that ``actor`` may see, in order; only
    those are decoded. ``progress(n)`` is told of every thousand rows read."""
    sees_all = actor.role in ALL_SEEING
    pending = 0
    while after < upto:
        page = ledger.recorder.select_events(cid, gt=after or None, lte=upto, limit=5000)
        for s in page:
            pending += 1
            if progress is not None and pending == 1000:
                progress(pending)
                pending = 0
            kind = type_of(s.topic)
            if kind not in READ:
                continue
            data = orjson.loads(s.state)
            position = s.originator_version
            if sees_all or can_see(actor, {"visibility": data.get("visibility"), "position": position}, revealed):
                yield Record(str(cid), position, kind, data)
        if len(page) < 5000:
            break
        after = page[-1].originator_version
    if progress is not None and pending:
        progress(pending)


class Gathered:
    """A history kept for one audience and extended with the records after it (``add``): the budget's inputs
    with the memo of its sheets (only the sheets whose inputs changed are computed again), the victory
    document folded forward, the hashes and the entry log. ``history()`` equals ``from_records`` of every
    record added."""

    def __init__(self, revealed: frozenset[int] = frozenset()):
        self.revealed = revealed
        self.position = 0  # the head the records were read up to
        self.inputs = budget_model.Inputs()
        self.memo: budget_model.Memo = {}
        self.victory = victory_model.empty()
        self.awards: list[dict[str, Any]] = []
        self.hashes: dict[int, str] = {}
        self.entries: list[dict[str, Any]] = []
        self._entry_positions: set[int] = set()

    def add(self, records: list[Record], upto: int) -> None:
        for r in records:
            if r.type in VICTORY_TYPES:
                self.awards.extend({"position": r.position, **a} for a in victory_model.apply(self.victory, r))
            if r.type in budget_model.RELEVANT:
                self.inputs.add(r.type, r.position, r.data)
            self.hashes[r.position] = r.data.get("hash", "")
        entry_log(records, self.entries, self._entry_positions)
        self.position = max(self.position, upto)

    def history(self, campaign: str, countries: tuple[str, ...], turns: int, position: int, name: str = ""
                ) -> History:
        bud = budget_model.compute(self.inputs, memo=self.memo)
        # Copies of what later ``add`` calls extend in place: a History handed out does not change.
        return History(campaign, countries, turns, position, bud, copy_doc(self.victory, victory_model.APPEND_ONLY),
                       list(self.awards), dict(self.hashes), list(self.entries), name)


def gather(ledger: Any, cid: UUID, actor: Actor, progress: Callable[[int], None] | None = None) -> History:
    """Read the campaign once; ``progress(n)`` is told of every page of ``n`` rows read."""
    state = ledger.campaign(cid)  # CampaignNotFound for an unknown campaign
    # Rows written after the state was read are not read: the history stays at one head.
    records = list(kept(ledger, cid, actor, frozenset(state.revealed), 0, state.version, progress))
    history = from_records(state.slug, tuple(state.countries), state.turn, records)
    return History(history.campaign, history.countries, history.turns, state.version, history.budget,
                   history.victory, history.awards, history.hashes, history.entries, state.name)


#: The events whose hashes and fields the entries table and the ERS lineage read (``seeded``).
ENTRY_TYPES = frozenset({"ScenarioImported", "TreasuryEntryRecorded", "CorrectionRecorded"})


def _stored_positions(cur: Any, db: Any, cid: UUID) -> tuple[int | None, int | None]:
    cur.execute(db.sql("SELECT view, position FROM {proj_docs} WHERE campaign = ? AND view IN (?, ?)"),
                (str(cid), budget_view.NAME, victory_model.NAME))
    found = {r["view"]: int(r["position"]) for r in cur.fetchall()}
    return found.get(budget_view.NAME), found.get(victory_model.NAME)


def _sheets(rest: list[Any], cells: dict[tuple[str, int], Any]) -> dict[tuple[str, int], budget_model.Sheet]:
    """The budget view's rows as the budget's objects: ``rest`` its ``proj_budget_sheets`` rows, ``cells`` each
    sheet's ``proj_budget.detail`` texts in order, as one JSON array (``_cell_arrays``)."""
    out = {}
    for r in rest:
        key, sheet = (r["country"], int(r["turn"])), orjson.loads(r["sheet"])
        out[key] = budget_model.Sheet(key[0], key[1], None if sheet["error"] is not None else _cells(cells.get(key)),
                                      sheet["error"], tuple(sheet["unbooked"]), tuple(sheet["phases_closed"]))
    return out


#: A sheet's stored lines decoded straight into ``Cell``s (msgspec sets a dataclass's fields without its
#: ``__init__``): a country's ERS on the 300k campaign is ~28,000 lines, and a dict per line decoded, then a
#: frozen dataclass built from it, was most of a first ERS export's CPU.
_CELLS = msgspec.json.Decoder(list[budget_model.Cell])


def _cells(array: str | None) -> dict[str, budget_model.Cell]:
    """``{code: Cell}`` of a sheet's lines (``sheet_json``'s, as the view stores each line's ``detail``), given as
    one JSON array. The one key named otherwise is renamed in the text: JSON strings cannot hold an unescaped
    quote, so ``"amount":`` is that key of each line (a cell's ``at_close`` has no such key)."""
    if not array:
        return {}
    try:
        found = _CELLS.decode(array.replace('"amount":', '"value":'))
    except msgspec.DecodeError:  # a line stored otherwise than ``sheet_json`` writes it: the dicts read
        found = [budget_model.Cell(d["code"], d["name"], d["sheet"], d["kind"], d["unit"], d["amount"], d["ticks"],
                                   d["formula"], tuple(d["sources"]), tuple(d["events"]), d["defaulted"],
                                   d["alert"], d["at_close"]) for d in orjson.loads(array)]
    return {c.code: c for c in found}


def _cell_arrays(cur: Any, db: Any, campaign: str, country: str, only: str, args: tuple[Any, ...]
                 ) -> dict[tuple[str, int], str]:
    """Each sheet's ``proj_budget.detail`` texts of one country (``only``: a condition on ``turn``), in their
    order, joined into one JSON array per sheet: PostgreSQL joins them (a row per sheet, not per line: ~300
    rows, not ~28,000, for a country's ERS on the 300k campaign); SQLite's rows are joined here."""
    table = db.t("proj_budget")
    if db.postgres:
        cur.execute(f"SELECT turn, '[' || string_agg(detail, ',' ORDER BY seq) || ']' AS cells FROM {table} "
                    f"WHERE campaign = %s AND country = %s{only} GROUP BY turn", (campaign, country, *args))
        return {(country, int(r["turn"])): r["cells"] for r in cur.fetchall()}
    cur.execute(f"SELECT turn, detail FROM {table} WHERE campaign = ? AND country = ?{only} ORDER BY turn, seq",
                (campaign, country, *args))
    by_turn: dict[int, list[str]] = {}
    for r in cur.fetchall():
        by_turn.setdefault(int(r["turn"]), []).append(r["detail"])
    return {(country, turn): "[" + ",".join(texts) + "]" for turn, texts in by_turn.items()}


def _events(cur: Any, db: Any, cid: UUID, positions: list[int]) -> dict[int, tuple[str, bytes]]:
    """(type, stored bytes) of the campaign's events at these positions, a bounded IN list per query."""
    key = cid if db.postgres else cid.hex
    table = db.t(db.events_table) if db.postgres else db.events_table
    out: dict[int, tuple[str, bytes]] = {}
    for where, args in _positions_in(db, positions, 500):
        cur.execute(f"SELECT originator_version AS v, topic, state FROM {table} WHERE originator_id = {db.ph} "
                    f"AND originator_version {where}", (key, *args))
        out.update({int(r["v"]): (type_of(r["topic"]), bytes(r["state"])) for r in cur.fetchall()})
    return out


def _positions_in(db: Any, positions: list[int], size: int) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """(condition, arguments) on a position column for these positions: PostgreSQL one array (``= ANY``: a
    statement psycopg parses in no time, where 2,000 placeholders cost it 6 ms each, 80 ms of a first ERS
    export of 260 turns); SQLite a bounded IN list per statement."""
    if db.postgres:
        if positions:
            yield "= ANY(%s)", (list(positions),)
        return
    for i in range(0, len(positions), size):
        chunk = positions[i:i + size]
        yield f"IN ({', '.join([db.ph] * len(chunk))})", tuple(chunk)


def _hashes(cur: Any, db: Any, cid: UUID, positions: list[int]) -> dict[int, str]:
    """The hashes of the campaign's events at these positions: the store takes each out of its stored JSON, so
    neither the events (a kilobyte each) travel nor Python decodes them (a victory export names ~40,000 on the
    300k campaign); a bounded IN list per query."""
    key = cid if db.postgres else cid.hex
    table = db.t(db.events_table) if db.postgres else db.events_table
    hash_of = "convert_from(state, 'UTF8')::json->>'hash'" if db.postgres else "json_extract(CAST(state AS TEXT), '$.hash')"
    out: dict[int, str] = {}
    for where, args in _positions_in(db, positions, 2000):
        cur.execute(f"SELECT originator_version AS v, {hash_of} AS h FROM {table} WHERE originator_id = {db.ph} "
                    f"AND originator_version {where}", (key, *args))
        out.update({int(r["v"]): r["h"] or "" for r in cur.fetchall()})
    return out


class _Stored:
    """What a seeded history reads when first asked for it, at the views' position ``position``: a country's
    sheets (with the hashes of the events they name), the entries, the hashes of the awards and tracks. A
    country's ERS export reads that country's rows only. Events never change; the view's rows are read only
    while the view is still at ``position`` (else the budget of the events up to it is computed instead)."""

    def __init__(self, ledger: Any, db: Any, cid: UUID, position: int, named: set[int],
                 audience: Audience | None = None, hashes: dict[int, str] | None = None,
                 relevant: Callable[[int], list[Record] | None] | None = None, treasury: Any = None):
        self.ledger, self.db, self.cid, self.position = ledger, db, cid, position
        self.treasury = treasury  # the campaign state's budget log (ledger/economy/treasury_log.py), if any
        self.relevant = relevant  # the caller's relevant records up to a position, when it has them at hand
        self.hashed: set[str] = set()  # the countries whose computed sheets' hashes are read
        # A player's or an observer's: who, the reveals, and the countries whose sheets an entry hidden from them
        # changes (those are computed from the events they may see; the others are the view's).
        self.actor, self.revealed, self.affected = audience or (None, frozenset(), frozenset())
        self.lock = threading.RLock()  # the routes run in a thread pool
        self.sheets: dict[tuple[str, int], budget_model.Sheet] = {}
        self.countries: set[str] = set()  # those whose sheets are read
        self.every: budget_model.Budget | None = None  # the fallback: computed from the events
        self.by_budget: dict[str, budget_model.Budget] = {}  # an affected country's sheets, computed (``_computed``)
        self.found: list[Record] | None = None  # the relevant records the audience may see, once read
        self.inputs: budget_model.Inputs | None = None  # their budget's inputs, for ``_computed``
        self.hashes: dict[int, str] = {} if hashes is None else hashes
        self.named = named  # the positions the victory rows name (awards, stability and inflation changes)
        self.entries: list[dict[str, Any]] | None = None
        self.by_country: dict[str, list[dict[str, Any]]] = {}  # ``country_entry_log``'s
        self.spans: dict[str, set[int]] = {}  # per country not read whole, the turns whose sheets are read

    def sheet(self, country: str, turn: int) -> budget_model.Sheet | None:
        with self.lock:
            computed = self.every
            if computed is None and country in self.affected:
                computed = self._computed(country)
            if computed is None and country not in self.countries and turn not in self.spans.get(country, ()):
                self._country(country)
                computed = self.every
            if computed is not None:
                if country not in self.hashed:  # the hashes its lineage names, of this country's sheets only
                    self.hashed.add(country)
                    self._hashes({p for (c, _), s in computed.sheets.items() if c == country
                                  for cell in (s.cells or {}).values() for p in cell.events})
                return computed.sheet(country, turn)
            return self.sheets.get((country, turn))

    def span(self, country: str, turns: range) -> None:
        """Read a country's sheets of these turns only, unless they are read or computed already: an export of
        a turn range reads those rows and the hashes they name, not the country's whole ERS (~300 sheets and
        ~8,000 hashes on the 300k campaign: most of a first ``ers.csv?turns=N..``)."""
        with self.lock:
            if self.every is None and country not in self.affected and country not in self.countries:
                wanted = [t for t in turns if t not in self.spans.get(country, ())]
                if wanted:
                    self._country(country, (wanted[0], wanted[-1]))

    def _country(self, country: str, turns: tuple[int, int] | None = None) -> None:
        """A country's sheets (those of the turns ``first..last`` only, with ``turns``) from the view."""
        db, campaign = self.db, str(self.cid)
        only, args = (f" AND turn BETWEEN {db.ph} AND {db.ph}", turns) if turns is not None else ("", ())
        with db.reading() as cur:
            now = _stored_positions(cur, db, self.cid)[0]
            cur.execute(f"SELECT country, turn, sheet FROM {db.t('proj_budget_sheets')} WHERE campaign = {db.ph} "
                        f"AND country = {db.ph}{only}", (campaign, country, *args))
            rest = cur.fetchall()
            lines = _cell_arrays(cur, db, campaign, country, only, args)
            moved = now != self.position or _stored_positions(cur, db, self.cid)[0] != self.position
        if moved:  # the runner went on since: its rows may hold later events
            self._compute()
            return
        sheets = _sheets(rest, lines)
        self.sheets.update(sheets)
        if turns is None:
            self.countries.add(country)
        else:
            self.spans.setdefault(country, set()).update(range(turns[0], turns[1] + 1))
        self._hashes({p for s in sheets.values() for c in (s.cells or {}).values() for p in c.events})

    def _visible(self, records: list[Record]) -> list[Record]:
        if self.actor is None:
            return records
        return [r for r in records if can_see(self.actor, {"visibility": r.data.get("visibility"),
                                                           "position": r.position}, self.revealed)]

    def _records(self) -> list[Record]:
        """The relevant records up to ``position`` the audience may see (as ``gather``), read once: the caller's
        (``relevant``), else read from the store."""
        if self.found is None:
            found = self.relevant(self.position) if self.relevant is not None else None
            if found is None:
                with self.db.reading() as cur:
                    found = self._visible(self.db.read_campaign(cur, str(self.cid), self.position,
                                                                types=budget_model.RELEVANT))
            self.found = found
        return self.found

    def _compute(self) -> None:
        """Every sheet from the events up to ``position`` the audience may see."""
        self.every = budget_model.budget(self._records())

    def _computed(self, country: str) -> budget_model.Budget:
        """An affected country's sheets alone from the events the audience may see (a sheet reads its own
        country's entries and the events every country shares: the same sheets as ``_compute``'s), kept: an
        export of one other country computes its ~300 sheets, not the eight countries' 2,400."""
        found = self.by_budget.get(country)
        if found is None:
            if self.inputs is None:  # gathered once for every affected country (``budget(..., countries=...)``'s)
                self.inputs = budget_model.Inputs()
                for r in self._records():
                    self.inputs.add(r.type, r.position, r.data)
            found = self.by_budget[country] = budget_model.compute(self.inputs, memo={}, since={country: 1})
        return found

    def _hashes(self, positions: set[int]) -> None:
        missing = sorted(positions - self.hashes.keys())
        if missing:
            with self.db.reading() as cur:
                self.hashes.update(_hashes(cur, self.db, self.cid, missing))

    def fetch(self, positions: Iterable[int]) -> None:
        """Read the hashes of these positions now, in one go: a table of one country names a few thousand of
        the tens of thousands of positions the victory rows name (``named``, read whole on a miss in ``hash``)."""
        with self.lock:
            self._hashes(set(positions))

    def hash(self, position: int, default: str) -> str:
        with self.lock:
            if position not in self.hashes and position in self.named:
                self._hashes(self.named)
            return self.hashes.get(position, default)

    def entry_log(self) -> list[dict[str, Any]]:
        with self.lock:
            if self.entries is None:
                with self.db.reading() as cur:
                    records = self._visible(self.db.read_campaign(cur, str(self.cid), self.position,
                                                                  types=ENTRY_TYPES))
                self.hashes.update((r.position, r.data.get("hash", "")) for r in records)
                self.entries = entry_log(records)
            return self.entries

    def country_entry_log(self, country: str) -> list[dict[str, Any]]:
        """What ``export.entry_rows`` of one country reads of ``entry_log``: the country's entries, every
        correction and what each corrects, in order (the same rows come out of it). Read by position from the
        budget log's (``TreasuryLog.entry_positions``): an eighth of the campaign's entries on the 300k
        campaign, not all of them (0.6 s of a first entries.csv). The whole log when there is no budget log."""
        with self.lock:
            if self.entries is not None or self.treasury is None:
                return self.entry_log()
            found = self.by_country.get(country)
            if found is None:
                positions = [p for p in self.treasury.entry_positions(country) if p <= self.position]
                with self.db.reading() as cur:
                    records = self._visible(self.db.read_at(cur, str(self.cid), positions))
                self.hashes.update((r.position, r.data.get("hash", "")) for r in records)
                found = self.by_country[country] = entry_log(records)
            return found


class StoredBudget(budget_model.Budget):
    """A seeded history's budget: ``sheet`` reads a country's sheets from the view when first asked (``span``:
    those of some turns only)."""

    def sheet(self, country: str, turn: int) -> budget_model.Sheet | None:
        return self._stored.sheet(country, turn)  # type: ignore[attr-defined]

    def span(self, country: str, turns: range) -> None:
        self._stored.span(country, turns)  # type: ignore[attr-defined]

    @property
    def affected(self) -> frozenset[str]:
        """The countries whose sheets are computed from the events the audience may see, not read."""
        return self._stored.affected  # type: ignore[attr-defined]


class StoredHashes(Mapping[int, str]):
    """A seeded history's hashes: those of the events its rows name, read with the rows that name them."""

    def __init__(self, stored: _Stored):
        self._stored = stored

    def get(self, position: int, default: Any = None) -> Any:  # type: ignore[override]
        return self._stored.hash(position, default)

    def fetch(self, positions: Iterable[int]) -> None:
        self._stored.fetch(positions)

    def known(self) -> Mapping[int, str]:
        """The hashes read so far (only added to: events never change), to look up without a call each."""
        return self._stored.hashes

    def __getitem__(self, position: int) -> str:
        found = self._stored.hash(position, None)
        if found is None:
            raise KeyError(position)
        return found

    def __iter__(self) -> Iterator[int]:
        return iter(dict(self._stored.hashes))

    def __len__(self) -> int:
        return len(self._stored.hashes)


class StoredEntries(Sequence[dict[str, Any]]):
    """A seeded history's entries and corrections, read from the store when first asked for."""

    def __init__(self, stored: _Stored):
        self._stored = stored

    def __getitem__(self, i: Any) -> Any:
        return self._stored.entry_log()[i]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._stored.entry_log())

    def __len__(self) -> int:
        return len(self._stored.entry_log())

    def of(self, country: str) -> list[dict[str, Any]]:
        return self._stored.country_entry_log(country)


def seeded(ledger: Any, db: Any, cid: UUID, state: Any, audience: Audience | None = None,
           hashes: dict[int, str] | None = None, behind: bool = False,
           relevant: Callable[[int], list[Record] | None] | None = None) -> History | None:
    """A game master's history at ``state.version`` from what the views store, or None when they cannot give
    it exactly (their budget and victory documents not at one position ``p`` at or before the head, or an event
    the history reads in ``(p, head]``): ``gather`` then. The victory document and its awards are the victory
    view's; a country's sheets are the budget view's rows, read when first asked for (``_Stored``); the
    treasury entries, their corrections and the scenario (the entries table, the lineage's hashes) are read
    from the store when asked for. Never the campaign's rulings and moves (most of its history).

    ``audience``: a player's or an observer's (actor, reveals, affected countries), for whom the caller has
    checked that the victory view is theirs too (no event the victory reads hidden from them:
    ``Reader.shared_until``) and that the only relevant events hidden from them are treasury entries, of the
    ``affected`` countries: their sheets are computed from what they may see, the others are the view's. With
    a correction anywhere (it may move an entry between countries): None. ``hashes``: those an earlier seeded
    history of the same audience read (events never change), filled in place. ``relevant(p)``: the
    audience's relevant records at positions 1..p, when the caller has them at hand (None: read). ``behind``: the views may not
    have reached an event the history reads: the history is then theirs, at their position ``p``
    (``History.position``), for the caller to ``extend`` with the records after it."""
    head, cid_text = state.version, str(cid)
    with db.reading() as cur:
        position, victory_at = _stored_positions(cur, db, cid)
        if position is None or position != victory_at or position > head:
            return None
        cur.execute(db.sql("SELECT doc FROM {proj_docs} WHERE view = ? AND campaign = ?"),
                    (victory_model.NAME, cid_text))
        raw = bytes(cur.fetchone()["doc"])
        hash_of = "hash" if db.award_hashes else "NULL AS hash"  # an older release's table: none stored
        cur.execute(db.sql(f"SELECT position, effect, country, turn, points, reason, {hash_of} FROM {{proj_awards}} "
                           "WHERE campaign = ? ORDER BY position, effect"), (cid_text,))
        rows = cur.fetchall()
        if _stored_positions(cur, db, cid) != (position, position):  # the runner wrote meanwhile: torn
            return None
        stored = orjson.loads(raw)
        # A standing correction of anything but a treasury entry (a ruling's): the victory view folds it in,
        # the export's history does not. Corrections are few: their targets' types are read, not the history.
        if audience is not None and (stored.get("corrections") or stored.get("correction_log")):
            return None
        fixed = sorted(int(k) for k in stored.get("corrections") or {})
        if any(kind != "TreasuryEntryRecorded" for kind, _ in _events(cur, db, cid, fixed).values()):
            return None
    if not behind and any(True for _ in kept(ledger, cid, Actor("history", "gm"), frozenset(), position, head)):
        return None  # the views have not read an event the history reads
    # The view's own bookkeeping (the corrections it folds) is no part of the history's document.
    doc = {k: stored[k] for k in victory_model.empty() if k in stored}
    awards = [{"position": int(r["position"]), "effect": int(r["effect"]), "country": r["country"],
               "turn": r["turn"], "points": _points(r["points"]), "reason": r["reason"], "hash": r["hash"]}
              for r in rows]
    named = {a["position"] for a in awards} | {e["position"] for e in doc["stability_log"]} \
        | {e["position"] for e in doc["inflation_log"]}
    source = _Stored(ledger, db, cid, position, named, audience, hashes, relevant, getattr(state, "treasury", None))
    bud = StoredBudget(tuple(state.countries), state.turn, {}, (), position)
    object.__setattr__(bud, "_stored", source)
    return History(state.slug, tuple(state.countries), state.turn, position if behind else head, bud, doc, awards,
                   StoredHashes(source), StoredEntries(source), state.name)  # type: ignore[arg-type]


def _points(text: str) -> int | str:
    """``plain(num(text))`` of an award's stored points: most are whole numbers, read as such without a Fraction
    (a first export reads every award of the campaign: ~4,000 on the 300k campaign)."""
    try:
        return int(text)
    except ValueError:
        return plain(num(text))


def entry_countries(db: Any, cid: UUID, positions: list[int]) -> dict[int, Any]:
    """The country of each treasury entry at these positions (events never change: a caller may keep them)."""
    with db.reading() as cur:
        found = _events(cur, db, cid, positions)
    return {p: orjson.loads(state).get("country") for p, (_, state) in found.items()}


# --------------------------------------------------------------------------- a history extended with the tail

#: Records a tail may hold: the events appended since a seeded history was read, that the history reads.
EXTEND_TYPES = frozenset({"TreasuryEntryRecorded", "TurnOpened", "PhaseClosed"}) | (VICTORY_TYPES - {"ScenarioImported"})


class _Tail:
    """What ``TailBudget`` computes when first asked: per country touched by the tail, its sheets from the first
    turn the tail touches (``since``), primed with the base's three sheets before it, from the relevant records
    of that turn on (``turn_records(turn)``: the caller's, None when too many); or, when those cannot be had
    (a base sheet before it failed, too many records), from every relevant record the caller may see
    (``every()``)."""

    def __init__(self, base: budget_model.Budget, since: dict[str, int],
                 turn_records: Callable[[int], list[Record] | None], every: Callable[[], list[Record]]):
        self.base, self.since, self.turn_records, self.every = base, since, turn_records, every
        self.lock = threading.Lock()  # the routes run in a thread pool
        self.budgets: dict[str, budget_model.Budget] = {}

    def sheet(self, country: str, turn: int) -> budget_model.Sheet | None:
        first = self.since.get(country)
        if first is None or turn < first:
            return self.base.sheet(country, turn)
        with self.lock:
            if country not in self.budgets:
                self.budgets[country] = self._compute(country, first)
            return self.budgets[country].sheet(country, turn)

    def _compute(self, country: str, first: int) -> budget_model.Budget:
        back = range(max(1, first - budget_steps.READS_BACK), first)
        seeds = budget_steps.seeds_of(country, {t: self.base.sheet(country, t) for t in back})
        records = self.turn_records(first) if seeds is not None else None
        if seeds is None or records is None:
            return budget_model.budget(self.every(), countries=[country])
        return budget_steps.from_turn(country, first, seeds, records)


class TailBudget(budget_model.Budget):
    """A budget at the head from an earlier one (a seeded history's) and the records after it: the sheets the
    tail touches computed again (``_Tail``), the others the earlier budget's."""

    def sheet(self, country: str, turn: int) -> budget_model.Sheet | None:
        return self._tail.sheet(country, turn)  # type: ignore[attr-defined]


class _Overlay(Mapping[int, str]):
    """The hashes of a history's tail, then its base's."""

    def __init__(self, tail: dict[int, str], base: Mapping[int, str]):
        self._tail, self._base = tail, base

    def get(self, position: int, default: Any = None) -> Any:  # type: ignore[override]
        found = self._tail.get(position)
        return found if found is not None else self._base.get(position, default)

    def fetch(self, positions: Iterable[int]) -> None:
        fetch_hashes(self._base, [p for p in positions if p not in self._tail])

    def __getitem__(self, position: int) -> str:
        found = self.get(position)
        if found is None:
            raise KeyError(position)
        return found

    def __iter__(self) -> Iterator[int]:
        return iter({**dict.fromkeys(self._base), **dict.fromkeys(self._tail)})

    def __len__(self) -> int:
        return len(set(self._base) | set(self._tail))


class _Chained(Sequence[dict[str, Any]]):
    """A history's base entries, then its tail's."""

    def __init__(self, base: Sequence[dict[str, Any]], tail: list[dict[str, Any]]):
        self._base, self._tail = base, tail

    def _all(self) -> list[dict[str, Any]]:
        return [*self._base, *self._tail]

    def __getitem__(self, i: Any) -> Any:
        return self._all()[i]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        yield from self._base
        yield from self._tail

    def __len__(self) -> int:
        return len(self._base) + len(self._tail)

    def of(self, country: str) -> list[dict[str, Any]]:
        return [*entries_of(self._base, country), *self._tail]


def fetch_sheets(budget: budget_model.Budget, country: str, turns: range) -> None:
    """Have a history's budget read a country's sheets of these turns at once where it reads them from the
    store, and no others yet (an export of a turn range); a budget computed or read already holds them."""
    if isinstance(budget, StoredBudget):
        budget.span(country, turns)
    elif isinstance(budget, TailBudget):
        tail = budget._tail  # type: ignore[attr-defined]
        first = tail.since.get(country)  # from it on computed again, from the base's sheets of the turns before
        start = turns.start if first is None else max(1, min(turns.start, first - budget_steps.READS_BACK))
        fetch_sheets(tail.base, country, range(start, turns.stop))


def fetch_hashes(hashes: Mapping[int, str], positions: Iterable[int]) -> None:
    """Have a history's ``hashes`` read those of these positions at once where it reads them from the store
    (a dict holds them all already)."""
    if isinstance(hashes, (StoredHashes, _Overlay)):
        hashes.fetch(positions)


def entries_of(entries: Sequence[dict[str, Any]], country: str | None) -> Sequence[dict[str, Any]]:
    """A history's ``entries``, or, for one country, those its entry table reads (the country's entries, the
    corrections and what they correct: ``StoredEntries.of``) when the history reads them from the store."""
    if country is not None and isinstance(entries, (StoredEntries, _Chained)):
        return entries.of(country)
    return entries


def extend(base: History, tail: list[Record], state: Any, turn_records: Callable[[int], list[Record] | None],
           every: Callable[[], list[Record]]) -> History | None:
    """``base`` (a seeded history, the views' as of ``base.position``) at the head ``state.version``: ``tail``
    is the records after it that the history reads, as the caller may see them (``kept``), in order. The
    victory document folds them, the entries and hashes take theirs; a country's sheets from the first turn
    its tail entries are for (every country's from a turn opened or a phase closed in the tail) are computed
    again from the three sheets before it and that turn's records on (``turn_records``), when first asked
    for. So a live campaign's export reads its turn, not its history, after an append. None when the tail
    holds what that does not cover (a correction, a scenario): the caller gathers the history."""
    since = budget_steps.touched(tail, state.countries) if all(r.type in EXTEND_TYPES for r in tail) else None
    if since is None:
        return None
    bud = TailBudget(tuple(state.countries), state.turn, {}, (), state.version)
    object.__setattr__(bud, "_tail", _Tail(base.budget, since, turn_records, every))
    victory, awards = base.victory, base.awards
    if any(r.type in VICTORY_TYPES for r in tail):
        victory, awards = copy_doc(base.victory, victory_model.APPEND_ONLY), list(base.awards)
        for r in tail:
            if r.type in VICTORY_TYPES:
                awards.extend({"position": r.position, **a} for a in victory_model.apply(victory, r))
    hashes = _Overlay({r.position: r.data.get("hash", "") for r in tail}, base.hashes)
    return History(state.slug, tuple(state.countries), state.turn, state.version, bud, victory, awards,
                   hashes, _Chained(base.entries, entry_log(tail)), state.name)  # type: ignore[arg-type]
