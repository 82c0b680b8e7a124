"""``ledger income propose`` and ``ledger income confirm``: the lines the board works out, and the game master's
confirmation (issue 36)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.table import Table

from ledger.cli.base import Actor, ActorOpt, KeyOpt, cid_of, emit, escape, fail, in_words, ledger_app, out
from ledger.domain.commands import ConfirmIncome, build

income_app = typer.Typer(help="The income and upkeep lines the board works out, and their confirmation.",
                         no_args_is_help=True)


@income_app.command("propose")
def propose(
    campaign: str,
    country: Annotated[Optional[list[str]], typer.Option(
        "--country", help="Repeat per country (default: every country)")] = None,
    at: Annotated[Optional[int], typer.Option(help="A position (default: the head)")] = None,
) -> None:
    """Print each country's proposed lines with their lineage (what confirm would record)."""
    from projections.income import proposal_answer

    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        state = ledger.campaign(cid)
        docs = [proposal_answer(ledger, cid, Actor("gm", "gm"), state, c, at) for c in country or state.countries]
        if not in_words():
            emit(docs)
            return
        for doc in docs:
            t = Table(title=escape(f"{doc['country']} · turn {doc['turn']} · worked out at position "
                                   f"{doc['position']}"), title_justify="left")
            t.add_column("Line", style="bold")
            t.add_column("Ducats", justify="right")
            t.add_column("From")
            confirmed = (doc["confirmed"] or {}).get("lines", {})
            for x in doc["lines"]:
                mark = f" (confirmed {confirmed[x['line']]})" if x["line"] in confirmed else ""
                t.add_row(escape(x["line"]), f"{x['computed']}{mark}", escape(x["words"].split(": ", 1)[-1]))
            out.print(t)
            for u in doc["unresolved"]:
                out.print(escape(f"  {u['line']} is typed by hand: {u['why']}"), soft_wrap=True)
            if doc["stale"]:
                out.print(f"[yellow]{escape(doc['stale'])}[/yellow]", soft_wrap=True)
        out.print(escape(f"To record: ledger income confirm {campaign} --position {state.version}"), soft_wrap=True)


@income_app.command("confirm")
def confirm(
    campaign: str,
    position: Annotated[int, typer.Option(help="The position the proposal was read at (`income propose` says it)")],
    country: Annotated[Optional[list[str]], typer.Option(
        "--country", help="Repeat per country (default: every country)")] = None,
    keep: Annotated[Optional[list[str]], typer.Option(
        help="COUNTRY.LINE=AMOUNT:why, a line kept at another value than the board's (repeat)")] = None,
    actor: ActorOpt = "gm",
    key: KeyOpt = None,
) -> None:
    """Record the proposed lines of the open turn as treasury entries (one event per country)."""
    kept: dict[str, dict[str, dict[str, object]]] = {}
    for text in keep or ():
        where, sep, rest = text.partition("=")
        amount, sep2, why = rest.partition(":")
        who, dot, line = where.partition(".")
        if not (sep and sep2 and dot and why.strip()):
            fail("--keep", f"{text!r}: COUNTRY.LINE=AMOUNT:why (e.g. POR.B1=32:the revolt was over)")
        try:
            value = int(amount)
        except ValueError:
            fail("--keep", f"{amount!r} is not a whole number of ducats")
        kept.setdefault(who.strip(), {})[line.strip()] = {"amount": value, "reason": why.strip()}
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        fields = {"position": position, **({"countries": country} if country else {}), **({"kept": kept} if kept else {})}
        emit(ledger.handle(cid, build(ConfirmIncome, **fields), actor=Actor(actor, "gm"), idempotency_key=key).to_json())
