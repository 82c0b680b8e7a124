"""``ledger ruling record``, ``ledger treasury``, ``ledger correct``: what a game master records."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ledger.cli.base import Actor, ActorOpt, KeyOpt, cid_of, emit, ledger_app, parse_json
from ledger.domain.commands import RecordCorrection, RecordRuling, RecordTreasuryEntry, build

ruling_app = typer.Typer(help="Record rulings.", no_args_is_help=True)


@ruling_app.command("record")
def ruling_record(
    campaign: str,
    procedure: str,
    inputs: Annotated[str, typer.Option(help="JSON object of the procedure's inputs")] = "{}",
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Resolve a procedure with server dice and record the ruling."""
    data = parse_json(inputs, "inputs")
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(RecordRuling, procedure=procedure, inputs=data)
        emit(ledger.handle(cid, command, actor=Actor(actor, "gm"), idempotency_key=key).to_json())


def treasury(
    campaign: str,
    country: str,
    line: str,
    amount: int,
    reason: Annotated[str, typer.Option()],
    turn: Annotated[Optional[int], typer.Option()] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Record a treasury entry on an ERS line (e.g. A9 35 --reason 'looting')."""
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(RecordTreasuryEntry, country=country, line=line, amount=amount, reason=reason, turn=turn)
        emit(ledger.handle(cid, command, actor=Actor(actor, "gm"), idempotency_key=key).to_json())


def correct(
    campaign: str,
    position: int,
    reason: Annotated[str, typer.Option()],
    replacement: Annotated[Optional[str], typer.Option(help="JSON of the corrected content")] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Record a correction of the event at POSITION (the original stays)."""
    repl = parse_json(replacement, "replacement") if replacement else None
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(RecordCorrection, corrects=position, reason=reason, replacement=repl)
        emit(ledger.handle(cid, command, actor=Actor(actor, "gm"), idempotency_key=key).to_json())
