"""``ledger campaign create|settings|list``."""

from __future__ import annotations

import json
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
    start: Annotated[bool, typer.Option("--start/--no-start", help="With --scenario eu-1492: record the economic "
                                        "facts of its placement (domestic trade, vassals, trade fleets...) or "
                                        "start blank")] = True,
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
                        countries=country or [], players=players, settings={"ers_visibility": ers_visibility},
                        start=start)
        r = ledger.handle(campaign_id(command.slug), command, actor=Actor(actor, "gm"), idempotency_key=key)
        emit(r.to_json())


@campaign_app.command("settings")
def campaign_settings(
    campaign: str,
    players_may_roll: Annotated[Optional[bool], typer.Option(
        "--players-may-roll/--no-players-may-roll", help="Players may roll server dice and record rulings")] = None,
    ers_visibility: Annotated[Optional[str], typer.Option(
        "--ers-visibility", help="Who sees a treasury entry recorded from now on without a visibility: country "
                                 "or public (entries already recorded keep theirs)")] = None,
    players_may_move: Annotated[Optional[bool], typer.Option(
        "--players-may-move/--no-players-may-move",
        help="Players may move, split, merge and reinforce their own stacks and start sieges with them")] = None,
    rules_option: Annotated[Optional[list[str]], typer.Option(
        "--rules-option", help="A ruleset option, CODE.field=value (e.g. M21.artillery_source=tables); repeatable; "
                               "`ledger procedures RULESET --where` lists them")] = None,
    time_zone: Annotated[Optional[str], typer.Option(
        "--time-zone", help="The campaign's time zone, an IANA name (Europe/Paris): deadlines are typed in it")]
    = None,
    close_when_all_ready: Annotated[Optional[bool], typer.Option(
        "--close-when-all-ready/--no-close-when-all-ready",
        help="Close the phase the turn is in as soon as every country is marked ready")] = None,
    reason: Annotated[str, typer.Option(help="Why (recorded in the event)")] = "",
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Change a campaign's settings (recorded as CampaignSettingsChanged); without options, show them."""
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        changed: dict[str, object] = {k: v for k, v in (
            ("players_may_roll", players_may_roll), ("players_may_move", players_may_move),
            ("ers_visibility", ers_visibility), ("time_zone", time_zone),
            ("close_when_all_ready", close_when_all_ready)) if v is not None}
        if rules_option:
            changed["rules_options"] = dict(_option(o) for o in rules_option)
        if not changed:
            emit(ledger.campaign(cid).settings)
            return
        command = build(ChangeSettings, settings=changed, reason=reason)
        emit(ledger.handle(cid, command, actor=Actor(actor, "gm"), idempotency_key=key).to_json())


def _option(text: str) -> tuple[str, object]:
    """``M21.artillery_source=tables`` → ("M21.artillery_source", "tables"); true/false are booleans; a reading
    of the income lines whose value is a number, a list or a table is read as JSON (``B7.mine_value=30``,
    ``B19.prices={"sl": 2, "sp": 5}``)."""
    from ledger.economy.board_income import readings

    key, sep, value = text.partition("=")
    if not sep or not key or not value:
        fail("rules_option", f"{text!r}: write CODE.field=value")
    if not isinstance(readings("eu").get(key, ""), (bool, str)):
        try:
            return key, json.loads(value)
        except ValueError:
            fail("rules_option", f"{text!r}: write {key}'s value as 30, [\"Revolt\", \"Pillage+\"] or {{\"sl\": 2}}")
    return key, {"true": True, "false": False}.get(value, value)


@campaign_app.command("list")
def campaign_list() -> None:
    with ledger_app() as ledger:
        table = Table("slug", "name", "ruleset", "countries", "turn", "events")
        for c in ledger.campaigns():
            turn = f"{c.turn} ({'open' if c.turn_open else 'closed'})" if c.turn else "-"
            table.add_row(escape(c.slug), escape(c.name), escape(f"{c.ruleset} {c.ruleset_version}"),
                          escape(" ".join(c.countries)), turn, str(c.version))
        out.print(table)
