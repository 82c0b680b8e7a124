"""``ledger export`` and ``ledger chart``: the economic history as files (projections/export.py, charts.py)."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn

from ledger.cli.base import cid_of, err, escape, fail, ledger_app

ALL = "all"


def _history(campaign: str, show_progress: bool) -> Any:
    """Read the campaign once (as the ledger itself: everything), with a progress bar on stderr if asked."""
    from ledger.domain.actors import SYSTEM
    from projections.history import gather

    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        head = ledger.campaign(cid).version
        bar = Progress(TextColumn("export {task.description}"), BarColumn(), MofNCompleteColumn(),
                       TaskProgressColumn(), console=Console(stderr=True, force_terminal=True)) \
            if show_progress else nullcontext()
        with bar:
            if show_progress:
                task = bar.add_task("reading events", total=head)
                return gather(ledger, cid, SYSTEM, lambda n: bar.update(task, advance=n))
            return gather(ledger, cid, SYSTEM)


def export_cmd(
    campaign: str,
    fmt: Annotated[str, typer.Option("--format", help="csv, json, parquet or xlsx (a workbook: sheets A, B, C "
                                     "per country and the entries)")] = "csv",
    table: Annotated[str, typer.Option("--table", help="ers, entries, inflation, stability, victory, or all")] = ALL,
    shape: Annotated[str, typer.Option("--shape", help="ERS shape: long (a row per line) or wide (a column "
                                       "per line)")] = "long",
    country: Annotated[Optional[str], typer.Option("--country", help="Only this country")] = None,
    turns: Annotated[Optional[str], typer.Option("--turns", help="A..B, A.., ..B or A")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="File (one table, or JSON of all); directory "
                                                "(CSV/Parquet of all: one file per table); default stdout")] = None,
    include_defaulted: Annotated[bool, typer.Option("--include-defaulted", help="ERS: also the lines nothing "
                                                    "was entered on (their default, mostly 0)")] = False,
    progress: Annotated[Optional[bool], typer.Option("--progress/--no-progress", help="Progress bar on stderr "
                                                     "(default: when stderr is a terminal)")] = None,
) -> None:
    """Export the ERS of every country and turn, and the inflation, stability and victory histories."""
    from ledger.domain.errors import InvalidInput
    from projections import export

    if fmt not in export.FORMATS:
        fail("format", f"{fmt!r}: one of {', '.join(export.FORMATS)}")
    if shape not in ("long", "wide"):
        fail("shape", f"{shape!r}: long or wide")
    names = ("ers", "entries", "inflation", "stability", "victory") if table == ALL else (table,)
    if table != ALL and table not in export.TABLES:
        fail("table", f"{table!r}: one of {', '.join(export.TABLES)} or all")
    names = tuple("ers-wide" if n == "ers" and shape == "wide" else n for n in names)
    split = len(names) > 1 and fmt != "json"  # CSV and Parquet: one file per table
    if split and out is None:
        fail("out", "CSV or Parquet of every table: --out DIRECTORY (one file per table), or choose --table")
    if fmt in ("parquet", "xlsx") and out is None:
        fail("out", f"{fmt} is binary: --out FILE")
    workbook = fmt == "xlsx" and (table == ALL or names[0] in ("ers", "ers-wide"))
    if workbook:
        split = False
    show = progress if progress is not None else sys.stderr.isatty()
    history = _history(campaign, show)
    try:
        export.check_country(history, country)
        span = export.parse_turns(turns, history.turns) if turns else None
    except InvalidInput as e:
        fail(e.field or "input", e.message)
    if workbook:
        _write(out, export.to_xlsx(history, country, span))
        err.print(escape(f"workbook: {out} ({', '.join(history.countries if country is None else [country])}"
                         " and the entries)"))
        return
    if fmt == "json" and len(names) > 1:
        import orjson

        _write(out, orjson.dumps(export.document(history, names, country, span, include_defaulted)))
        return
    if split:
        out.mkdir(parents=True, exist_ok=True)
    for name in names:
        data = export.encode(name, fmt, export.rows(history, name, country, span, include_defaulted))
        _write(out / export.filename(history.campaign, name, fmt, country, span) if split else out, data)
        if split:
            err.print(escape(f"{name}: {out / export.filename(history.campaign, name, fmt, country, span)}"))


def _write(path: Optional[Path], data: bytes) -> None:
    if path is None:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        path.write_bytes(data)


def chart_cmd(
    campaign: str,
    kind: Annotated[str, typer.Argument(help="treasury, income, inflation, victory or ers")],
    out: Annotated[Path, typer.Option("--out", help="FILE.svg or FILE.png")],
    country: Annotated[Optional[str], typer.Option("--country", help="Only this country (ers: required)")] = None,
    turns: Annotated[Optional[str], typer.Option("--turns", help="A..B, A.., ..B or A")] = None,
) -> None:
    """Draw a chart of the economic history (format from the file's suffix)."""
    from ledger.domain.errors import InvalidInput
    from projections import charts, export

    fmt = out.suffix.lstrip(".").lower()
    if fmt not in charts.FORMATS:
        fail("out", f"{out.name}: the file ends in .svg or .png")
    if kind not in charts.KINDS:
        fail("kind", f"{kind!r}: one of {', '.join(charts.KINDS)}")
    history = _history(campaign, False)
    try:
        span = export.parse_turns(turns, history.turns) if turns else None
        chart = charts.chart_series(history, kind, country, span)
    except InvalidInput as e:
        fail(e.field or "input", e.message)
    out.write_bytes(charts.render(chart, fmt))
    err.print(escape(f"{kind}: {out} ({len(chart.series)} series)"))
