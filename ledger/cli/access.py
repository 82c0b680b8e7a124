"""``ledger token issue|list|revoke``: a campaign's access tokens, as the operator."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ledger.cli.base import Actor, ActorOpt, KeyOpt, cid_of, emit, ledger_app
from ledger.domain.commands import IssueToken, RevokeToken, build

token_app = typer.Typer(help="Issue, list and revoke a campaign's access tokens (as the operator).",
                        no_args_is_help=True)


@token_app.command("issue")
def token_issue(
    campaign: str,
    role: Annotated[str, typer.Option(help="gm, player or observer")],
    country: Annotated[Optional[str], typer.Option(help="The player's country")] = None,
    holder: Annotated[Optional[str], typer.Option(help="Who holds it")] = None,
    actor: ActorOpt = "admin",
    key: KeyOpt = None,
) -> None:
    """Issue a token and print it once (only its sha256 is stored)."""
    from ledger import tokens

    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(IssueToken, role=role, country=country, holder=holder)
        if hasattr(ledger, "issue_token"):  # a served ledger (--server): the service makes the secret
            emit(ledger.issue_token(cid, command, key))
            return
        result, raw = tokens.issue_token(ledger, cid, command, actor=Actor(actor, "admin"), idempotency_key=key)
        emit({**result.to_json(), "token": raw})


@token_app.command("list")
def token_list(campaign: str) -> None:
    """The live tokens: ids, roles, countries, holders (never the secrets)."""
    from ledger import tokens

    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        emit(ledger.live_tokens(cid) if hasattr(ledger, "live_tokens") else tokens.live_tokens(ledger, cid))


@token_app.command("revoke")
def token_revoke(campaign: str, token_id: str, reason: Annotated[str, typer.Option()],
                 actor: ActorOpt = "admin", key: KeyOpt = None) -> None:
    """Revoke a token at once (by its id, from `ledger token list`)."""
    with ledger_app() as ledger:
        cid = cid_of(ledger, campaign)
        command = build(RevokeToken, token_id=token_id, reason=reason)
        emit(ledger.handle(cid, command, actor=Actor(actor, "admin"), idempotency_key=key).to_json())
