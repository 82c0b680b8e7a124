"""``ledger map move|owner|svg``: a stack's move along its path (checked against the board), the map drawn."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ledger.cli.base import Actor, ActorOpt, KeyOpt, cid_of, emit, ledger_app, out
from ledger.domain.commands import ChangeOwner, MoveStack, build

map_app = typer.Typer(help="Record moves on the map; draw the map.", no_args_is_help=True)


@map_app.command("move")
def map_move(
    campaign: str,
    stack: str,
    origin: str,
    destination: str,
    via: Annotated[Optional[list[str]], typer.Option("--via", help="A place passed through; repeat in order")] = None,
    reason: Annotated[str, typer.Option(help="Why (recorded in the event)")] = "movement",
    forced_reason: Annotated[Optional[str], typer.Option(
        help="Record the move although the board or the map refuses a step (game master; recorded as forced)")] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Move STACK from ORIGIN to DESTINATION; each step must share a border on the board."""
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(MoveStack, stack=stack, origin=origin, via=via or [], destination=destination, reason=reason,
                        forced_reason=forced_reason)
        emit(ledger.handle(cid, command, actor=Actor(actor, "gm"), idempotency_key=key).to_json())


@map_app.command("owner")
def map_owner(
    campaign: str,
    province: str,
    owner: str,
    previous: Annotated[Optional[str], typer.Option(help="The owner before (a country of the campaign)")] = None,
    reason: Annotated[str, typer.Option(help="Why (a treaty, an annexation)")] = "ownership",
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Record that PROVINCE now belongs to OWNER (who controls it is another event: POST .../map/control)."""
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(ChangeOwner, province=province, owner=owner, previous=previous, reason=reason)
        emit(ledger.handle(cid, command, actor=Actor(actor, "gm"), idempotency_key=key).to_json())


@map_app.command("svg")
def map_svg(
    campaign: str,
    output: Annotated[Path, typer.Option("--out", help="Where to write the SVG")],
    at: Annotated[Optional[int], typer.Option(help="Position N (default: the head)")] = None,
) -> None:
    """Draw the map as of position N (as a game master sees it) into an SVG file."""
    from projections import read, replay, svg  # the CLI is the write side's one door to the read side
    from projections.runner import Projector

    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        state = ledger.campaign(cid)
        n = state.version if at is None else at
        projector = Projector(ledger)
        projector.catch_up()
        doc = replay.state_at(ledger, projector.db, cid, n)["map"]
        record = read.records(ledger, cid, n - 1, n)[0] if n else None
        board = (ledger.scenario(cid) or {}).get("board")
        output.write_text(svg.render(doc, record, board=board, title=state.name), encoding="utf-8")
        out.print(f"map as of position {n} written to {output}")
