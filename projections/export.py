"""Economic history as tables: the ERS (long and wide), inflation, stability and victory points.

Pure: every function takes a ``projections.history.History`` (the budget, the
victory document and the event hashes, already filtered for the caller) and
yields plain rows; the writers turn rows into CSV, JSON or Parquet bytes.

Tables (``TABLES``), one row per:
- ``ers``: campaign, country, turn and ERS line: amount, entered|derived, and
  its lineage: ``positions`` (and their ``hashes``) of the events the amount
  comes from. An entered cell lists its entries (and their corrections, the
  scenario for turn 1's A1); a derived or defaulted cell the union of the
  lineage of the lines of the same sheet it is computed from (``sources``). A
  reference to last turn's sheet (``A33[t-1]``) is named in ``sources`` and
  not expanded: follow it on the previous turn's row.
  Lines nothing was entered on and that took their default (``defaulted``:
  mostly zeros) are left out unless asked for (``include_defaulted``).
- ``ers-wide``: campaign, country and turn: one column per line, named by its
  code and title (``A9 Pillages, privateers``), plus the sheet's ``positions``
  (every position its cells come from).
- ``entries``: every treasury entry and every correction of one, in order:
  position, turn, country, line and its title, amount, reason, who recorded it,
  when, and who may see it. A correction's row carries the entry as corrected
  (an amount left empty: the entry was struck out).
- ``inflation``: turn: the inflation box at its start and end, and the events
  that moved it. Campaign-wide: ``country`` does not filter it.
- ``stability``: country and turn: stability at its start and end, and why.
- ``victory``: country and turn: points awarded in the turn, the running
  total, and the award events. Points are exact: a whole number, or a
  fraction as text ("7/3") in CSV and JSON (a double in Parquet).

Turn 0 rows appear only when something happened before the first turn opened.
A sheet the budget cannot compute (its error is on ``GET .../ers``) has no rows.

``to_xlsx`` writes a workbook (projections/xlsx.py): one worksheet per country laid out
like the paper sheets A, B and C (lines down, turns across), and the entries.
Each amount that comes from entries carries a comment listing them (position,
amount, reason, who), corrections included; a derived amount's comment says
its formula in words.
"""

from __future__ import annotations

import csv
import functools
import io
import operator
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from fractions import Fraction
from typing import Any

import orjson
from cachetools import LRUCache

from ledger.domain.errors import InvalidInput
from ledger.rules.core import RulesError
from ledger.rules.eu.ers import ers_definition
from ledger.text import for_csv
from projections import words, xlsx
from projections.history import History, StoredHashes, entries_of, fetch_hashes, fetch_sheets
from projections.records import num, plain

TABLES = ("ers", "ers-wide", "entries", "inflation", "stability", "victory")
FORMATS = ("csv", "json", "parquet", "xlsx")
MEDIA_TYPES = {"csv": "text/csv; charset=utf-8", "json": "application/json",
               "parquet": "application/vnd.apache.parquet",
               "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}

# Column name -> kind: text, int, bool, number (exact VP), ints and texts (lists).
COLUMNS: dict[str, dict[str, str]] = {
    "ers": {"campaign": "text", "country": "text", "turn": "int", "line": "text", "name": "text", "amount": "int",
            "kind": "text", "unit": "text", "defaulted": "bool", "sources": "texts", "positions": "ints",
            "hashes": "texts"},
    "entries": {"campaign": "text", "position": "int", "kind": "text", "corrects": "int", "turn": "int",
                "country": "text", "line": "text", "title": "text", "amount": "int", "reason": "text",
                "actor": "text", "time": "text", "visible_to": "text", "hash": "text"},
    "inflation": {"campaign": "text", "turn": "int", "start": "int", "end": "int", "positions": "ints",
                  "hashes": "texts"},
    "stability": {"campaign": "text", "country": "text", "turn": "int", "start": "int", "end": "int",
                  "positions": "ints", "hashes": "texts"},
    "victory": {"campaign": "text", "country": "text", "turn": "int", "points": "number", "total": "number",
                "positions": "ints", "hashes": "texts"},
}


@functools.lru_cache(maxsize=1024)  # a line's title never changes: the wide table names ~100 per sheet
def line_label(code: str) -> str:
    """A wide table's column for a line: its code and title, as on the paper sheet."""
    return f"{code} {ers_definition().get(code).name}"


def columns(table: str) -> dict[str, str]:
    if table == "ers-wide":
        lines = {line_label(code): "int" for code in ers_definition().codes}
        return {"campaign": "text", "country": "text", "turn": "int", **lines, "positions": "ints"}
    return COLUMNS[table]


# --------------------------------------------------------------------------- filters


def parse_turns(text: str | None, last: int, name: str = "turns") -> tuple[int, int]:
    """``A..B``, ``A..``, ``..B`` or ``A`` within the opened turns 0..``last`` (else InvalidInput on ``name``)."""
    if text is None or text == "":
        return 0, last
    lo, sep, hi = text.partition("..")
    try:
        first = int(lo) if lo.strip() else 0
        final = int(hi) if hi.strip() else last
        if not sep:
            final = first
    except ValueError:
        raise InvalidInput(f"turns {text!r}: A..B, A.., ..B or A, with whole turn numbers", field=name) from None
    if first < 0 or final > last or first > final:
        raise InvalidInput(f"turns {text!r}: the range must lie within the opened turns 0..{last}, "
                           "first before last", field=name)
    return first, final


def check_table(table: str) -> str:
    if table not in TABLES:
        raise InvalidInput(f"table {table!r}: one of {', '.join(TABLES)}", field="table")
    return table


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise InvalidInput(f"format {fmt!r}: one of {', '.join(FORMATS)}", field="format")
    return fmt


def check_country(history: History, country: str | None) -> str | None:
    if country is not None and country not in history.countries:
        raise InvalidInput(f"country {country!r} is not in this campaign ({', '.join(history.countries)})",
                           field="country")
    return country


# --------------------------------------------------------------------------- rows


def lineage(cells: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """Per line, the positions its amount comes from (its own events, else its same-sheet sources').

    ``lineage_reference``'s walk run once per sheet structure (the lines, their sources and which hold events:
    a few shapes per campaign), on the lines themselves (``_leaves``); each sheet then unites the events of each
    line's leaves, once per distinct set of them: the same positions, without walking ~95 lines' sources per
    sheet (~28,000 lines in a country's ERS on the 300k campaign)."""
    key = tuple((code, cell.sources, not cell.events) for code, cell in cells.items())
    with _LEAVES_LOCK:
        leaves = _LEAVES.get(key)
    if leaves is None:
        leaves = _leaves(cells)
        with _LEAVES_LOCK:
            _LEAVES[key] = leaves
    united: dict[tuple[str, ...], tuple[int, ...]] = {}
    out: dict[str, tuple[int, ...]] = {}
    for code, found in leaves.items():
        positions = united.get(found)
        if positions is None:
            if len(found) == 1:
                positions = tuple(sorted(set(cells[found[0]].events)))
            else:
                positions = tuple(sorted({p for leaf in found for p in cells[leaf].events}))
            united[found] = positions
        out[code] = positions
    return out


def _leaves(cells: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Per line, the lines holding events whose events ``lineage_reference`` unites for it (sorted codes)."""
    memo: dict[str, frozenset[str]] = {}
    path: set[str] = set()  # the lines being expanded: a cycle of sources stops at the first repeat

    def of(code: str) -> frozenset[str]:
        if code in memo:
            return memo[code]
        cell = cells[code]
        if cell.events:
            found = frozenset((code,))
        else:
            union: set[str] = set()
            path.add(code)
            for src in cell.sources:
                if src in cells and src not in path:
                    union.update(of(src))
            path.discard(code)
            found = frozenset(union)
        memo[code] = found
        return found

    return {code: tuple(sorted(of(code))) for code in cells}


#: ``_leaves`` by sheet structure (lines, sources, which hold no events): few per campaign; bounded.
_LEAVES: LRUCache[tuple[Any, ...], dict[str, tuple[str, ...]]] = LRUCache(1024)
_LEAVES_LOCK = threading.Lock()  # the routes run in a thread pool


def lineage_reference(cells: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """``lineage`` by walking each line's sources (the reference it is tested against)."""
    memo: dict[str, tuple[int, ...]] = {}
    path: set[str] = set()

    def of(code: str) -> tuple[int, ...]:
        if code in memo:
            return memo[code]
        cell = cells[code]
        if cell.events:
            found = tuple(sorted(set(cell.events)))
        else:
            union: set[int] = set()
            path.add(code)
            for src in cell.sources:
                if src in cells and src not in path:  # "X[t-1]" names last turn's sheet: not expanded
                    union.update(of(src))
            path.discard(code)
            found = tuple(sorted(union))
        memo[code] = found
        return found

    return {code: of(code) for code in cells}


def sheet_lineage(sheet: Any) -> dict[str, tuple[int, ...]]:
    """``lineage(sheet.cells)``, worked out once per sheet object (a computed sheet never changes): every long ERS
    download walks every line of every sheet of a country (~28,000 lines on the 300,000-event campaign), and after
    an append only the changed sheets are new objects."""
    with _LINES_LOCK:
        found = _LINEAGE.get(id(sheet))
    if found is not None and found[0] is sheet:
        return found[1]
    lines = lineage(sheet.cells)
    with _LINES_LOCK:
        _LINEAGE[id(sheet)] = (sheet, lines)  # the sheet kept alive with it: its id is not reused meanwhile
    return lines


def _turns(history: History, turns: tuple[int, int] | None) -> range:
    first, last = turns if turns is not None else (0, history.turns)
    return range(max(first, 1), last + 1)


def _countries(history: History, country: str | None) -> tuple[str, ...]:
    return (country,) if country is not None else history.countries


def ers_rows(history: History, country: str | None = None, turns: tuple[int, int] | None = None
             ) -> Iterator[dict[str, Any]]:
    """The long ERS: one row per country, turn and line, in sheet order."""
    for c, t, sheet, lines in _sheets(history, country, turns):
        yield from _sheet_rows(history, c, t, sheet, lines)


def _sheet_rows(history: History, c: str, t: int, sheet: Any, lines: Mapping[str, tuple[int, ...]]
                ) -> Iterator[dict[str, Any]]:
    campaign, get = history.campaign, history.hashes.get
    for code, cell in sheet.cells.items():
        positions = lines[code]
        yield {"campaign": campaign, "country": c, "turn": t, "line": code, "name": cell.name,
               "amount": cell.value, "kind": cell.kind, "unit": cell.unit, "defaulted": cell.defaulted,
               "sources": list(cell.sources), "positions": list(positions),
               "hashes": [get(p, "") for p in positions]}


def _sheet_keys(history: History, country: str | None, turns: tuple[int, int] | None) -> Iterator[tuple[str, int]]:
    """(country, turn) of the long ERS's sheets in its order: ``ers_rows`` and ``ers_csv`` walk the same ones;
    each country's sheets of these turns read at once (a turn range: those only)."""
    wanted = _turns(history, turns)
    for c in _countries(history, country):
        fetch_sheets(history.budget, c, wanted)
        for t in wanted:
            yield c, t


def _sheets(history: History, country: str | None, turns: tuple[int, int] | None
            ) -> Iterator[tuple[str, int, Any, dict[str, Any]]]:
    """The computed sheets of the long ERS in its order (country, turn), each with its lines' positions
    (``lineage``)."""
    for c, t in _sheet_keys(history, country, turns):
        sheet = history.budget.sheet(c, t)
        if sheet is not None and sheet.cells is not None:
            yield c, t, sheet, sheet_lineage(sheet)


def wide(long_rows: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """Long ERS rows pivoted: one row per country and turn, one column per line, the sheet's positions."""
    row: dict[str, Any] | None = None
    positions: set[int] = set()
    for r in long_rows:
        key = (r["campaign"], r["country"], r["turn"])
        if row is None or (row["campaign"], row["country"], row["turn"]) != key:
            if row is not None:
                yield {**row, "positions": sorted(positions)}
            row, positions = {"campaign": key[0], "country": key[1], "turn": key[2]}, set()
        row[line_label(r["line"])] = r["amount"]
        positions.update(r["positions"])
    if row is not None:
        yield {**row, "positions": sorted(positions)}


def wide_rows(history: History, country: str | None = None, turns: tuple[int, int] | None = None
              ) -> Iterator[dict[str, Any]]:
    """``wide(ers_rows(...))``, the same rows, from each sheet's cells and lineage without a long row each."""
    for c, t, sheet, lines in _sheets(history, country, turns):
        yield _wide_row(history.campaign, c, t, sheet, lines)


def _wide_row(campaign: str, country: str, turn: int, sheet: Any, lines: dict[str, Any]) -> dict[str, Any]:
    """A sheet's wide row: a column per line, and the positions its lines name."""
    row: dict[str, Any] = {"campaign": campaign, "country": country, "turn": turn}
    positions: set[int] = set()
    for code, cell in sheet.cells.items():
        row[line_label(code)] = cell.value
        positions.update(lines[code])
    row["positions"] = sorted(positions)
    return row


def _visible_to(visibility: Mapping[str, Any]) -> str:
    scope = visibility.get("scope", "public")
    if scope == "countries":
        return ", ".join(visibility.get("countries") or ())
    return "game masters" if scope == "gm" else "everyone"


@functools.lru_cache(maxsize=1024)  # a few dozen lines, named by every one of thousands of entries
def _title(code: str | None) -> str:
    try:
        return ers_definition().get(code).name if code else ""
    except RulesError:  # a line the sheet does not know (an unbooked entry): the entry stays, untitled
        return ""


def entry_rows(history: History, country: str | None = None, turns: tuple[int, int] | None = None
               ) -> Iterator[dict[str, Any]]:
    """Every treasury entry and correction of one, as the caller sees them, in order."""
    campaign, hashes = history.campaign, history.hashes
    for e, row in _entry_rows(history, country, turns):
        yield row if row is not None else _entry_row(campaign, e, hashes)


def _entry_row(campaign: str, e: Mapping[str, Any], hashes: Mapping[int, str]) -> dict[str, Any]:
    """The row of an entry (not a correction): its own fields, as recorded."""
    return {"campaign": campaign, "position": e["position"], "kind": "entry", "corrects": None,
            "turn": e["turn"], "country": e["country"], "line": e["line"], "amount": e["amount"],
            "title": _title(e["line"]), "reason": e["reason"], "actor": e["actor"], "time": e["time"],
            "visible_to": _visible_to(e["visibility"]), "hash": hashes.get(e["position"], "")}


def _entry_rows(history: History, country: str | None, turns: tuple[int, int] | None
                ) -> Iterator[tuple[Mapping[str, Any], dict[str, Any] | None]]:
    """``entry_rows``'s, in order: (an entry, None) for an entry's row (``_entry_row`` of it: a row that depends
    on nothing but the entry, which never changes), (a correction, its row) for a correction's, which depends
    on what it corrects as corrected before it."""
    first, last = turns if turns is not None else (0, history.turns)
    # Entry position -> the entry (an uncorrected entry: its own record, no copy of its fields made for each of
    # the campaign's tens of thousands of entries) or its fields as last corrected.
    current: dict[int, Mapping[str, Any]] = {}
    corrected: set[int] = set()
    campaign, hashes = history.campaign, history.hashes
    for e in entries_of(history.entries, country):
        if e["type"] == "TreasuryEntryRecorded":
            current[e["position"]] = e
            if (country is None or e["country"] == country) and first <= (e["turn"] or 0) <= last:
                yield e, None
            continue
        corrects = e["corrects"]
        was = current[corrects]
        if corrects not in corrected:
            was = {k: was[k] for k in ("turn", "country", "line", "amount")}
        replacement = e["replacement"] if isinstance(e["replacement"], dict) else None
        fields = {**was, **(replacement or {})} if replacement else {**was, "amount": None}
        current[corrects] = fields
        corrected.add(corrects)
        if country is not None and fields["country"] != country:
            continue
        if not first <= (fields["turn"] or 0) <= last:
            continue
        yield e, {"campaign": campaign, "position": e["position"], "kind": "correction", "corrects": corrects,
                  **fields, "title": _title(fields["line"]), "reason": e["reason"], "actor": e["actor"],
                  "time": e["time"], "visible_to": _visible_to(e["visibility"]),
                  "hash": hashes.get(e["position"], "")}


def _track_rows(log: list[dict[str, Any]], start: int, turns: range, with_zero: bool
                ) -> Iterator[tuple[int, int, int, list[int]]]:
    """(turn, start, end, positions) of a track from its change log."""
    by_turn: dict[int, list[dict[str, Any]]] = {}
    for e in log:
        by_turn.setdefault(e["turn"] or 0, []).append(e)
    value = start
    for t in ([0] if with_zero and by_turn.get(0) else []) + list(range(1, turns.stop)):
        changes = by_turn.get(t, [])
        begin = value
        if changes:
            value = changes[-1]["to"]
        if t in turns or t == 0:
            yield t, begin, value, [e["position"] for e in changes]


def _zero_wanted(turns: tuple[int, int] | None) -> bool:
    return turns is None or turns[0] == 0


def inflation_rows(history: History, turns: tuple[int, int] | None = None) -> Iterator[dict[str, Any]]:
    doc = history.victory
    log = doc["inflation_log"]
    start = log[0]["from"] if log else doc["inflation"]  # None: no scenario, no track
    fetch_hashes(history.hashes, [e["position"] for e in log])
    for t, begin, end, positions in _track_rows(log, start, _turns(history, turns), _zero_wanted(turns)):
        yield {"campaign": history.campaign, "turn": t, "start": begin, "end": end, "positions": positions,
               "hashes": [history.hashes.get(p, "") for p in positions]}


def stability_rows(history: History, country: str | None = None, turns: tuple[int, int] | None = None
                   ) -> Iterator[dict[str, Any]]:
    doc = history.victory
    for c in _countries(history, country):
        log = [e for e in doc["stability_log"] if e["country"] == c]
        fetch_hashes(history.hashes, [e["position"] for e in log])  # this country's only, in one read
        start = log[0]["from"] if log else doc["stability"].get(c)
        for t, begin, end, positions in _track_rows(log, start, _turns(history, turns), _zero_wanted(turns)):
            yield {"campaign": history.campaign, "country": c, "turn": t, "start": begin, "end": end,
                   "positions": positions, "hashes": [history.hashes.get(p, "") for p in positions]}


def victory_rows(history: History, country: str | None = None, turns: tuple[int, int] | None = None
                 ) -> Iterator[dict[str, Any]]:
    wanted = _turns(history, turns)
    for c in _countries(history, country):
        awards = [a for a in history.awards if a["country"] == c]
        # Each award carries its event's hash (the victory view stores it); those that do not (an older view's
        # rows): this country's only, read in one go.
        known = {a["position"]: a["hash"] for a in awards if a.get("hash")}
        fetch_hashes(history.hashes, [a["position"] for a in awards if a["position"] not in known])
        by_turn: dict[int, list[dict[str, Any]]] = {}
        for a in awards:
            by_turn.setdefault(a["turn"] or 0, []).append(a)
        # Whole points (nearly all) add as ints: Fractions only where one is a fraction (2,000 Fraction sums
        # were ~15 % of a first victory.csv); the same exact total either way.
        total: int | Fraction = 0
        zero = [0] if _zero_wanted(turns) and by_turn.get(0) else []
        for t in zero + list(range(1, wanted.stop)):
            points = sum((p if type(p := a["points"]) is int else num(p) for a in by_turn.get(t, [])), 0)
            total += points
            if t in wanted or t == 0:
                positions = sorted({a["position"] for a in by_turn.get(t, [])})
                yield {"campaign": history.campaign, "country": c, "turn": t, "points": plain(points),
                       "total": plain(total), "positions": positions,
                       "hashes": [known.get(p) or history.hashes.get(p, "") for p in positions]}


def rows(history: History, table: str, country: str | None = None, turns: tuple[int, int] | None = None,
         include_defaulted: bool = False) -> Iterator[dict[str, Any]]:
    """The rows of ``table`` (one of ``TABLES``), filtered by country and turn range."""
    check_table(table)
    check_country(history, country)
    if table == "ers":
        found = ers_rows(history, country, turns)
        return found if include_defaulted else (r for r in found if not r["defaulted"])
    if table == "entries":
        return entry_rows(history, country, turns)
    if table == "ers-wide":
        return wide_rows(history, country, turns)
    if table == "inflation":
        return inflation_rows(history, turns)
    if table == "stability":
        return stability_rows(history, country, turns)
    return victory_rows(history, country, turns)


# --------------------------------------------------------------------------- writers


def _cell(value: Any, kind: str) -> Any:
    """A CSV cell: a text no spreadsheet reads as a formula (``for_csv``)."""
    if kind in ("ints", "texts"):
        joined = " ".join(str(v) for v in value)  # one spreadsheet cell; split on spaces to read back
        return for_csv(joined) if kind == "texts" else joined
    if kind == "text" and type(value) is str:
        return for_csv(value)
    if kind == "bool":
        return "true" if value else "false"
    if value is None:
        return ""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def to_csv(table: str, rows: Iterable[Mapping[str, Any]]) -> bytes:
    """UTF-8 CSV with a header row, no index column; lists as space-separated values. A text that starts as a
    formula would (``=``, ``+``, ``-``, ``@``: a reason typed ``=HYPERLINK(...)``) starts with an apostrophe
    (``ledger.text.for_csv``, OWASP's rule): a spreadsheet shows it as text."""
    cols = columns(table)
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(cols)
    for r in rows:
        writer.writerow([_cell(r.get(name), kind) for name, kind in cols.items()])
    return buf.getvalue().encode("utf-8")


def _csv_field(writer: Any, buf: io.StringIO) -> Callable[[Any], str]:
    """A cell as ``csv.writer`` writes it within a row (quoted when it holds a comma, a quote or a line break; a
    text that would start a formula with an apostrophe, as ``_cell``), worked out once per distinct value: an ERS
    has a few hundred distinct texts over its thousands of lines."""
    seen: dict[Any, str] = {}

    def field(value: Any) -> str:
        if type(value) is int:  # as the writer writes it (and 1 and True are one key of ``seen``)
            return str(value)
        found = seen.get(value)
        if found is None:
            if value is None or value == "":
                found = ""
            else:
                buf.seek(0)
                buf.truncate()
                writer.writerow((for_csv(value) if type(value) is str else value,))
                found = buf.getvalue()[:-2]  # the row's "\r\n" off
            seen[value] = found
        return found

    return field


def ers_csv(history: History, country: str | None = None, turns: tuple[int, int] | None = None,
            include_defaulted: bool = False) -> bytes:
    """``to_csv("ers", rows(history, "ers", ...))``, byte for byte, without a row dict, twelve cell conversions
    and the csv module's scan of every character per line: a country's long ERS is ~28,000 lines and ~13 MB on a
    300,000-event campaign, most of it positions and hashes (digits, hex and spaces: never quoted), so those
    are joined as they are and only the short texts go through the csv writer, once per distinct value. Same
    lines, order and cells as ``ers_rows`` (tests/integration/test_export_fast.py)."""
    check_country(history, country)
    scratch = io.StringIO(newline="")
    field = _csv_field(csv.writer(scratch, lineterminator="\r\n"), scratch)
    buf = io.StringIO(newline="")
    csv.writer(buf, lineterminator="\r\n").writerow(COLUMNS["ers"])
    campaign, hashes, write = field(history.campaign), history.hashes, buf.write
    for c, t in _sheet_keys(history, country, turns):
        sheet = history.budget.sheet(c, t)
        if sheet is None or sheet.cells is None:
            continue
        key = (id(sheet), campaign, c, t, include_defaulted)
        with _LINES_LOCK:
            found = _LINES.get(key)
        if found is not None and found[0] is sheet:  # the same sheet object: its lines as written before
            write(found[1])
            continue
        head, lines, out = f"{campaign},{field(c)},{t},", sheet_lineage(sheet), []
        # A sheet's lines share their lineages (``lineage`` hands out one tuple per set of leaves): each one's
        # positions and hashes written once, the hashes read without a call each where they are at hand.
        written: dict[int, str] = {}
        known = _known_hashes(hashes)
        for code, cell in sheet.cells.items():
            if cell.defaulted and not include_defaulted:
                continue
            positions = lines[code]
            tail = written.get(id(positions))
            if tail is None:
                tail = written[id(positions)] = " ".join(map(str, positions)) + "," + " ".join(
                    [known[p] if p in known else hashes.get(p, "") for p in positions])
            out.append(",".join((head + field(code), field(cell.name), field(cell.value), field(cell.kind),
                                 field(cell.unit), "true" if cell.defaulted else "false",
                                 field(" ".join(map(str, cell.sources))), tail)) + "\r\n")
        text = "".join(out)
        with _LINES_LOCK:
            _LINES[key] = (sheet, text)
        write(text)
    return buf.getvalue().encode("utf-8")


def _known_hashes(hashes: Mapping[int, str]) -> Mapping[int, str]:
    """The hashes a history holds as a plain mapping already read (a seeded history's read so far; a gathered
    one's dict), for lookups without a call each; a position missing there is asked of ``hashes``."""
    if isinstance(hashes, dict):
        return hashes
    if isinstance(hashes, StoredHashes):
        return hashes.known()
    return {}


def entries_csv(history: History, country: str | None = None, turns: tuple[int, int] | None = None) -> bytes:
    """``to_csv("entries", rows(history, "entries", ...))``, byte for byte: the texts through the csv writer once
    per distinct value (``_csv_field``), the numbers and the hashes (hex: never quoted) as they are. An entry's
    line is kept by the entry's object (``_ENTRY_LINES``): a live campaign's download after an append writes
    the new entries' lines and the corrections', not a country's ~8,500 lines on the 300,000-event campaign."""
    check_country(history, country)
    scratch = io.StringIO(newline="")
    field = _csv_field(csv.writer(scratch, lineterminator="\r\n"), scratch)
    buf = io.StringIO(newline="")
    csv.writer(buf, lineterminator="\r\n").writerow(COLUMNS["entries"])
    campaign, hashes = history.campaign, history.hashes

    def text(r: Mapping[str, Any]) -> str:
        time = r["time"]
        return ",".join((field(r["campaign"]), field(r["position"]), field(r["kind"]), field(r["corrects"]),
                         field(r["turn"]), field(r["country"]), field(r["line"]), field(r["title"]),
                         field(r["amount"]), field(r["reason"]), field(r["actor"]),
                         field(time.isoformat() if hasattr(time, "isoformat") else time),
                         field(r["visible_to"]), r["hash"])) + "\r\n"

    out = []
    for e, row in _entry_rows(history, country, turns):
        if row is not None:
            out.append(text(row))
            continue
        key = (id(e), campaign)
        with _ENTRY_LINES_LOCK:
            found = _ENTRY_LINES.get(key)
        if found is None or found[0] is not e:
            row = _entry_row(campaign, e, hashes)
            found = (e, text(row))
            if row["hash"]:  # an entry whose hash is not read yet is written again next time
                with _ENTRY_LINES_LOCK:
                    _ENTRY_LINES[key] = found
        out.append(found[1])
    buf.write("".join(out))
    return buf.getvalue().encode("utf-8")


def wide_csv(history: History, country: str | None = None, turns: tuple[int, int] | None = None) -> bytes:
    """``to_csv("ers-wide", wide_rows(...))``, byte for byte, from each sheet's line kept by the sheet object (as
    ``ers_csv``'s): a country's wide ERS on the 300,000-event campaign is ~300 lines of ~95 cells, ~100 ms to
    write afresh here; after an append only the changed sheets' lines are."""
    check_country(history, country)
    cols = columns("ers-wide")
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(cols)
    parts = [buf.getvalue()]
    for c, t, sheet, lines in _sheets(history, country, turns):
        key = ("wide", id(sheet), history.campaign, c, t)
        with _LINES_LOCK:
            found = _LINES.get(key)
        if found is None or found[0] is not sheet:
            row = _wide_row(history.campaign, c, t, sheet, lines)
            buf.seek(0)
            buf.truncate()
            writer.writerow([_cell(row.get(name), kind) for name, kind in cols.items()])
            found = (sheet, buf.getvalue())
            with _LINES_LOCK:
                _LINES[key] = found
        parts.append(found[1])
    return "".join(parts).encode("utf-8")


#: ``entries_csv``'s line of an entry, by the entry's object (kept alive here, so its id is not reused) and the
#: campaign's name the line starts with: an entry never changes once recorded (a correction is a row of its
#: own), nor does its event's hash. Bounded by the characters kept.
_ENTRY_LINES: LRUCache[tuple[int, str], tuple[Any, str]] = LRUCache(16 * 2**20, getsizeof=lambda v: len(v[1]))
_ENTRY_LINES_LOCK = threading.Lock()  # the routes run in a thread pool
#: ``ers_csv``'s lines of a sheet, by the sheet object (kept alive here, so its id is not reused): a sheet never
#: changes once computed, and the hashes its lines name are those of events, which never change either. A live
#: campaign's export after an append takes every sheet but the changed ones from here (a country's ERS on the
#: 300,000-event campaign: ~300 sheets, 13 MB, ~150 ms to write afresh). Bounded by the characters kept.
_LINES: LRUCache[tuple[Any, ...], tuple[Any, str]] = LRUCache(64 * 2**20, getsizeof=lambda v: len(v[1]))
_LINES_LOCK = threading.Lock()  # the routes run in a thread pool
#: ``sheet_lineage``'s, by the sheet object (kept alive here): a few hundred bytes per sheet, ~300 sheets per
#: country and audience on the 300,000-event campaign.
_LINEAGE: LRUCache[int, tuple[Any, dict[str, tuple[int, ...]]]] = LRUCache(4096)
#: ``ers_parquet``'s record batch of a sheet, by the sheet object (kept alive here), bounded by Arrow's bytes.
_BATCHES: LRUCache[tuple[Any, ...], tuple[Any, Any]] = LRUCache(64 * 2**20, getsizeof=lambda v: v[1].nbytes)


def to_json(rows: Iterable[Mapping[str, Any]]) -> bytes:
    return orjson.dumps(list(rows), default=str)


def ers_json(history: History, country: str | None = None, turns: tuple[int, int] | None = None,
             include_defaulted: bool = False) -> bytes:
    """``to_json(rows(history, "ers", ...))``, byte for byte, from each sheet's rows as JSON text kept by the sheet
    object (as ``ers_csv``'s lines): a JSON array's text is its items' texts joined by commas. A country's long
    ERS on the 300,000-event campaign is ~28,000 rows; after an append only the changed sheets are written."""
    check_country(history, country)
    parts = []
    for c, t in _sheet_keys(history, country, turns):
        sheet = history.budget.sheet(c, t)
        if sheet is None or sheet.cells is None:
            continue
        key = ("json", id(sheet), history.campaign, c, t, include_defaulted)
        with _LINES_LOCK:
            found = _LINES.get(key)
        if found is None or found[0] is not sheet:
            found = (sheet, orjson.dumps([r for r in _sheet_rows(history, c, t, sheet, sheet_lineage(sheet))
                                          if include_defaulted or not r["defaulted"]], default=str)[1:-1])
            with _LINES_LOCK:
                _LINES[key] = found
        if found[1]:
            parts.append(found[1])
    return b"[" + b",".join(parts) + b"]"


def document(history: History, tables: Iterable[str] = ("ers", "entries", "inflation", "stability", "victory"),
             country: str | None = None, turns: tuple[int, int] | None = None, include_defaulted: bool = False
             ) -> dict[str, Any]:
    """Every table in one JSON document."""
    return {"campaign": history.campaign, "position": history.position, "countries": list(history.countries),
            "turns": history.turns,
            "tables": {t: list(rows(history, t, country, turns, include_defaulted)) for t in tables}}


def _arrow_schema(table: str) -> Any:
    import pyarrow as pa

    types = {"text": pa.string(), "int": pa.int64(), "bool": pa.bool_(), "number": pa.float64(),
             "ints": pa.list_(pa.int64()), "texts": pa.list_(pa.string())}
    return pa.schema([(name, types[kind]) for name, kind in columns(table).items()])


def _parquet(table: Any) -> bytes:
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()


def to_parquet(table: str, rows: Iterable[Mapping[str, Any]]) -> bytes:
    """One Parquet file; lists as list columns, victory points as doubles."""
    import pyarrow as pa

    rows = rows if isinstance(rows, list) else list(rows)
    data = {name: [float(num(v)) if v is not None else None for v in (r.get(name) for r in rows)]
            if kind == "number" else [r.get(name) for r in rows] for name, kind in columns(table).items()}
    return _parquet(pa.table(data, schema=_arrow_schema(table)))


def ers_parquet(history: History, country: str | None = None, turns: tuple[int, int] | None = None,
                include_defaulted: bool = False) -> bytes:
    """``to_parquet("ers", rows(history, "ers", ...))``, cell for cell, from each sheet's columns built from its
    cells (no row dicts) and kept as a record batch by the sheet object (as ``ers_csv``'s lines)."""
    import pyarrow as pa

    check_country(history, country)
    schema, batches = _arrow_schema("ers"), []
    for c, t in _sheet_keys(history, country, turns):
        sheet = history.budget.sheet(c, t)
        if sheet is None or sheet.cells is None:
            continue
        key = (id(sheet), history.campaign, c, t, include_defaulted)
        with _LINES_LOCK:
            found = _BATCHES.get(key)
        if found is None or found[0] is not sheet:
            lines, get = sheet_lineage(sheet), history.hashes.get
            kept = [(code, cell) for code, cell in sheet.cells.items() if include_defaulted or not cell.defaulted]
            n = len(kept)
            data = [[history.campaign] * n, [c] * n, [t] * n, [code for code, _ in kept],
                    [cell.name for _, cell in kept], [cell.value for _, cell in kept], [cell.kind for _, cell in kept],
                    [cell.unit for _, cell in kept], [cell.defaulted for _, cell in kept],
                    [list(cell.sources) for _, cell in kept], [list(lines[code]) for code, _ in kept],
                    [[get(p, "") for p in lines[code]] for code, _ in kept]]
            found = (sheet, pa.record_batch([pa.array(values, type=f.type) for values, f in zip(data, schema)],
                                            schema=schema))
            with _LINES_LOCK:
                _BATCHES[key] = found
        batches.append(found[1])
    return _parquet(pa.Table.from_batches(batches, schema=schema))


def encode(table: str, fmt: str, rows: Iterable[Mapping[str, Any]]) -> bytes:
    check_format(fmt)
    if fmt == "xlsx":
        return table_xlsx(table, rows)
    if fmt == "csv":
        return to_csv(table, rows)
    if fmt == "json":
        return to_json(rows)
    return to_parquet(table, rows)


def filename(campaign: str, table: str, fmt: str, country: str | None = None,
             turns: tuple[int, int] | None = None) -> str:
    parts = [campaign, table]
    if country:
        parts.append(country)
    if turns is not None:
        parts.append(f"turns{turns[0]}-{turns[1]}")
    return "-".join(parts) + "." + fmt


# --------------------------------------------------------------------------- spreadsheets

SHEET_TITLES = {"A": "Sheet A · Royal Treasury", "B": "Sheet B · Income and expenses", "C": "Sheet C · Loans"}


def _plain_cell(value: Any, kind: str) -> Any:
    if kind in ("ints", "texts"):
        return " ".join(str(v) for v in value or ())
    if kind == "number" and value is not None:
        n = num(value)
        return int(n) if n.denominator == 1 else float(n)
    return value


def _table_sheet(book: xlsx.Workbook, title: str, table: str, rows: Iterable[Mapping[str, Any]]) -> None:
    ws = book.sheet(title, freeze="A2")
    cols = columns(table)
    ws.append(list(cols), "bold")
    names = list(cols)
    converted = [(i, kind) for i, kind in enumerate(cols.values()) if kind in ("ints", "texts", "number")]
    every = operator.itemgetter(*names)  # a row with every column (an entries row): its values in one C call
    for r in rows:
        try:
            values = every(r)
        except KeyError:
            values = tuple(map(r.get, names))
        if converted:  # lists and exact numbers; the rest as they are (``_plain_cell``)
            values = list(values)
            for i, kind in converted:
                values[i] = _plain_cell(values[i], kind)
        ws.append(values)


def table_xlsx(table: str, rows: Iterable[Mapping[str, Any]]) -> bytes:
    """One table as a one-worksheet workbook (the ERS workbook is ``to_xlsx``)."""
    book = xlsx.Workbook()
    _table_sheet(book, table, table, rows)
    return book.save()


#: A cell's comment lists at most this many events (a line can gather hundreds): the entries sheet has them all.
COMMENT_EVENTS = 25


def _said(e: Mapping[str, Any] | None, position: int) -> str:
    """One event behind a cell, as a line of its comment."""
    if e is None:
        return f"#{position} the scenario's starting treasury or a closed phase"
    who = f" ({e['actor']})" if e.get("actor") else ""
    if e["type"] == "TreasuryEntryRecorded":
        return f"#{position} {e['amount']:+d} · {e['reason']}{who}"
    change = words.plain(e["replacement"]) if isinstance(e.get("replacement"), dict) else "struck out"
    return f"#{position} correction of #{e['corrects']}: {change} · {e['reason']}{who}"


#: ``words.formula`` of each ERS formula, worked out once: a workbook names the same few dozen formulas in
#: thousands of cells (a derived line's, every turn), and each is parsed to be put in words.
_formula_words = functools.lru_cache(maxsize=1024)(words.formula)


def cell_comment(cell: Any, events: Mapping[int, Mapping[str, Any]]) -> str | None:
    """What a worksheet cell's comment says: the events behind an entered amount, or a derived one's formula."""
    if cell.events:
        shown = [_said(events.get(p), p) for p in cell.events[:COMMENT_EVENTS]]
        more = len(cell.events) - COMMENT_EVENTS
        return "\n".join(["From:", *shown, *([f"and {more} more: see the entries sheet"] if more > 0 else [])])
    if cell.kind == "derived" and cell.formula:
        return _worked_out(cell.formula)
    return None


@functools.lru_cache(maxsize=1024)
def _worked_out(formula: str) -> str:
    return f"Worked out as {_formula_words(formula)}"


#: ``cell_comment`` of an entered amount, by campaign and the positions it lists: the events there never change,
#: and an audience's cell names only events it may see (a hidden entry's country's sheets are computed from what
#: the audience sees), so the same positions read the same. An ERS workbook has ~4,000 such comments per country.
_SAID: LRUCache[tuple[Any, ...], str] = LRUCache(1 << 16)


def _comments(campaign: str, cells: list[Any], events: Mapping[int, Mapping[str, Any]]
              ) -> list[tuple[int, str, int, int]]:
    """A worksheet row's comments (column, text, width, height) for its cells from the third column on."""
    said = []
    for i, cell in enumerate(cells, 2):
        if cell is None:
            continue
        if cell.events:
            key = (campaign, cell.events)
            with _LINES_LOCK:
                text = _SAID.get(key)
            if text is None:
                text = cell_comment(cell, events)
                with _LINES_LOCK:
                    _SAID[key] = text
        elif cell.kind == "derived" and cell.formula:
            text = _worked_out(cell.formula)
        else:
            continue
        said.append((i, text, 420, min(60 + 18 * text.count("\n"), 480)))
    return said


def to_xlsx(history: History, country: str | None = None, turns: tuple[int, int] | None = None) -> bytes:
    """The ERS workbook: per country a worksheet laid out like sheets A, B and C (a row per line, a column
    per turn; derived amounts in italics), then the entries and corrections."""
    book = xlsx.Workbook()
    events = {e["position"]: e for e in entries_of(history.entries, country)}
    defn = ers_definition()
    wanted = _turns(history, turns)
    width = 2 + len(wanted)
    derived = [None, None, *["italic"] * len(wanted)]
    for c in _countries(history, country):
        ws = book.sheet(c, freeze="C3")
        fetch_sheets(history.budget, c, wanted)
        sheets = {t: history.budget.sheet(c, t) for t in wanted}
        ws.append([f"{history.campaign} · {c} · Economic Record Sheet"], "title")
        ws.append(["line", "title", *[f"turn {t}" for t in wanted]], "bold")
        errors = [f"turn {t}: {s.error['message']}" for t, s in sheets.items() if s and s.cells is None and s.error]
        maps = [s.cells if s is not None and s.cells is not None else {} for s in sheets.values()]
        letter = None
        for d in defn.lines:
            if d.sheet != letter:
                letter = d.sheet
                ws.append([SHEET_TITLES.get(letter, f"Sheet {letter}"), *[None] * (width - 1)], "band")
            cells = [m.get(d.code) for m in maps]
            ws.append([d.code, d.name, *[cell.value if cell is not None else None for cell in cells]],
                      derived if d.kind == "derived" else None, _comments(history.campaign, cells, events))
        for message in errors:
            ws.append([])
            ws.append(["cannot be worked out", message])
        ws.column_width(2, 48)
    _table_sheet(book, "entries", "entries", entry_rows(history, country, turns))
    return book.save()
