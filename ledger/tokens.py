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

from ledger import access
from ledger.application import Actor, Appended, Draft, Ledger
from ledger.domain import events as ev
from ledger.domain.errors import CampaignNotFound, EventNotFound, InvalidInput, LedgerError, StateConflict

PREFIX = "lt_"
GM_ONLY = {"scope": "gm"}


class TokenNotFound(LedgerError):
    status = 404


@dataclass(frozen=True)
class TokenGrant:
    """What a valid token grants: an actor in one campaign."""

    campaign: UUID
    token_id: str
    actor: Actor


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
    return TokenGrant(cid, record["id"], Actor(record["holder"], record["role"], record["country"]))


def admin_matches(configured: str | None, token: str) -> bool:
    return bool(configured) and hmac.compare_digest(configured.encode(), token.encode())  # type: ignore[union-attr]


def issue_token(
    ledger: Ledger,
    cid: UUID,
    *,
    role: str,
    country: str | None = None,
    holder: str | None = None,
    actor: Actor,
    idempotency_key: str | None = None,
) -> tuple[Appended, str | None]:
    """Issue a token; returns the append result and the raw token (None on an idempotent replay)."""
    if role not in access.ROLES:
        raise InvalidInput(f"role must be one of {', '.join(access.ROLES)}, not {role!r}", field="role")
    if role == "player" and not country:
        raise InvalidInput("a player's token names their country", field="country")
    if role != "player" and country:
        raise InvalidInput(f"only a player's token names a country (role {role})", field="country")
    if holder is not None and not holder.strip():
        raise InvalidInput("holder must not be empty", field="holder")
    raw = new_token(cid)
    sha = digest(raw)

    def command(d: Draft) -> dict[str, Any]:
        if country is not None:
            d.state.require_country(country)
        name = (holder or "").strip() or (d.state.players.get(country, "") if country else "") or role
        token = {"token_id": sha[:16], "role": role, "country": country, "holder": name}
        d.add(ev.TokenIssued, GM_ONLY, sha256=sha, **token)
        return token

    request = {"issue_token": {"role": role, "country": country, "holder": holder}}
    result = ledger.execute(cid, actor, command, idempotency_key=idempotency_key, request=request)
    return result, None if result.replayed else raw


def revoke_token(
    ledger: Ledger, cid: UUID, token_id: str, *, reason: str, actor: Actor, idempotency_key: str | None = None
) -> Appended:
    reason = reason.strip()
    if not reason:
        raise InvalidInput("reason must not be empty", field="reason")

    def command(d: Draft) -> dict[str, Any]:
        if not any(t["id"] == token_id for t in d.state.tokens.values()):
            raise TokenNotFound(f"no live token {token_id!r} in this campaign", field="token_id")
        d.add(ev.TokenRevoked, GM_ONLY, token_id=token_id, reason=reason)
        return {"token_id": token_id, "revoked": True}

    request = {"revoke_token": token_id, "reason": reason}
    return ledger.execute(cid, actor, command, idempotency_key=idempotency_key, request=request)


def live_tokens(ledger: Ledger, cid: UUID) -> list[dict[str, Any]]:
    """The campaign's live tokens (never the secrets, nor their hashes)."""
    return [{k: t[k] for k in ("id", "role", "country", "holder")} for t in ledger.campaign(cid).tokens.values()]


def reveal(
    ledger: Ledger, cid: UUID, position: int, *, reason: str, actor: Actor, idempotency_key: str | None = None
) -> Appended:
    """Make a hidden event public from now on (a new event: the original is never changed)."""
    reason = reason.strip()
    if not reason:
        raise InvalidInput("reason must not be empty", field="reason")
    try:
        target = ledger.event_at(cid, position)
    except EventNotFound:
        raise InvalidInput(f"position {position} is not in the history", field="position") from None
    if not access.revealable(target):
        raise StateConflict(f"a {type(target).__name__} stays visible to game masters only", field="position")
    if (target.visibility or {}).get("scope", "public") == "public":
        raise StateConflict(f"the event at position {position} is already public", field="position")

    def command(d: Draft) -> dict[str, Any]:
        if position in d.state.revealed:
            raise StateConflict(f"the event at position {position} was already revealed", field="position")
        d.add(ev.VisibilityRevealed, revealed=position, reason=reason)
        return {"revealed": position}

    request = {"reveal": position, "reason": reason}
    return ledger.execute(cid, actor, command, idempotency_key=idempotency_key, request=request)
