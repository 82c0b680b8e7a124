"""``ledger deadlines set|clear|show|tick``, ``ledger ready``, ``ledger report``, ``ledger mark-read``: the pace of a
turn and "since you last looked" (issue 38; ledger/domain/pace.py, projections/catchup.py)."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Annotated, Literal, Optional

import typer

from ledger.cli.base import REMOTE, Actor, ActorOpt, KeyOpt, cid_of, emit, escape, fail, ledger_app, out, record
from ledger.domain.pace import ClearDeadline, MarkAsRead, MarkReady, SetDeadline, parse_before

deadlines_app = typer.Typer(help="Deadlines of the turn's phases, their reminders, and who is ready.",
                            no_args_is_help=True)


@deadlines_app.command("set")
def deadline_set(
    campaign: str,
    phase: Annotated[str, typer.Argument(help="The phase (events, diplomacy, incomes, military, ...)")],
    due: Annotated[str, typer.Argument(help="When, in the campaign's time zone: \"2026-12-01 20:00\"")],
    remind: Annotated[Optional[str], typer.Option(
        help="Reminders before the deadline, comma-separated: 24h,2h (d, h, m)")] = None,
    reason: Annotated[Optional[str], typer.Option(help="Why (recorded)")] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Set or move a phase's deadline; the players not ready are reminded at the times chosen before it."""
    try:
        reminders = [parse_before(x) for x in remind.split(",")] if remind else []
    except ValueError as e:
        fail("remind", str(e))
    record(campaign, SetDeadline, Actor(actor, "gm"), key, phase=phase, due=due, reminders=reminders,
           **({"reason": reason} if reason else {}))


@deadlines_app.command("clear")
def deadline_clear(campaign: str, phase: str, reason: Annotated[str, typer.Option(help="Why (recorded)")],
                   actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    """Clear a phase's deadline (its reminders go with it)."""
    record(campaign, ClearDeadline, Actor(actor, "gm"), key, phase=phase, reason=reason)


@deadlines_app.command("show")
def deadline_show(campaign: str, tz: Annotated[Optional[str], typer.Option(
        help="Your time zone (an IANA name); the campaign's by default")] = None) -> None:
    """The phase the turn is in, its deadline, who is ready, who is not, who is late."""
    from projections.catchup import pace_words, reader_zone

    with ledger_app() as ledger:
        state = ledger.campaign(cid_of(ledger, campaign))
    try:
        zone_name = reader_zone(state, tz)
    except ValueError as e:
        fail("tz", str(e))
    words = pace_words(state, zone_name, datetime.now(UTC))
    out.print(escape(words["line"]), soft_wrap=True)
    for k, v in words["rows"]:
        out.print(escape(f"  {k}: {v}"), soft_wrap=True)


@deadlines_app.command("tick")
def deadline_tick() -> None:
    """Record the reminders due now in every campaign, once each (for cron; the service does it every minute)."""
    from ledger.deadlines import tick

    with ledger_app() as ledger:
        appended = tick(ledger)
        for a in appended:
            emit(a.to_json())
    if not appended:
        out.print("No reminder is due.")


def ready(
    campaign: str,
    country: Annotated[str, typer.Argument(help="The country ready for the phase the turn is in")],
    not_ready: Annotated[bool, typer.Option("--not", help="Not ready after all")] = False,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Mark a country ready (or not) for the phase the turn is in (with --server and a player's token: theirs)."""
    record(campaign, MarkReady, Actor(actor, "gm"), key, ready=not not_ready, country=country)


def mark_read(campaign: str, up_to: Annotated[int, typer.Argument(help="The last position read")],
              actor: ActorOpt = "gm", key: KeyOpt = None) -> None:
    """Mark the campaign read up to a position: ``ledger report`` starts after it next time."""
    record(campaign, MarkAsRead, Actor(actor, "gm"), key, up_to=up_to)


def report(
    campaign: str,
    since: Annotated[Optional[int], typer.Option(help="From this position on (default: where you marked read)")]
    = None,
    format: Annotated[str, typer.Option("--format", help="md (Markdown) or text")] = "md",  # noqa: A002
    tz: Annotated[Optional[str], typer.Option(help="Your time zone (an IANA name)")] = None,
    country: Annotated[Optional[str], typer.Option(help="As that country's player sees it (default: the game "
                                                        "master, who sees everything)")] = None,
    observer: Annotated[bool, typer.Option(help="As an observer sees it (public events only)")] = False,
    mine: Annotated[bool, typer.Option(help="With --country: only what touches that country")] = False,
    origin: Annotated[str, typer.Option(help="The site's address, before the links")] = "",
    actor: ActorOpt = "gm",
) -> None:
    """What changed since you last looked, as a turn report to paste in a forum or an e-mail."""
    from projections import catchup

    if REMOTE.get() is not None:
        fail("server", "ledger report reads a local store: ask the service with GET /campaigns/{campaign}/report")
    if format not in ("md", "text"):
        fail("format", f"format is md or text, not {format!r}")
    kind: Literal["md", "text"] = "md" if format == "md" else "text"
    with ledger_app() as ledger:
        state = ledger.campaign(cid_of(ledger, campaign))
        if country is not None:
            state.require_country(country, "country")
        reader = (Actor(actor, "player", country) if country else Actor(actor, "observer") if observer
                  else Actor(actor, "gm"))
        if since is not None and not 0 <= since <= state.version:
            fail("since", f"position {since} is not in the history (it ends at {state.version})")
        try:
            zone_name = catchup.reader_zone(state, tz)
        except ValueError as e:
            fail("tz", str(e))
        c = catchup.catch_up(ledger, state, reader, since=since, zone_name=zone_name, mine=mine)
    sys.stdout.write(catchup.markdown(c, origin) if kind == "md" else catchup.text(c, origin))
