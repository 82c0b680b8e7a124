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

The web page's login never puts the token in its cookie: it opens a session, ``ls_<campaign id>_<random>``,
recorded like a token (``SessionOpened``: its sha256, the token it stands for, when it expires; GM-only), so a
logout (``SessionEnded``), the token's revocation or the expiry ends it on every server process, and a copied
cookie dies with it. The admin, who has no campaign to record in, gets a cookie signed with the admin token
(``la_<expiry>_<random>_<HMAC>``): it expires, and changing ``LEDGER_ADMIN_TOKEN`` ends every such login.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from ledger.application import Actor, Appended, Ledger
from ledger.domain.campaign import CampaignState
from ledger.domain.commands import IssueToken, OpenSession, build
from ledger.domain.errors import CampaignNotFound, TokenNotFound

PREFIX = "lt_"
SESSION_PREFIX = "ls_"
ADMIN_SESSION_PREFIX = "la_"
__all__ = ["TokenNotFound"]  # raised by the use cases (ledger/usecases/access.py)


@dataclass(frozen=True)
class TokenGrant:
    """What a valid token grants: an actor in one campaign."""

    campaign: UUID
    token_id: str
    actor: Actor
    state: CampaignState | None = None  # the campaign's state the token was checked against (at its head)
    session_id: str | None = None  # the web page's login it came through (``SessionOpened``), if any


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token(cid: UUID) -> str:
    return f"{PREFIX}{cid.hex}_{secrets.token_urlsafe(32)}"


def token_campaign(token: str, prefix: str = PREFIX) -> UUID | None:
    """The campaign a well-formed token (or session, ``prefix``) names, or None."""
    if not token.startswith(prefix) or len(token) > 200:
        return None
    head, sep, _ = token[len(prefix):].partition("_")
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


# ------------------------------------------------------------------ the web page's logins


def log_in(ledger: Ledger, raw: str, admin_token: str | None, hours: int) -> str | None:
    """The web page's login cookie for ``raw`` (the admin token or a live campaign token), or None."""
    if admin_matches(admin_token, raw):
        return admin_session(admin_token, hours)  # type: ignore[arg-type]
    grant = authenticate(ledger, raw) if raw else None
    return open_session(ledger, grant, hours) if grant is not None else None


def open_session(ledger: Ledger, grant: TokenGrant, hours: int, now: datetime | None = None) -> str:
    """Record a login with ``grant``'s token; returns the session string for the cookie (its only copy)."""
    raw = f"{SESSION_PREFIX}{grant.campaign.hex}_{secrets.token_urlsafe(32)}"
    ledger.handle(grant.campaign, OpenSession(hours=hours), actor=grant.actor, sha256=digest(raw),
                  now=now or datetime.now(UTC))
    return raw


def session_grant(ledger: Ledger, raw: str, now: datetime | None = None) -> TokenGrant | None:
    """The grant of a live login: None once it is ended, expired, or its token revoked (or it is malformed)."""
    cid = token_campaign(raw, SESSION_PREFIX)
    if cid is None:
        return None
    try:
        state = ledger.campaign(cid)
    except CampaignNotFound:
        return None
    session = state.sessions.get(digest(raw))
    if session is None or datetime.fromisoformat(session["expires_at"]) <= (now or datetime.now(UTC)):
        return None
    record = next((t for t in state.tokens.values() if t["id"] == session["token_id"]), None)
    if record is None:
        return None
    actor = Actor(record["holder"], record["role"], record["country"], record["id"])
    return TokenGrant(cid, record["id"], actor, state, session["id"])


def _admin_mac(configured: str, expires: str, nonce: str) -> str:
    return hmac.new(configured.encode(), f"ledger-admin-session|{expires}|{nonce}".encode(), hashlib.sha256).hexdigest()


def admin_session(configured: str, hours: int, now: datetime | None = None) -> str:
    """The admin's login cookie: an expiry and a nonce, signed with the admin token (never the token itself)."""
    expires = str(int(((now or datetime.now(UTC)) + timedelta(hours=hours)).timestamp()))
    nonce = secrets.token_urlsafe(16)
    return f"{ADMIN_SESSION_PREFIX}{expires}_{nonce}_{_admin_mac(configured, expires, nonce)}"


def admin_session_valid(configured: str | None, raw: str, now: datetime | None = None) -> bool:
    if not configured or not raw.startswith(ADMIN_SESSION_PREFIX) or len(raw) > 200:
        return False
    expires, _, rest = raw[len(ADMIN_SESSION_PREFIX):].partition("_")
    nonce, _, mac = rest.rpartition("_")
    if not expires.isdigit() or not nonce:
        return False
    if not hmac.compare_digest(mac.encode(), _admin_mac(configured, expires, nonce).encode()):
        return False
    return int(expires) > (now or datetime.now(UTC)).timestamp()
