"""The budget as a stored view: one row per campaign, country, turn and ERS line, with its lineage.

``ledger.economy.sheets.budget`` stays the one definition of the numbers; this
view (``projections.views.BudgetView``) only stores its answer. A derived line depends on the whole sheet and on
earlier turns, so the view does not patch lines: it keeps, per campaign and in
memory, what the budget reads (``ledger.economy.sheets.Inputs``), recomputes the
sheets whose inputs changed once per batch, and rewrites only the sheets whose
JSON differs from the previous answer. The campaign's ``proj_docs`` document
holds only the position: after a restart the inputs are read again from the
events themselves (``relevant_events``), so no batch rewrites a document that
grows with the campaign. Those writes share the batch's
transaction and tracking row (projections.store), so they are exactly-once
like the other views.

``proj_budget``: one row per line (amount, entered/derived, lineage: the
positions of the events an entered line comes from, the lines a derived one is
computed from, and the full line as JSON); ``proj_budget_sheets``: the rest of
the sheet (error, unbooked entries, closed phases).
"""

from __future__ import annotations

from hashlib import blake2b
from typing import Any

import orjson

from ledger.economy.sheets import RELEVANT, Inputs, Memo, Sheet, compute
from ledger.economy.sheets import trim as sheets_trim
from ledger.store.roles import have_tables, table_indexes
from projections.records import Record
from projections.store import ViewDB

NAME = "budget"

def trim(r: Record) -> dict[str, Any]:
    """The fields ``budget`` reads from a relevant event: the stored document stays small."""
    return sheets_trim(r.type, r.data)


def empty() -> dict[str, Any]:
    return {"position": 0}


def records(doc: dict[str, Any]) -> list[Record]:
    """``doc["events"]``: [type, position, trimmed fields] lists (readers keep their own, projections/head.py)."""
    return [Record("", pos, kind, data) for kind, pos, data in doc["events"]]


def relevant_events(db: ViewDB, cur: Any, campaign: str, upto: int) -> list[list[Any]]:
    """The campaign's events the budget reads, at positions 1..upto, as [type, position, trimmed fields]."""
    rows = db.read_campaign(cur, campaign, upto, types=RELEVANT)
    return [[r.type, r.position, trim(r)] for r in rows]


#: A sheet as stored: its ``proj_budget_sheets.sheet`` text, and per line (seq, line, amount, kind, events,
#: sources, detail) of ``proj_budget``.
SheetRows = tuple[str, list[tuple[int, str, int, str, str, str, str]]]


def sheet_rows(s: Sheet) -> SheetRows:
    """``sheet_json(s)`` serialised as the view writes it (and digests it), built from the cells directly.

    The same text as serialising ``sheet_json``'s answer (tuples serialise as lists; tests/unit/test_budget_rows.py
    holds them equal), without its intermediate lists and with each plan's ``sources`` serialised once.
    """
    dumps, source_text = orjson.dumps, _SOURCES
    lines = []
    for seq, c in enumerate((s.cells or {}).values()):
        sources = source_text.get(c.sources)
        if sources is None:
            sources = source_text[c.sources] = dumps(c.sources).decode()
        line = {"code": c.code, "name": c.name, "sheet": c.sheet, "kind": c.kind, "unit": c.unit, "amount": c.value,
                "ticks": c.ticks, "formula": c.formula, "sources": c.sources, "events": c.events,
                "defaulted": c.defaulted, "alert": c.alert, "at_close": c.at_close}
        lines.append((seq, c.code, c.value, c.kind, dumps(c.events).decode() if c.events else "[]", sources,
                      dumps(line).decode()))
    return dumps({"error": s.error, "unbooked": s.unbooked, "phases_closed": s.phases_closed}).decode(), lines


#: ``sources`` text per sources tuple: a sheet definition has a few hundred distinct ones.
_SOURCES: dict[tuple[str, ...], str] = {}


class Cache:
    """One campaign's budget in memory: its gathered inputs, the sheet memo, a digest of each memoised sheet,
    and the first turn per country whose inputs changed since the last ``sheets`` (``dirty``)."""

    def __init__(self, events: list[list[Any]]):
        self.inputs = Inputs()
        self.memo: Memo = {}
        # Per sheet: the memoised sheet and a digest of its JSON. Not the JSON itself: a 300,000-event campaign
        # has thousands of sheets of ~95 lines, and their JSON kept in memory was a third of a rebuild's RSS.
        self.seen: dict[tuple[str, int], tuple[Any, bytes]] = {}
        self.computed: dict[tuple[str, int], SheetRows] = {}  # the rows of the sheets the last call computed
        self.dirty: dict[str, int] | None = None  # None: every sheet (nothing computed yet, or the countries changed)
        for kind, position, data in events:
            self.add(kind, position, data)
        self.dirty = None

    def _touch(self, country: Any, turn: Any) -> None:
        if self.dirty is not None and isinstance(country, str) and isinstance(turn, int):
            self.dirty[country] = min(self.dirty.get(country, turn), turn)

    def add(self, kind: str, position: int, data: dict[str, Any]) -> None:
        """Take one relevant event and note the sheets it may change (the later ones follow in ``compute``)."""
        inputs = self.inputs
        if kind == "TreasuryEntryRecorded":
            self._touch(data.get("country"), data.get("turn"))
        elif kind == "CorrectionRecorded":
            # The corrected entry's sheet, and the sheets its standing replacement named before and after.
            root = inputs.standing.root(data["corrects"])
            before = inputs.corrections.get(root)
            inputs.add(kind, position, data)
            entry = inputs.entries.get(root)
            if entry is not None:
                self._touch(entry.country, entry.turn)
                for fix in (before, inputs.corrections.get(root)):
                    if fix is not None and isinstance(fix[1], dict):
                        self._touch(fix[1].get("country", entry.country), fix[1].get("turn", entry.turn))
            return
        elif kind == "TurnOpened":
            for country in inputs.countries:  # the new turns' sheets
                self._touch(country, inputs.turns + 1)
        elif kind == "PhaseClosed":
            for country in inputs.countries:  # every sheet of the turn lists its closed phases
                self._touch(country, data["turn"])
        elif kind in ("CampaignCreated", "ScenarioImported"):
            self.dirty = None
        inputs.add(kind, position, data)

    def sheets(self) -> tuple[dict[tuple[str, int], bytes], bool]:
        """The digests of the sheets computed again since the last call, and whether that is every sheet (when
        not, the sheets left out are unchanged). Their rows are in ``computed`` until the next call."""
        every = self.dirty is None
        out, self.computed = {}, {}
        if every or self.dirty:
            for key, s in compute(self.inputs, memo=self.memo, since=self.dirty).sheets.items():
                seen = self.seen.get(key)
                if seen is None or seen[0] is not s:
                    rows = self.computed[key] = sheet_rows(s)
                    # The digest of the rows as written: each line's detail holds all of the line.
                    h = blake2b(rows[0].encode(), digest_size=16)
                    for line in rows[1]:
                        h.update(line[-1].encode())
                    seen = self.seen[key] = (s, h.digest())
                out[key] = seen[1]
        self.dirty = {}
        return out, every


#: The lines booked from events (an entered line names its entries; a computed one names none): about one
#: row in 200 of the 300k campaign's. A country's lineage (``budget_steps.lineage``: which entries each sheet
#: books, asked by a turn page's first ERS step) reads them; without this partial index it scanned the
#: campaign's budget rows (EXPLAIN ANALYZE, 300k campaign: 96 ms). A statement uses it only when its WHERE
#: repeats ``ENTERED`` as written (a literal, not a parameter: see ``projections.store.TIMELINE_INDEXES``).
ENTERED = "events <> '[]'"
ENTERED_INDEX = "proj_budget_entered"


def create_tables(db: ViewDB) -> None:
    big = "bigint" if db.postgres else "INTEGER"
    with db.transaction() as cur:
        if db.postgres:
            if have_tables(cur, db.schema, ("proj_budget", "proj_budget_sheets")):
                n, mine = table_indexes(cur, db.schema, "proj_budget", [ENTERED_INDEX])
                # The service role may not create it; its reads answer the same without (a scan).
                if n or not mine:
                    return
            cur.execute("SELECT pg_advisory_xact_lock(724311)")
        cur.execute(db.sql(
            f"CREATE TABLE IF NOT EXISTS {db.t('proj_budget')} (campaign text NOT NULL, country text NOT NULL, "
            f"turn integer NOT NULL, seq integer NOT NULL, line text NOT NULL, amount {big} NOT NULL, "
            "kind text NOT NULL, events text NOT NULL, sources text NOT NULL, detail text NOT NULL, "
            "PRIMARY KEY (campaign, country, turn, line))"))
        cur.execute(db.sql(
            f"CREATE TABLE IF NOT EXISTS {db.t('proj_budget_sheets')} (campaign text NOT NULL, "
            "country text NOT NULL, turn integer NOT NULL, sheet text NOT NULL, "
            "PRIMARY KEY (campaign, country, turn))"))
        cur.execute(f"CREATE INDEX IF NOT EXISTS {ENTERED_INDEX} ON {db.t('proj_budget')} (campaign, country, turn) "
                    f"WHERE {ENTERED}")


def stored_sheet(db: ViewDB, campaign: str, country: str, turn: int, head: int) -> dict[str, Any] | None:
    """The stored sheet as ``sheet_json`` gives it, or None when the view is behind ``head`` (or has no such sheet).

    The document's position is read first: the rows read after it are at least as new.
    """
    ph = db.ph
    with db.reading() as cur:
        cur.execute(db.sql("SELECT position FROM {proj_docs} WHERE view = ? AND campaign = ?"), (NAME, campaign))
        row = cur.fetchone()
        if row is None or int(row["position"]) != head:
            return None
        cur.execute(f"SELECT sheet FROM {db.t('proj_budget_sheets')} WHERE campaign = {ph} AND country = {ph} "
                    f"AND turn = {ph}", (campaign, country, turn))
        sheet = cur.fetchone()
        if sheet is None:
            return None
        cur.execute(f"SELECT detail FROM {db.t('proj_budget')} WHERE campaign = {ph} AND country = {ph} "
                    f"AND turn = {ph} ORDER BY seq", (campaign, country, turn))
        lines = [orjson.loads(r["detail"]) for r in cur.fetchall()]
    return {"country": country, "turn": turn, "lines": lines, **orjson.loads(sheet["sheet"])}
