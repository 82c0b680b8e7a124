"""The "Since you last looked" page (``/ui/campaigns/{c}/since``) and its two forms: "Mark as read up to here"
and a player's "I am ready" (issue 38; the read model is projections/catchup.py).

Not kept like the other pages (``web._page``): it tells the time left before the deadline and who is late, which
change with the clock and not with the head. It reads at most ``catchup.LIMIT`` records from the reader's mark.
The forms pass the API routes' own permission checks and the CSRF token, as the other forms of the site.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from api import deps
from api.routes.views import campaign_public
from api.routes.web import FormDep, _check_csrf, _error, _ledger, _maybe, _reader, _secure, render
from ledger.access import may_write
from ledger.domain import pace
from ledger.domain.commands import Command, build
from ledger.domain.errors import InvalidInput, LedgerError
from ledger.domain.zones import zone
from projections import catchup

router = APIRouter(prefix="/ui", tags=["web"], include_in_schema=False)
#: The reader's time zone, once chosen on the page (an IANA name, checked on each read).
ZONE_COOKIE = "ledger_tz"


def _kept_zone(request: Request) -> str | None:
    """The zone the reader chose before, if it is still one (a zone database without it: the campaign's)."""
    kept = request.cookies.get(ZONE_COOKIE)
    try:
        return kept if kept and zone(kept) else None
    except ValueError:
        return None


@router.get("/campaigns/{campaign}/since", response_class=HTMLResponse)
async def since_page(request: Request, campaign: str,
                     since: Annotated[int | None, Query(ge=0, le=2**53)] = None,
                     tz: Annotated[str | None, Query(max_length=60)] = None, mine: bool = False):
    chosen = tz or _kept_zone(request)  # the reader's choice is kept for their next visit
    try:
        actor, cid = await _reader(request, campaign)
        ledger = _ledger(request)
        state = deps.state_of(request, ledger, cid)
        try:
            zone_name = catchup.reader_zone(state, chosen)
        except ValueError as e:
            raise InvalidInput(f"tz: {e}", field="tz") from None
        view = await run_in_threadpool(lambda: catchup.catch_up(ledger, state, actor, since=since,
                                                                zone_name=zone_name, mine=mine))
        status = pace.status(state, datetime.now(UTC))
        context: dict[str, Any] = {
            "c": campaign_public(state), "u": view, "tz": chosen or "", "mark": catchup.mark_of(state, actor),
            "may_mark": may_write(actor, "mark_read", state.settings),
            "may_ready": actor.role == "player" and status["phase"] is not None,
            "is_ready": actor.country in status["ready"],
            "form_key": secrets.token_urlsafe(12)}  # a double submit counts once
    except LedgerError as exc:
        return _error(request, exc)
    response = render(request, "since.html", context)
    if tz:
        response.set_cookie(ZONE_COOKIE, tz, max_age=365 * 24 * 3600, samesite="lax", secure=_secure(request),
                            path="/ui")
    return response


async def _posted(request: Request, campaign: str, form: dict[str, str], action: str,
                  command_of: Callable[[dict[str, str]], Command], then: str) -> Response:
    """A form's write: the caller, the CSRF token, the API route's own permission check (``action``), the command
    the form makes (a bad field: its 4xx page) handed to the ledger; then back to the page (``then``)."""
    ledger = _ledger(request)
    try:
        actor, cid = await _reader(request, campaign)
        _check_csrf(request, form)
        await _maybe(deps._Permit(action)(request, actor))
        command = command_of(form)
        await run_in_threadpool(lambda: ledger.handle(cid, command, actor=actor,
                                                      idempotency_key=form.get("key") or None))
    except LedgerError as exc:
        return _error(request, exc)
    return RedirectResponse(f"/ui/campaigns/{quote(campaign)}/{then}", status_code=303)


def _read_up_to(form: dict[str, str]) -> Command:
    text = form.get("up_to", "")
    if not text.isdigit():
        raise InvalidInput("up_to: a position (a whole number)", field="up_to")
    return build(pace.MarkAsRead, up_to=int(text))


def _ready(form: dict[str, str]) -> Command:
    if form.get("ready") not in ("yes", "no"):
        raise InvalidInput("ready: yes or no", field="ready")
    return build(pace.MarkReady, ready=form["ready"] == "yes")


@router.post("/campaigns/{campaign}/since/read")
async def mark_read(request: Request, campaign: str, form: FormDep):
    """"Mark as read up to here": the page's last position read becomes the reader's mark."""
    return await _posted(request, campaign, form, "mark_read", _read_up_to, "since")


@router.post("/campaigns/{campaign}/ready")
async def mark_ready(request: Request, campaign: str, form: FormDep):
    """A player's "I am ready" (or not) for the phase the turn is in, for their own country."""
    return await _posted(request, campaign, form, "mark_ready", _ready, "since#pace")
