"""The ``ledger`` Typer app, built here and only here from the topic modules' commands and sub-apps.

The topic modules import ``ledger.cli.base`` only; this module imports them all,
and nothing in ``ledger/cli/`` imports this module (``ledger/cli/__init__.py``
loads it when ``app`` or ``main`` is first asked for).
"""

from __future__ import annotations

import sys

from functools import partial
from typing import Annotated, Optional

import typer

from ledger import i18n
from ledger.cli import (access, audit, backup, base, campaigns, economy, export, income, map, notify, pace,
                        projections, records, remote, service, trade, turns)

app = typer.Typer(help="Event-sourced ledger for hex-and-counter wargames.", no_args_is_help=True,
                  pretty_exceptions_enable=False)



@app.callback()
def _remote(
    server: Annotated[Optional[str], typer.Option(
        "--server", envvar="LEDGER_SERVER", help="A served ledger's address (https://...): the commands are sent "
                                                 "to it over HTTP instead of written into a local store")] = None,
    token: Annotated[Optional[str], typer.Option(
        "--token", envvar="LEDGER_TOKEN", help="Your token on that server (a game master's, or the operator's)")]
    = None,
    lang: Annotated[Optional[str], typer.Option(
        "--lang", envvar="LEDGER_LANG", help="The language of the messages: en (the default) or fr")] = None,
) -> None:
    base.REMOTE.set(partial(remote.connected, server, token or None) if server else None)
    # Explicit only (--lang, LEDGER_LANG), not the shell's LANG: a script's output does not change with the
    # locale of the machine it runs on.
    i18n.use(i18n.known(lang) or i18n.DEFAULT)


# Top-level commands, in the order `ledger --help` lists them.
for name, command in [
    ("ers", economy.ers),
    ("publish-sheets", economy.publish_sheets),
    ("project", projections.project),
    ("rebuild", projections.rebuild),
    ("state", projections.state),
    ("replay", projections.replay_cmd),
    ("scenario", projections.scenario_import),
    ("export", export.export_cmd),
    ("chart", export.chart_cmd),
    ("serve", service.serve),
    ("migrate", service.migrate),
    ("sample", service.sample),
    ("roll", turns.roll),
    ("treasury", records.treasury),
    ("correct", records.correct),
    ("whatif", records.whatif),
    ("events", audit.events),
    ("verify", audit.verify),
    ("audit", audit.audit),
    ("sign-head", audit.sign_head),
    ("recompute", audit.recompute),
    ("procedures", audit.procedures),
    ("resolve", audit.resolve),
    ("openapi", service.openapi),
    ("backup", backup.backup), ("restore", backup.restore),
    ("ready", pace.ready),
    ("report", pace.report),
    ("mark-read", pace.mark_read),
]:
    # ``ledger treasury CAMPAIGN FRA A9 -5``: a negative amount is the amount, not an unknown option.
    app.command(name, context_settings={"ignore_unknown_options": True} if name == "treasury" else None)(command)

# Command groups.
for name, group in [
    ("campaign", campaigns.campaign_app),
    ("turn", turns.turn_app),
    ("dice", turns.dice_app),
    ("ruling", records.ruling_app),
    ("phase", economy.phase_app),
    ("token", access.token_app),
    ("map", map.map_app),
    ("trade", trade.trade_app),
    ("income", income.income_app),
    ("notify", notify.notify_app),
    ("deadlines", pace.deadlines_app),
]:
    app.add_typer(group, name=name)


def main() -> None:  # pragma: no cover
    sys.exit(app())
