"""The reader's notifications page (``/ui/campaigns/{campaign}/notifications``): their endpoints (a player's own,
the game master's every one), what each is told, its deliveries and last error; a form to register one, with its
signing secret shown on that answer only; one to remove each. Same permissions as the API routes
(api/routes/notify.py) and the page's CSRF token; a refused form is the page again with the error in words.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote
from uuid import UUID

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from api.readpath import viewdb_of
from api.routes.views import campaign_public
from api.routes.web import FormDep, _check_csrf, _error, _ledger, _reader, render
from ledger.access import may_write
from ledger.application import Actor, Ledger
from ledger.domain import commands as cmd
from ledger.domain.errors import Forbidden, LedgerError, Unauthorized
from ledger.notify.signing import endpoint_secret, new_endpoint_id
from ledger.notify.topics import KINDS, TOPICS
from ledger.usecases.notify import live_endpoints
from projections import outbox

router = APIRouter(prefix="/ui", tags=["web"], include_in_schema=False)


def _allowed(actor: Actor, action: str, settings: dict[str, Any]) -> None:
    if not may_write(actor, action, settings):
        who = ("an " if actor.role[0] in "aeiou" else "a ") + actor.role
        raise Forbidden(f"{who} may not {action.replace('_', ' ')} in this campaign", field="Authorization",
                        rule=f"access.{action}")


def _when(seconds: float | None) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if seconds else "—"


def _page(request: Request, ledger: Ledger, actor: Actor, cid: UUID, posted: dict[str, str] | None = None,
          failed: dict[str, Any] | None = None) -> dict[str, Any]:
    state = ledger.campaign(cid)
    _allowed(actor, "list_endpoints", state.settings)
    mine = live_endpoints(state, actor)
    counts = outbox.status(viewdb_of(request.app), str(cid), sorted(mine))
    rows = [{"id": eid, **ep, **counts[eid], "error_at": _when(counts[eid]["last_error_at"]),
             "topics_said": ", ".join(ep["topics"])}
            for eid, ep in sorted(mine.items(), key=lambda kv: kv[1]["position"])]
    audiences = ([] if actor.role == "player" else
                 [("gm", "the campaign's (everything you see)"), ("public", "the table's (what everyone sees)")]
                 + [(c, f"{c}'s player") for c in state.countries])
    kinds = {k: v for k, v in KINDS.items() if k != "email" or ledger.settings.smtp_url}
    return {"c": campaign_public(state), "endpoints": rows, "kinds": kinds, "topics": TOPICS,
            "audiences": audiences, "posted": posted or {}, "failed": failed, "key": secrets.token_urlsafe(12),
            "registered": None, "player": actor.role == "player"}


@router.get("/campaigns/{campaign}/notifications", response_class=HTMLResponse)
async def notifications_page(request: Request, campaign: str):
    ledger = _ledger(request)
    try:
        actor, cid = await _reader(request, campaign)
        context = await run_in_threadpool(_page, request, ledger, actor, cid)
    except LedgerError as exc:
        return _error(request, exc)
    return render(request, "notifications.html", context)


@router.post("/campaigns/{campaign}/notifications/register")
async def register_endpoint(request: Request, campaign: str, form: FormDep):
    """An endpoint registered: its signing secret shown on this answer only (never cached)."""
    ledger = _ledger(request)
    try:
        actor, cid = await _reader(request, campaign)
        _check_csrf(request, form)
        _allowed(actor, "register_endpoint", (await run_in_threadpool(ledger.campaign, cid)).settings)
    except LedgerError as exc:
        return _error(request, exc)

    def work() -> dict[str, Any]:
        fields: dict[str, Any] = {"kind": form.get("kind", ""), "target": form.get("target", ""),
                                  "topics": [t for t in TOPICS if form.get(f"topic_{t}")]}
        for name in ("audience", "label"):
            if form.get(name):
                fields[name] = form[name]
        result = ledger.handle(cid, cmd.build(cmd.RegisterEndpoint, **fields), actor=actor,
                               idempotency_key=form.get("key") or None, endpoint_id=new_endpoint_id())
        eid = result.data["endpoint_id"]
        return {**result.data, "secret": None if result.replayed else endpoint_secret(ledger, cid, eid)}

    try:
        registered = await run_in_threadpool(work)
    except Unauthorized as exc:
        return _error(request, exc)
    except LedgerError as exc:
        context = await run_in_threadpool(_page, request, ledger, actor, cid, form,
                                          {"field": (exc.field or "").split(".")[0], "message": exc.message})
        return render(request, "notifications.html", context, status=exc.status)
    context = await run_in_threadpool(_page, request, ledger, actor, cid)
    context["registered"] = registered
    response = render(request, "notifications.html", context, status=201)
    response.headers["Cache-Control"] = "no-store"  # the secret: shown once, kept nowhere
    return response


@router.post("/campaigns/{campaign}/notifications/{endpoint_id}/remove")
async def remove_endpoint(request: Request, campaign: str, endpoint_id: str, form: FormDep):
    ledger = _ledger(request)
    try:
        actor, cid = await _reader(request, campaign)
        _check_csrf(request, form)
        _allowed(actor, "remove_endpoint", (await run_in_threadpool(ledger.campaign, cid)).settings)
    except LedgerError as exc:
        return _error(request, exc)

    def work() -> None:
        command = cmd.build(cmd.RemoveEndpoint, endpoint_id=endpoint_id[:40], reason=form.get("reason") or
                            "no longer wanted")
        ledger.handle(cid, command, actor=actor, idempotency_key=form.get("key") or None)

    try:
        await run_in_threadpool(work)
    except LedgerError as exc:
        return _error(request, exc)
    return RedirectResponse(f"/ui/campaigns/{campaign}/notifications?removed={quote(endpoint_id[:40])}",
                            status_code=303)
