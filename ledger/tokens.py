"""Campaign access tokens and visibility reveals, recorded as events of the campaign.

Why events rather than a table: a token's issue and revocation are facts of
the campaign (who could act, from when to when), so they belong in its audit
trail, hash-chained like everything else; the write-side state
(``CampaignState.tokens``, keyed by sha256) is the index, and it is refreshed
from the history on every request, so a revocation takes effect at once on
every server process. Both events are GM-only and never revealable.

A token is ``lt_<campaign id, 32 hex>_<32 random bytes, base64url>``: the
campaign part routes the lookup to one campaign's state (and lets a request to
another campaign be refused with 403); only ``sha256(token)`` is stored. The
raw token is returned once, by the request that issued it; an idempotent
replay of that request returns the same record without the secret.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from ledger.application import Actor, Appended, Ledger
from ledger.domain.campaign import CampaignState
from ledger.domain.commands import IssueToken, build
from ledger.domain.errors import CampaignNotFound, TokenNotFound

PREFIX = "lt_"
__all__ = ["TokenNotFound"]  # raised by the use cases (ledger/usecases/access.py)


@dataclass(frozen=True)
class TokenGrant:
    """What a valid token grants: an actor in one campaign."""

    campaign: UUID
    token_id: str
    actor: Actor
    state: CampaignState | None = None  # the campaign's state the token was checked against (at its head)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token(cid: UUID) -> str:
    return f"{PREFIX}{cid.hex}_{secrets.token_urlsafe(32)}"


def token_campaign(token: str) -> UUID | None:
    """The campaign a well-formed token names, or None."""
    if not token.startswith(PREFIX) or len(token) > 200:
        return None
    head, sep, _ = token[len(PREFIX):].partition("_")
    if not sep or len(head) != 32:
        return None
    try:
        return UUID(hex=head)
    except ValueError:
        return None


def authenticate(ledger: Ledger, token: str) -> TokenGrant | None:
    """The grant of a live token, or None for a malformed, unknown or revoked one."""
    cid = token_campaign(token)
    if cid is None:
        return None
    try:
        state = ledger.campaign(cid)  # refreshed from the history: revocations count at once
    except CampaignNotFound:
        return None
    record = state.tokens.get(digest(token))
    if record is None:
        return None
    return TokenGrant(cid, record["id"], Actor(record["holder"], record["role"], record["country"], record["id"]), state)


def admin_matches(configured: str | None, token: str) -> bool:
    return bool(configured) and hmac.compare_digest(configured.encode(), token.encode())  # type: ignore[union-attr]


def issue_token(
    ledger: Ledger, cid: UUID, command: IssueToken | None = None, *, actor: Actor, idempotency_key: str | None = None,
    **fields: Any,
) -> tuple[Appended, str | None]:
    """Issue a token (``command``, or its fields); returns the append result and the raw token (None on an
    idempotent replay): the secret is made here, outside the command, so a retry hashes the same request."""
    command = command or build(IssueToken, **fields)  # type: ignore[assignment]
    raw = new_token(cid)
    result = ledger.handle(cid, command, actor=actor, idempotency_key=idempotency_key, sha256=digest(raw))
    return result, None if result.replayed else raw


def live_tokens(ledger: Ledger, cid: UUID) -> list[dict[str, Any]]:
    """The campaign's live tokens (never the secrets, nor their hashes)."""
    return [{k: t[k] for k in ("id", "role", "country", "holder")} for t in ledger.campaign(cid).tokens.values()]
