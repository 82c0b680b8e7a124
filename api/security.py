"""Who is calling: ``Authorization: Bearer <token>`` to a ``Caller``.

- the admin token (``LEDGER_ADMIN_TOKEN``): role ``admin`` on every campaign;
- a campaign token (``ledger/tokens.py``): its role in its own campaign;
- the web page's login (``api/routes/web.py``) sets the ``ledger_token`` cookie to a session standing for
  either of them (``ledger/tokens.py``: never the token itself), for reads, and for writes under ``/ui/``
  only (CSRF-checked forms);
- no token: 401, except in local development (``LEDGER_ENV=development`` with no
  admin token configured) for a client on 127.0.0.1 or ::1, which acts as the
  admin named by ``X-Ledger-Actor`` (the behaviour before tokens existed).
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from ledger import tokens
from ledger.application import Actor, Ledger
from ledger.config import Settings
from ledger.domain.errors import Forbidden, Unauthorized

LOOPBACK = frozenset({"127.0.0.1", "::1"})
BEARER_HEADER = "Authorization"
#: The web page's login cookie (api/routes/web.py: HttpOnly, SameSite=Strict): a session standing for a token.
TOKEN_COOKIE = "ledger_token"


@dataclass(frozen=True)
class Caller:
    actor: Actor
    campaign: UUID | None  # the token's campaign; None: every campaign (admin, local development)
    token_id: str | None = None


def open_development(settings: Settings) -> bool:
    """Whether callers without a token are let in (from loopback only)."""
    return settings.env == "development" and not settings.admin_token


async def authenticate(request: Request, settings: Settings, ledger: Ledger) -> Caller:
    header = request.headers.get("authorization")
    cookie = request.cookies.get(TOKEN_COOKIE)
    # The cookie counts for reads, and for writes only under /ui/ (whose forms carry a CSRF token): the
    # API's writes keep requiring the header, so a browser cannot be made to send one with its cookie.
    if header is None and cookie and (request.method in ("GET", "HEAD") or request.url.path.startswith("/ui/")):
        return await _logged_in(request, settings, ledger, cookie)
    if header is None:
        client = request.client.host if request.client else ""
        if open_development(settings) and client in LOOPBACK:
            name = (request.headers.get("x-ledger-actor") or "local")[:100]
            return Caller(Actor(name, "admin"), None)
        raise Unauthorized("a bearer token is required (Authorization: Bearer <token>)", field=BEARER_HEADER)
    scheme, _, raw = header.partition(" ")
    raw = raw.strip()
    if scheme.lower() != "bearer" or not raw:
        raise Unauthorized("the Authorization header must be 'Bearer <token>'", field=BEARER_HEADER)
    if tokens.admin_matches(settings.admin_token, raw):
        return Caller(Actor("admin", "admin"), None)
    # A campaign token is checked against the campaign's head: a store round trip (and on SQLite a wait for any
    # writer of this process), so off the event loop, which would otherwise stall every request of the worker.
    grant = await run_in_threadpool(tokens.authenticate, ledger, raw)
    if grant is None:
        raise Unauthorized("unknown or revoked token", field=BEARER_HEADER)
    return _granted(request, grant)


async def _logged_in(request: Request, settings: Settings, ledger: Ledger, cookie: str) -> Caller:
    """The web page's login (``ledger/tokens.py``): a session of the campaign, or the admin's signed cookie;
    never a token (a cookie holding one, from before sessions, is refused: log in again)."""
    if tokens.admin_session_valid(settings.admin_token, cookie):
        return Caller(Actor("admin", "admin"), None)
    grant = await run_in_threadpool(tokens.session_grant, ledger, cookie)
    if grant is None:
        raise Unauthorized("the login has ended (logged out, expired, or its token revoked): log in again",
                           field=TOKEN_COOKIE)
    return _granted(request, grant)


def _granted(request: Request, grant: tokens.TokenGrant) -> Caller:
    # The state the token was checked against is the campaign's at its head: the routes reuse it (api/deps.py)
    # rather than asking the store for the head a second time.
    request.state.token_state = grant.state
    request.state.session_id = grant.session_id
    return Caller(grant.actor, grant.campaign, grant.token_id)


def check_campaign(caller: Caller, cid: UUID) -> None:
    if caller.campaign is not None and caller.campaign != cid:
        raise Forbidden("this token belongs to another campaign", field=BEARER_HEADER)
