"""``ledger turn open|close``, ``ledger roll``, ``ledger dice verify``: turns and their dice."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ledger.cli.base import Actor, ActorOpt, KeyOpt, cid_of, emit, escape, ledger_app, out, parse_ints
from ledger.domain.commands import CloseTurn, OpenTurn, RollDice, build

turn_app = typer.Typer(help="Open and close turns (dice commitment and reveal).", no_args_is_help=True)
dice_app = typer.Typer(help="Verify the dice of a closed turn.", no_args_is_help=True)


@turn_app.command("open")
def turn_open(campaign: str, actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        emit(ledger.handle(cid, build(OpenTurn), actor=Actor(actor, "gm"), idempotency_key=key).to_json())


@turn_app.command("close")
def turn_close(
    campaign: str,
    turn: Annotated[int, typer.Argument(help="The turn to close: refused unless it is the open one")],
    out_of_sequence: Annotated[Optional[str], typer.Option(
        "--out-of-sequence", help="Game master: close it although some phases are open (why; recorded)")] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Close the open turn once its eight phases are closed (the sequence of play), revealing its dice seed."""
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(CloseTurn, turn=turn, **({"out_of_sequence": out_of_sequence} if out_of_sequence else {}))
        emit(ledger.handle(cid, command, actor=Actor(actor, "gm"), idempotency_key=key).to_json())


def roll(
    campaign: str,
    purpose: Annotated[str, typer.Option()],
    sides: Annotated[int, typer.Option()] = 10,
    count: Annotated[int, typer.Option()] = 1,
    manual: Annotated[Optional[str], typer.Option(help="Physical dice, comma-separated, e.g. 3,5")] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Roll server dice (or record physical ones with --manual)."""
    values = parse_ints(manual, "manual") if manual else None
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        if values is not None:
            command = build(RollDice, purpose=purpose, sides=sides, values=values)
        else:
            command = build(RollDice, purpose=purpose, sides=sides, count=count)
        emit(ledger.handle(cid, command, actor=Actor(actor, "gm"), idempotency_key=key).to_json())


@dice_app.command("verify")
def dice_verify(campaign: str, turn: int) -> None:
    """Recompute every server roll of a closed turn from its revealed seed."""
    with ledger_app() as ledger:
        report = ledger.verify_dice(cid_of(ledger, campaign), turn)
    for problem in report.mismatches:
        out.print(f"[red]MISMATCH[/red] {escape(problem)}")
    if not report.ok:
        raise typer.Exit(1)
    out.print(f"turn {turn}: {report.checked} server rolls verified, {report.manual} physical rolls (not derivable)")
