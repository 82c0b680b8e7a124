"""Exports as the release before the fast writers wrote them, kept as the reference they are compared with: the
ERS and table workbooks as openpyxl wrote them (tests/integration/test_export_xlsx_fast.py), the entries table's
rows and the Parquet files (tests/integration/test_export_fast.py)."""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from typing import Any

from ledger.rules.eu.ers import ers_definition
from projections.export import SHEET_TITLES, _countries, _plain_cell, _title, _turns, _visible_to, cell_comment, columns
from projections.history import History
from projections.records import num


def _workbook() -> Any:
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)  # every worksheet is named by what it holds
    return book


def _save(book: Any) -> bytes:
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _table_sheet(book: Any, title: str, table: str, rows: Iterable[Mapping[str, Any]]) -> None:
    from openpyxl.styles import Font

    ws = book.create_sheet(title)
    cols = columns(table)
    ws.append(list(cols))
    for cell in ws[1]:
        cell.font = Font(bold=True)
    for r in rows:
        ws.append([_plain_cell(r.get(name), kind) for name, kind in cols.items()])
    ws.freeze_panes = "A2"


def table_xlsx(table: str, rows: Iterable[Mapping[str, Any]]) -> bytes:
    """One table as a one-worksheet workbook (the ERS workbook is ``to_xlsx``)."""
    book = _workbook()
    _table_sheet(book, table, table, rows)
    return _save(book)


def to_xlsx(history: History, country: str | None = None, turns: tuple[int, int] | None = None) -> bytes:
    """The ERS workbook: per country a worksheet laid out like sheets A, B and C (a row per line, a column
    per turn; derived amounts in italics), then the entries and corrections."""
    from openpyxl.comments import Comment
    from openpyxl.styles import Font, PatternFill

    book = _workbook()
    events = {e["position"]: e for e in history.entries}
    bold, italic = Font(bold=True), Font(italic=True, color="555555")
    band = PatternFill("solid", fgColor="E8E8E2")
    defn = ers_definition()
    wanted = _turns(history, turns)
    for c in _countries(history, country):
        ws = book.create_sheet(c)
        sheets = {t: history.budget.sheet(c, t) for t in wanted}
        ws.append([f"{history.campaign} · {c} · Economic Record Sheet"])
        ws["A1"].font = Font(bold=True, size=13)
        ws.append(["line", "title", *[f"turn {t}" for t in wanted]])
        for cell in ws[2]:
            cell.font = bold
        errors = [f"turn {t}: {s.error['message']}" for t, s in sheets.items() if s and s.cells is None and s.error]
        letter = None
        for d in defn.lines:
            if d.sheet != letter:
                letter = d.sheet
                ws.append([SHEET_TITLES.get(letter, f"Sheet {letter}")])
                for cell in ws[ws.max_row]:
                    cell.font, cell.fill = bold, band
            cells = [sheets[t].cells.get(d.code) if sheets[t] is not None and sheets[t].cells is not None else None
                     for t in wanted]
            ws.append([d.code, d.name, *[cell.value if cell is not None else None for cell in cells]])
            for written, cell in zip(ws[ws.max_row][2:], cells):
                if d.kind == "derived":
                    written.font = italic
                said = cell_comment(cell, events) if cell is not None else None
                if said:
                    written.comment = Comment(said, "ledger", width=420, height=min(60 + 18 * said.count("\n"), 480))
        for message in errors:
            ws.append([])
            ws.append(["cannot be worked out", message])
        ws.column_dimensions["B"].width = 48
        ws.freeze_panes = "C3"
    _table_sheet(book, "entries", "entries", entry_rows(history, country, turns))
    return _save(book)


def entry_rows(history: History, country: str | None = None, turns: tuple[int, int] | None = None
               ) -> Iterator[dict[str, Any]]:
    """Every treasury entry and correction of one, as the caller sees them, in order."""
    first, last = turns if turns is not None else (0, history.turns)
    current: dict[int, dict[str, Any]] = {}  # entry position -> its fields as last corrected
    for e in history.entries:
        if e["type"] == "TreasuryEntryRecorded":
            fields = {k: e[k] for k in ("turn", "country", "line", "amount")}
            current[e["position"]] = fields
            kind, corrects = "entry", None
        else:
            corrects = e["corrects"]
            replacement = e["replacement"] if isinstance(e["replacement"], dict) else None
            fields = {**current[corrects], **(replacement or {})} if replacement else {**current[corrects],
                                                                                         "amount": None}
            current[corrects] = fields
            kind = "correction"
        if country is not None and fields["country"] != country:
            continue
        if not first <= (fields["turn"] or 0) <= last:
            continue
        yield {"campaign": history.campaign, "position": e["position"], "kind": kind, "corrects": corrects,
               **fields, "title": _title(fields["line"]), "reason": e["reason"], "actor": e["actor"],
               "time": e["time"], "visible_to": _visible_to(e["visibility"]),
               "hash": history.hashes.get(e["position"], "")}


def to_parquet(table: str, rows: Iterable[Mapping[str, Any]]) -> bytes:
    """One Parquet file; lists as list columns, victory points as doubles."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {"text": pa.string(), "int": pa.int64(), "bool": pa.bool_(), "number": pa.float64(),
             "ints": pa.list_(pa.int64()), "texts": pa.list_(pa.string())}
    cols = columns(table)
    data: dict[str, list[Any]] = {name: [] for name in cols}
    for r in rows:
        for name, kind in cols.items():
            v = r.get(name)
            data[name].append(float(num(v)) if kind == "number" and v is not None else v)
    schema = pa.schema([(name, types[kind]) for name, kind in cols.items()])
    out = io.BytesIO()
    pq.write_table(pa.table(data, schema=schema), out)
    return out.getvalue()
