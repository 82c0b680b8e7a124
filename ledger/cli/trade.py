"""``ledger trade ...``: a country's trade and rest-of-the-world facts on the board (issue 36) from plain
arguments: trade fleets, trade centres, colonies and trading posts, missions."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ledger.cli.base import Actor, ActorOpt, KeyOpt, given, pair_of, record, scalar
from ledger.domain.commands import ChangeEstablishment, ChangeMission, ChangeTradeCentre, ChangeTradeFleet

trade_app = typer.Typer(help="Record trade fleets, trade centres, colonies, trading posts and missions.",
                        no_args_is_help=True)
ReasonOpt = Annotated[Optional[str], typer.Option(help="Why (recorded in the event)")]


@trade_app.command("fleet")
def trade_fleet(campaign: str, country: str, zone: str, level: int, reason: ReasonOpt = None,
                actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    """COUNTRY's trade fleet in ZONE ("STZ Canarias", "CTZ France") is now at LEVEL (0: none)."""
    record(campaign, ChangeTradeFleet, Actor(actor, "gm"), key,
           **given(country=country, zone=zone, level=level, reason=reason))


@trade_app.command("centre")
def trade_centre(campaign: str, centre: str,
                 holder: Annotated[Optional[str], typer.Argument(help="Who holds it now (leave out: nobody)")] = None,
                 province: Annotated[Optional[str], typer.Option(help="Where its counter stands")] = None,
                 income: Annotated[Optional[int], typer.Option(help="The Great Orient centre's income")] = None,
                 reason: ReasonOpt = None, actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    """CENTRE (great_orient, atlantic, mediterranean, indian_ocean) is now held by HOLDER."""
    record(campaign, ChangeTradeCentre, Actor(actor, "gm"), key,
           **given(centre=centre, province=province, income=income, reason=reason), holder=holder)


def _exploits(pairs: list[str] | None) -> dict[str, object]:
    return {res: scalar(n) for res, n in (pair_of(p, "--exploits") for p in pairs or ())}


@trade_app.command("establishment")
def trade_establishment(
    campaign: str, country: str,
    kind: Annotated[str, typer.Argument(help="colony or trading_post")],
    place: str, level: int,
    exploits: Annotated[Optional[list[str]], typer.Option(
        "--exploits", help="RESOURCE=UNITS exploited (board codes: sl, sp, fur...); repeat for each")] = None,
    gold: Annotated[bool, typer.Option("--gold", help="A colony exploiting the province's gold mine")] = False,
    reason: ReasonOpt = None, actor: ActorOpt = "gm", key: KeyOpt = None,
) -> None:
    """COUNTRY's colony or trading post in PLACE (a rest-of-the-world province) is now at LEVEL (0: gone)."""
    record(campaign, ChangeEstablishment, Actor(actor, "gm"), key,
           **given(country=country, kind=kind, place=place, level=level, exploits=_exploits(exploits), gold=gold,
                   reason=reason))


@trade_app.command("mission")
def trade_mission(campaign: str, country: str, place: str,
                  gone: Annotated[bool, typer.Option("--gone", help="The mission is gone instead")] = False,
                  reason: ReasonOpt = None, actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    """COUNTRY founds a mission in PLACE (a rest-of-the-world province)."""
    record(campaign, ChangeMission, Actor(actor, "gm"), key,
           **given(country=country, place=place, present=not gone, reason=reason))
