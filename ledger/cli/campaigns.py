"""``ledger campaign create|settings|list``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.table import Table

from ledger.cli.base import Actor, ActorOpt, KeyOpt, cid_of, emit, escape, fail, ledger_app, out
from ledger.domain.campaign import campaign_id
from ledger.domain.commands import ChangeSettings, CreateCampaign, build

campaign_app = typer.Typer(help="Create and list campaigns.", no_args_is_help=True)


@campaign_app.command("create")
def campaign_create(
    slug: str,
    name: Annotated[str, typer.Option()],
    country: Annotated[Optional[list[str]], typer.Option(
        "--country", help="Repeat per country, e.g. --country FRA (without --scenario)")] = None,
    scenario: Annotated[Optional[str], typer.Option(
        help="A shipped scenario (eu-1492, sample-real, sample): its board, countries, provinces and stacks")] = None,
    board: Annotated[Optional[str], typer.Option(
        help="Without --scenario: the ruleset's board (eu) the rulings are checked against")] = None,
    ruleset: Annotated[str, typer.Option()] = "eu",
    player: Annotated[Optional[list[str]], typer.Option("--player", help="COUNTRY=name")] = None,
    ers_visibility: Annotated[str, typer.Option("--ers-visibility", help="Who sees a treasury entry recorded "
                                                "without a visibility: country (its own country and the game "
                                                "masters) or public")] = "country",
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    players: dict[str, str] = {}
    for p in player or []:
        who, sep, holder = p.partition("=")
        if not sep:
            fail("player", f"{p!r}: COUNTRY=name")
        players[who] = holder
    with ledger_app() as ledger:
        command = build(CreateCampaign, slug=slug, name=name, ruleset=ruleset, scenario=scenario, board=board,
                        countries=country or [], players=players, settings={"ers_visibility": ers_visibility})
        r = ledger.handle(campaign_id(command.slug), command, actor=Actor(actor, "gm"), idempotency_key=key)
        emit(r.to_json())


@campaign_app.command("settings")
def campaign_settings(
    campaign: str,
    players_may_roll: Annotated[Optional[bool], typer.Option(
        "--players-may-roll/--no-players-may-roll", help="Players may roll server dice and record rulings")] = None,
    reason: Annotated[str, typer.Option(help="Why (recorded in the event)")] = "",
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Change a campaign's settings (recorded as CampaignSettingsChanged); without options, show them."""
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        if players_may_roll is None:
            emit(ledger.campaign(cid).settings)
            return
        command = build(ChangeSettings, settings={"players_may_roll": players_may_roll}, reason=reason)
        emit(ledger.handle(cid, command, actor=Actor(actor, "gm"), idempotency_key=key).to_json())


@campaign_app.command("list")
def campaign_list() -> None:
    with ledger_app() as ledger:
        table = Table("slug", "name", "ruleset", "countries", "turn", "events")
        for c in ledger.campaigns():
            turn = f"{c.turn} ({'open' if c.turn_open else 'closed'})" if c.turn else "-"
            table.add_row(escape(c.slug), escape(c.name), escape(f"{c.ruleset} {c.ruleset_version}"),
                          escape(" ".join(c.countries)), turn, str(c.version))
        out.print(table)
