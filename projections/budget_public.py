"""The ERS as everyone sees it, stored per sheet: a player's first read of another country's sheet computes one.

A player or an observer must not learn from hidden treasury entries, so their
sheet of a country is computed from the events they may see; a sheet reads
the three before it (A1 is last turn's A33, loans read two and three back),
so computed on demand it costs the country's whole history (190 ms of CPU on
the 300,000-event campaign). What differs from the game master's sheets is
the entries hidden from the reader. With the campaign's usual visibilities
(an entry public, or its own country's) every reader who is not the
country's own player sees exactly what an observer sees: the public events
and the hidden ones revealed since (``VisibilityRevealed``,
``SheetsPublished``). So one class of sheets per country is stored, not one
per audience: ``proj_budget_public`` holds per (campaign, country, turn) the
amounts of that sheet as everyone sees it and the events it takes as its
own (the country's visible entries for that turn, the turn's closed phases,
turn 1's treasury). A read primes ``compute`` with the three stored amounts
before the turn asked and computes that one sheet from its own events: the
same function on the same inputs as the sheet from every event the reader
may see (tests/integration/test_budget_public.py holds them equal).

The document (``proj_docs``) says who may not use it: per country, the
players named in a hidden event of its sheets (``named``; ``"*"``: in a
hidden event of every country's sheets, a turn or a phase), and whether a
correction came (``corrected``: a correction may move an entry between
countries; those campaigns are read as before). The fold keeps amounts only
(``compute_sheet(amounts_only=True)``): a rebuild pays about a tenth of the
game master's budget for it.

Two more readers use what is stored: a turn page's step at another country's
entry primes that entry's changes with the three stored amounts before its
turn (``stored_seeds``, ``Reader._public_seeds``), and a player's or an
observer's ERS export takes from the document which countries' sheets may
book an entry hidden from them (``Reader._affected_by_hidden``).
"""

from __future__ import annotations

from collections import defaultdict
from hashlib import blake2b
from typing import Any

import orjson

from ledger.economy.sheets import RELEVANT, SET_UNITS, Inputs, Memo, Sheet, compute
from ledger.economy.sheets import trim as sheets_trim
from ledger.rules.core import RulesError
from ledger.rules.eu.ers import compute_sheet, ers_definition
from ledger.store.roles import have_tables
from projections.records import Record
from projections.store import ViewDB

NAME = "budget_public"
TABLE = "proj_budget_public"
#: Events that make hidden ones public: the fold is gathered again (rare: a published turn).
REVEALS = frozenset({"VisibilityRevealed", "SheetsPublished"})
READS = RELEVANT | REVEALS
#: Events after which the stored sheets are not the reader's (a correction may move an entry to another
#: country; the campaign and its scenario set every sheet): a reader of a tail holding one reads as before.
UNSETTLING = frozenset({"CorrectionRecorded", "CampaignCreated", "ScenarioImported"}) | REVEALS


def public(visibility: Any) -> bool:
    return not visibility or visibility.get("scope", "public") == "public"


def named(visibility: Any) -> list[str]:
    """The players a hidden event is shown to (a GM-only one: none)."""
    return list(visibility.get("countries") or ()) if visibility.get("scope") == "countries" else []


def revealed_by(kind: str, data: dict[str, Any]) -> list[int]:
    return [data["revealed"]] if kind == "VisibilityRevealed" else list(data.get("positions") or ())


class Fold:
    """One campaign's budget inputs as everyone sees them, each country's sheet amounts, and who sees more."""

    def __init__(self) -> None:
        self.inputs = Inputs()
        self.hidden: set[int] = set()  # relevant events not public (a reveal of one gathers the fold again)
        self.revealed: set[int] = set()
        self.named: dict[str, set[str]] = defaultdict(set)
        # Countries whose own player does not see every event of their sheets ("*": a hidden turn or phase).
        self.unseen: set[str] = set()
        self.corrected = False
        self.phases: dict[int, list[list[Any]]] = defaultdict(list)  # turn -> its visible PhaseClosed events
        self.amounts: dict[str, list[dict[str, int] | None]] = {}  # country -> per turn - 1 (None: not computed)
        self.digests: dict[tuple[str, int], bytes] = {}  # per sheet, the digest of its stored text
        self.dirty: dict[str, int] | None = None  # country -> first turn to compute again; None: every sheet

    def add(self, kind: str, position: int, data: dict[str, Any], visibility: Any) -> bool:
        """Take one event; False when it reveals a hidden relevant event (the caller gathers the fold again)."""
        if kind in REVEALS:
            shown = revealed_by(kind, data)
            self.revealed.update(shown)
            return self.hidden.isdisjoint(shown)
        if kind not in RELEVANT or self.corrected:
            return True
        if kind == "CorrectionRecorded":
            self.corrected = True  # read as before from here on (see the module's docstring)
            return True
        if not public(visibility) and position not in self.revealed:
            self.hidden.add(position)
            whose, shown = data["country"] if kind == "TreasuryEntryRecorded" else "*", named(visibility)
            self.named[whose].update(shown)
            if whose not in shown:
                self.unseen.add(whose)
            return True
        self._take(kind, position, data)
        return True

    def _take(self, kind: str, position: int, data: dict[str, Any]) -> None:
        inputs, dirty = self.inputs, self.dirty
        inputs.add(kind, position, data)
        if kind == "PhaseClosed":
            self.phases[data["turn"]].append([kind, position, data])
        if dirty is None:
            return
        if kind == "TreasuryEntryRecorded":
            self._touch(data["country"], data["turn"])
        elif kind in ("TurnOpened", "PhaseClosed"):
            for country in inputs.countries:
                self._touch(country, data["turn"])
        else:  # the campaign, its scenario: every sheet
            self.dirty = None

    def _touch(self, country: str, turn: Any) -> None:
        if self.dirty is not None and isinstance(turn, int):
            self.dirty[country] = min(self.dirty.get(country, turn), turn)

    def sheets(self) -> dict[tuple[str, int], str]:
        """The stored text of each sheet computed again whose text changed since the last call."""
        out: dict[tuple[str, int], str] = {}
        if self.corrected:
            return out
        inputs, dirty = self.inputs, self.dirty
        for country in inputs.countries:
            first = 1 if dirty is None else dirty.get(country)
            if first is None:
                continue
            amounts = self.amounts.setdefault(country, [])
            del amounts[first - 1:]
            for turn in range(len(amounts) + 1, inputs.turns + 1):
                amounts.append(self._amounts(country, turn, amounts))
                text = orjson.dumps({"amounts": amounts[-1], "events": self.events(country, turn)}).decode()
                digest = blake2b(text.encode(), digest_size=16).digest()
                if self.digests.get((country, turn)) != digest:
                    self.digests[(country, turn)] = digest
                    out[(country, turn)] = text
        self.dirty = {}
        return out

    def _amounts(self, country: str, turn: int, history: list[dict[str, int] | None]) -> dict[str, int] | None:
        """``compute``'s amounts of one sheet (``ledger.economy.sheets``, without corrections), from the amounts
        before it; None when it cannot be computed (then the later ones cannot either)."""
        if turn > 1 and history[turn - 2] is None:
            return None
        defn, inputs = ers_definition(), self.inputs
        known = defn._by_code  # type: ignore[attr-defined]
        lines: dict[str, int] = {}
        for p in inputs.by_key.get((country, turn), ()):
            entry = inputs.entries[p]
            d = known.get(entry.line)
            if d is None or (d.kind == "derived" and not d.carry):
                continue  # unbooked
            if entry.line in lines and d.unit not in SET_UNITS:
                lines[entry.line] += entry.amount
            else:
                lines[entry.line] = entry.amount
        if turn == 1:
            if "A1" not in lines and country in inputs.start:
                lines["A1"] = inputs.start[country][0]
        else:
            lines = {code: v for code, v in lines.items() if not defn.get(code).carry}
        earlier = tuple(reversed(history[max(0, turn - 4):turn - 2]))
        try:
            return compute_sheet(lines, history[turn - 2] if turn > 1 else None, earlier=earlier,  # type: ignore[arg-type]
                                 period_start=turn in set(inputs.settings.get("period_start_turns") or ()),
                                 variants=tuple(inputs.settings.get("ers_variants") or ()), definition=defn,
                                 amounts_only=True)
        except RulesError:
            return None

    def events(self, country: str, turn: int) -> list[list[Any]]:
        """The events a sheet takes as its own, as everyone sees them, in order: the country's entries for the
        turn, the turn's closed phases, turn 1's treasury."""
        inputs = self.inputs
        out = [["TreasuryEntryRecorded", p, {"country": country, "turn": turn, "line": e.line, "amount": e.amount}]
               for p in inputs.by_key.get((country, turn), ()) for e in (inputs.entries[p],)]
        out += self.phases.get(turn, [])
        if turn == 1 and country in inputs.start:  # the treasury of the last scenario naming the country
            treasury, position = inputs.start[country]
            out.append(["ScenarioImported", position, {"scenario": {"countries": [
                {"code": country, "treasury": treasury}]}}])
        out.sort(key=lambda e: e[1])
        return out

    def doc(self, position: int) -> dict[str, Any]:
        return {"position": position, "corrected": self.corrected, "unseen": sorted(self.unseen),
                "named": {c: sorted(found) for c, found in sorted(self.named.items()) if found}}


def gather(db: ViewDB, cur: Any, campaign: str, upto: int) -> Fold:
    """The fold of a campaign's events up to ``upto``, read from the store (a restart, a reveal)."""
    return folded(db.read_campaign(cur, campaign, upto, types=READS) if upto else [])


def folded(records: list[Record]) -> Fold:
    """The fold of these records (in order): the reveals among them apply to the events before them too."""
    fold = Fold()
    fold.revealed = {p for r in records if r.type in REVEALS for p in revealed_by(r.type, r.data)}
    for r in records:
        fold.add(r.type, r.position, trim(r), r.visibility)
    return fold


def sheet_of(created: Record, country: str, turn: int, rows: dict[int, dict[str, Any]], more: list[list[Any]]
             ) -> Sheet | None:
    """The sheet of ``turn`` as everyone sees it, from the stored rows of it and the three turns before
    (``stored``) and the events of its own the view has not reached (``more``: [type, position, trimmed]):
    ``compute`` primed with the stored amounts (a sheet reads no earlier one), on the sheet's own events and the
    campaign's settings. None when one of those rows is missing or could not be computed."""
    back = range(max(1, turn - 3), turn)
    if turn not in rows or any(rows.get(t, {}).get("amounts") is None for t in back):
        return None
    inputs = Inputs()
    inputs.add(created.type, created.position, trim(created))
    for e in sorted([*rows[turn]["events"], *more], key=lambda e: e[1]):
        inputs.add(*e)
    inputs.countries, inputs.turns = (country,), turn
    # (inputs key, token, sheet, lines) as ``budget_steps.stored_seeds``: no inputs key matches None.
    seeds: Memo = {(country, t): (None, -t, None, rows[t]["amounts"]) for t in back}  # type: ignore[misc]
    return compute(inputs, memo=seeds, since={country: turn}).sheet(country, turn)


def trim(r: Record) -> dict[str, Any]:
    return r.data if r.type in REVEALS else sheets_trim(r.type, r.data, reasons=False)


def create_tables(db: ViewDB) -> None:
    with db.transaction() as cur:
        if db.postgres:
            if have_tables(cur, db.schema, (TABLE,)):
                return
            cur.execute("SELECT pg_advisory_xact_lock(724311)")
        cur.execute(f"CREATE TABLE IF NOT EXISTS {db.t(TABLE)} (campaign text NOT NULL, country text NOT NULL, "
                    "turn integer NOT NULL, sheet text NOT NULL, PRIMARY KEY (campaign, country, turn))")


def write(db: ViewDB, cur: Any, campaign: str, sheets: dict[tuple[str, int], str]) -> None:
    if sheets:
        ph = db.ph
        cur.executemany(f"INSERT INTO {db.t(TABLE)} (campaign, country, turn, sheet) VALUES ({ph}, {ph}, {ph}, {ph}) "
                        "ON CONFLICT (campaign, country, turn) DO UPDATE SET sheet = excluded.sheet",
                        [(campaign, c, t, text) for (c, t), text in sorted(sheets.items())])


def stored_seeds(db: ViewDB, cur: Any, campaign: str, country: str, turn: int
                 ) -> tuple[int, dict[str, Any], Memo | None] | None:
    """(position, document, memo): the memo ``compute(..., since={country: turn})`` primes from, as
    ``budget_steps.stored_seeds`` but of the sheets as everyone sees them (the stored amounts of the three
    sheets before ``turn``; None when one is missing or could not be computed), read with ``cur``, and the
    view's position and document they are of. None when the view has no document for the campaign or moved on
    between the statements. The caller checks that the document lets its reader use them."""
    query = db.sql("SELECT position, doc FROM {proj_docs} WHERE view = ? AND campaign = ?")
    cur.execute(query, (NAME, campaign))
    row = cur.fetchone()
    if row is None:
        return None
    first, ph = max(1, turn - 3), db.ph
    cur.execute(f"SELECT turn, sheet FROM {db.t(TABLE)} WHERE campaign = {ph} AND country = {ph} "
                f"AND turn >= {ph} AND turn < {ph}", (campaign, country, first, turn))
    amounts = {int(r["turn"]): orjson.loads(r["sheet"])["amounts"] for r in cur.fetchall()}
    cur.execute(query, (NAME, campaign))
    again = cur.fetchone()
    if again is None or int(again["position"]) != int(row["position"]):
        return None  # the view moved on between the statements: the rows may be of another position
    complete = sorted(amounts) == list(range(first, turn)) and all(a is not None for a in amounts.values())
    # (inputs key, token, sheet, lines) as ``budget_steps.stored_seeds``: no inputs key matches None.
    memo: Memo | None = {(country, t): (None, -t, None, a) for t, a in amounts.items()} if complete else None  # type: ignore[misc]
    return int(row["position"]), orjson.loads(bytes(row["doc"])), memo


def may_use(doc: dict[str, Any], country: str, reader: str | None) -> bool:
    """Whether the stored sheets of ``country`` (document ``doc``) are those a reader who is not that country's
    player sees (``reader``: a player's country, None for an observer): no correction, and the reader named in
    no hidden event of the country's sheets (nor in one every country's sheets read)."""
    if doc.get("corrected") or reader == country:
        return False
    named_in = doc.get("named", {})
    return reader is None or reader not in (*named_in.get(country, ()), *named_in.get("*", ()))


def stored(db: ViewDB, campaign: str, country: str, turn: int, rows: bool = True
           ) -> tuple[int, dict[str, Any], dict[int, dict[str, Any]]] | None:
    """(position, document, {turn: stored sheet}) of the sheet of ``turn`` and the three before it, as the view
    holds them at one position (``rows`` False: the document alone); None when it has none for the campaign
    (or its table is missing: not migrated)."""
    ph = db.ph
    found: dict[int, dict[str, Any]] = {}
    try:
        with db.reading() as cur:
            query = db.sql("SELECT position, doc FROM {proj_docs} WHERE view = ? AND campaign = ?")
            cur.execute(query, (NAME, campaign))
            row = cur.fetchone()
            if row is None or not rows:
                return None if row is None else (int(row["position"]), orjson.loads(bytes(row["doc"])), found)
            cur.execute(f"SELECT turn, sheet FROM {db.t(TABLE)} WHERE campaign = {ph} AND country = {ph} "
                        f"AND turn >= {ph} AND turn <= {ph}", (campaign, country, turn - 3, turn))
            found = {int(r["turn"]): orjson.loads(r["sheet"]) for r in cur.fetchall()}
            cur.execute(query, (NAME, campaign))
            again = cur.fetchone()
    except Exception:  # noqa: BLE001 - an older store without the table: the caller reads as before
        return None
    if again is None or int(again["position"]) != int(row["position"]):
        return None  # the view moved on between the statements: the rows may be of another position
    return int(row["position"]), orjson.loads(bytes(row["doc"])), found
