"""``ledger ers`` and ``ledger phase close``: the sheet as it looks on paper, and the sequence of play."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.table import Table

from ledger.cli.base import Actor, ActorOpt, KeyOpt, cid_of, emit, err, escape, ledger_app, out
from ledger.domain.commands import ClosePhase, PublishSheets, build
from ledger.economy.sheets import Cell, Sheet

phase_app = typer.Typer(help="Close the phases of the open turn, in the sequence of play.", no_args_is_help=True)

SHEETS = {"A": "Sheet A — Royal Treasury", "B": "Sheet B — Income and expenses", "C": "Sheet C — Loans"}


def ers(campaign: str, country: str, turn: int,
        as_json: Annotated[bool, typer.Option("--json", help="The sheet as JSON, with lineage")] = False) -> None:
    """Print COUNTRY's Economic Record Sheet of TURN, sheets A, B and C."""
    from ledger.domain.errors import InvalidInput
    from ledger.economy.sheets import sheet_json
    from projections.economy import campaign_budget

    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        state = ledger.campaign(cid)
        state.require_country(country)
        if not 1 <= turn <= state.turn:
            raise InvalidInput(f"turn {turn} has not been opened (current turn {state.turn})", field="turn")
        sheet = campaign_budget(ledger, cid).sheet(country, turn)
        assert sheet is not None  # every opened turn of a campaign country has one
        if as_json:
            emit(sheet_json(sheet))
            return
        for table in paper_tables(sheet, state.name or state.slug):
            out.print(table)
        if sheet.unbooked:
            out.print("[yellow]entries the sheet could not take:[/yellow]")
            for u in sheet.unbooked:
                out.print(escape(f"  {u['line']} {u['amount']:+d} (positions {u['positions']}): {u['reason']}"))
        if sheet.error:
            err.print(f"[red]sheet not computable:[/red] {escape(str(sheet.error['message']))}")
            raise typer.Exit(1)


def paper_tables(sheet: Sheet, campaign: str) -> list[Table]:
    """Three tables laid out like the printed sheets: the percentage in its box beside the amount."""
    if sheet.cells is None:
        return []
    cells = sheet.cells
    phases = ", ".join(sheet.phases_closed) or "none"
    tables = []
    for letter, title in SHEETS.items():
        t = Table(title=escape(f"{sheet.country} · turn {sheet.turn} · {title}"),
                  caption=escape(f"{campaign} — phases closed: {phases}") if letter == "C" else None,
                  title_justify="left", show_lines=False)
        t.add_column("Line", justify="right", style="bold")
        t.add_column("Name")
        t.add_column("%", justify="right")
        t.add_column("Ducats", justify="right")
        t.add_column("From")
        for c in cells.values():
            if c.sheet != letter or c.code.endswith("_pct"):
                continue
            pct = cells.get(f"{c.code}_pct")
            t.add_row(escape(c.code), escape(c.name), f"{pct.value}%" if pct else "", _amount(c),
                      escape(_origin(c, pct)), style="bold" if c.code in ("A8", "A13", "A25", "A31", "A33") else None)
        tables.append(t)
    return tables


def _amount(c: Cell) -> str:
    text = f"{c.ticks} × {c.value // c.ticks if c.ticks else 0} = {c.value}" if c.ticks else str(c.value)
    if c.alert:
        text = f"[red]{text}[/red]"
    if c.at_close and not c.at_close["matches"]:
        text += f" [yellow](was {c.at_close['value']} at close)[/yellow]"
    return text


def _origin(c: Cell, pct: Cell | None) -> str:
    positions = list(c.events) + (list(pct.events) if pct else [])
    if c.kind == "entered" and positions:
        return "entered #" + ", #".join(str(p) for p in positions)
    from projections.words import formula

    if c.kind == "entered" and c.defaulted and c.formula and c.formula != "0":
        return f"default {formula(c.formula)}"
    if c.kind == "entered":
        return ""
    return f"= {formula(c.formula)}" if c.formula else ""


def publish_sheets(
    campaign: str, turn: int,
    country: Annotated[Optional[list[str]], typer.Option(
        "--country", help="Repeat per country, e.g. --country FRA (default: every country)")] = None,
    reason: Annotated[Optional[str], typer.Option(help="Why (recorded in the event)")] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Publish TURN's ERS sheets: every player sees their entries from now on (it cannot be taken back)."""
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        fields = {"turn": turn, **({"countries": country} if country else {}), **({"reason": reason} if reason else {})}
        command = build(PublishSheets, **fields)
        emit(ledger.handle(cid, command, actor=Actor(actor, "gm"), idempotency_key=key).to_json())


@phase_app.command("close")
def phase_close(campaign: str, phase: str,
                actor: ActorOpt = "gm",
                key: Annotated[Optional[str], typer.Option("--idempotency-key")] = None) -> None:
    """Close PHASE of the open turn (events, diplomacy, incomes, military, redeployment, exchequer, peace,
    interphase), in order and once."""
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(ClosePhase, phase=phase)
        emit(ledger.handle(cid, command, actor=Actor(actor), idempotency_key=key).to_json())
