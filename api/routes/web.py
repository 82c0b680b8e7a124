"""The web page (``/ui``): campaigns, a turn step by step, charts, and the game master's dispute form.

Server-rendered (Jinja2, ``api/web/templates``) so every page works without
JavaScript; ``api/web/static/ledger.js`` only adds keyboard shortcuts and
in-place stepping. Who is calling is resolved exactly as for the API
(``api.deps``: the same token, read from the ``ledger_token`` cookie the login
form sets when there is no Authorization header; local development without a
token acts as admin from loopback), and what is shown is filtered by
``ledger.access.can_see`` like every read route. The writes, a correction and
the map forms (api/web/map_forms.py) and a new ruling (api/web/ruling_form.py), pass the same permission checks as their
API routes (``Permit("record_correction")``, ``Permit("move_stack")``...) and a
CSRF token (a random
``ledger_csrf`` cookie, SameSite=Strict, and the form's token HMAC(that cookie, the login cookie): bound to
the session).
"""

from __future__ import annotations

import hashlib
import hmac
import inspect
import json
import secrets
from collections.abc import Callable
from pathlib import Path as FilePath
from typing import Annotated, Any
from urllib.parse import parse_qs, quote
from uuid import UUID

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from api import deps
from api.language import switch_url
from api.routes.views import campaign_public
from api.security import TOKEN_COOKIE, Caller
from projections import svg, whatif, words
from projections.records import Record
from api.readpath import REVALIDATE, etag, not_modified, reads_for, reads_of, request_key
from api.replica import read_ledger
from api.routes.records import player_dice
from api.web import ers_cells, jinja, map_forms, ruling_form, turn_rows
from api.web.ers_view import ers_view
from api.web.income_view import income_command, income_view, lineage
from api.web.place_view import place_view
from api.web.turn_view import form_inputs, posted_replacement, rework_form, turn_view
from ledger import tokens
from ledger.i18n import gettext
from ledger.terms import term
from ledger.access import may_write
from ledger.application import Actor, Ledger
from ledger.domain.commands import EndSession, PublishSheets, RecordCorrection, RecordRuling, ReworkRuling, build
from ledger.domain.errors import EventNotFound, Forbidden, InvalidInput, LedgerError, Unauthorized

WEB = FilePath(__file__).resolve().parent.parent / "web"
templates = Jinja2Templates(env=jinja.environment(WEB / "templates"))
templates.env.filters["line_code"] = words.line_code  # "A15_pct" is "A15 %" to a reader
# The ERS page's rows, written in Python (api/web/ers_cells.py: Jinja's macros and escapes were most of its render).
templates.env.globals["ers_row"] = ers_cells.row
# The turn page's steps, provinces and stacks, likewise (api/web/turn_rows.py).
templates.env.globals["turn_rows"] = turn_rows
templates.env.globals["lineage"] = lineage  # a computed line's sources, each place linked to its page
templates.env.globals["term"] = term  # a role, a phase, a visibility in the reader's words
templates.env.filters["term"] = term
templates.env.globals["lang_url"] = switch_url  # this page in another language (the switch in base.html)
router = APIRouter(prefix="/ui", tags=["web"], include_in_schema=False)

CSRF_COOKIE = "ledger_csrf"
CHART_KINDS = ("treasury", "income", "inflation", "victory")
EXPORT_TABLES = ("ers", "ers-wide", "entries", "inflation", "stability", "victory")
FORM_BYTES = 20_000


def _ledger(request: Request) -> Ledger:
    """The store the request uses: the primary, or the replica a read was routed to (``_reader``)."""
    return getattr(request.state, "read_ledger", None) or request.app.state.ledger


async def _maybe(value: Any) -> Any:
    """The value of a dependency called directly, whether ``api.deps`` defines it sync or async."""
    return await value if inspect.isawaitable(value) else value


async def _caller(request: Request) -> Caller:
    return await _maybe(deps.get_caller(request))


async def _reader(request: Request, campaign: str) -> tuple[Actor, UUID]:
    """The caller and the campaign, checked as ``ActorDep`` and ``CampaignId`` check them (401/404/403)."""
    caller = await _caller(request)
    await read_ledger(request)  # a page reads the replica, if there is one and it has the campaign (far enough)
    cid = await _maybe(deps.resolve_campaign(request, caller, campaign))
    return caller.actor, cid


def _csrf_secret(request: Request) -> str:
    secret = request.cookies.get(CSRF_COOKIE) or getattr(request.state, "new_csrf", None)
    if not secret:
        secret = request.state.new_csrf = secrets.token_urlsafe(24)
    return secret


def _csrf_for(secret: str, session: str) -> str:
    # Bound to the session: HMAC(random cookie, login cookie). A token copied from another session (another
    # login, or none) does not match, and a forged ledger_csrf cookie is useless without the HttpOnly login.
    return hmac.new(secret.encode(), b"ledger-csrf|" + session.encode(), hashlib.sha256).hexdigest()


def _csrf(request: Request) -> str:
    """The token the forms of this page carry."""
    return _csrf_for(_csrf_secret(request), request.cookies.get(TOKEN_COOKIE, ""))


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


def render(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
    context = {"csrf": _csrf(request), "me": getattr(request.state, "actor", None), **context}
    response = templates.TemplateResponse(request, name, context, status_code=status)
    if getattr(request.state, "new_csrf", None):
        response.set_cookie(CSRF_COOKIE, request.state.new_csrf, httponly=True, samesite="strict",
                            secure=_secure(request), path="/ui")
    return response


#: Stand-ins, in a kept page, for what differs from one request to the next: the forms' CSRF token (the
#: session's) and a form's idempotency key (a new one per page served, so two disputes are two). Random per
#: process: no page can contain them by chance.
CSRF_SLOT = f"csrf-slot-{secrets.token_hex(12)}"
KEY_SLOT = f"key-slot-{secrets.token_hex(12)}"


async def _page(request: Request, campaign: str, name: str,
                work: Callable[[Ledger, Actor, UUID], dict[str, Any]]) -> Response:
    """A page of a campaign, kept per caller, request and head (api/readpath.py): ``work`` gathers its context
    (in the thread pool: it reads the store) and the template is rendered once; each request then fills in its
    own CSRF token and form key. A caller holding this very page (``If-None-Match``) gets a 304, once it is
    authenticated and the head read."""
    try:
        actor, cid = await _reader(request, campaign)
        ledger = _ledger(request)
        state = deps.state_of(request, ledger, cid)  # the head _reader read
        csrf = _csrf(request)
        # The page names its reader (who is logged in, what a player may not see): kept per caller, not audience.
        who = (actor.id, actor.role, actor.country, name)
        # The tag covers the session's CSRF token too: a page held from another session does not match.
        tag = etag(request, (who, csrf), state.version)
        unchanged = not_modified(request, tag)
        if unchanged is not None:
            return unchanged
        reads, key = reads_for(request), request_key(request)
        page = reads.cache.get(key, who, state.version)
        if page is None:
            def build() -> str:
                context = {"request": request, "csrf": CSRF_SLOT, "me": actor, "form_key": KEY_SLOT,
                           **work(ledger, actor, cid)}
                return templates.get_template(name).render(context)

            page = await run_in_threadpool(build)
            reads.cache.put(key, who, state.version, page)
    except LedgerError as exc:
        return _error(request, exc)
    html = page.replace(CSRF_SLOT, csrf).replace(KEY_SLOT, secrets.token_urlsafe(12))
    response = HTMLResponse(html, headers={"ETag": tag, **REVALIDATE})
    if getattr(request.state, "new_csrf", None):
        response.set_cookie(CSRF_COOKIE, request.state.new_csrf, httponly=True, samesite="strict",
                            secure=_secure(request), path="/ui")
    return response


def _error(request: Request, exc: LedgerError) -> Response:
    if isinstance(exc, Unauthorized):
        here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/ui/login?next={quote(here, safe='')}", status_code=303)
    return render(request, "error.html", {"error": exc, "kind": type(exc).__name__}, status=exc.status)


def _check_csrf(request: Request, form: dict[str, str]) -> None:
    # A page of another origin of the same site (a sibling host) can set the ledger_csrf cookie and so forge
    # a matching pair, a login with its own token among them: the browser says where a form came from
    # (Sec-Fetch-Site; Origin for older ones), and only this origin's pages (or a typed request) are taken.
    site, origin = request.headers.get("sec-fetch-site"), request.headers.get("origin")
    own = f"{request.url.scheme}://{request.url.netloc}"
    if (site is not None and site not in ("same-origin", "none")) or (origin not in (None, "null", own)):
        raise Forbidden("this form was sent from another site's page: open the ledger's own page and submit there",
                        field="csrf", rule="access.csrf")
    secret, sent = request.cookies.get(CSRF_COOKIE, ""), form.get("csrf", "")
    expected = _csrf_for(secret, request.cookies.get(TOKEN_COOKIE, "")) if secret else ""
    if not expected or not sent or not hmac.compare_digest(expected.encode(), sent.encode()):
        raise Forbidden("the form's CSRF token does not match: reload the page and submit again", field="csrf",
                        rule="access.csrf")


async def form_data(request: Request) -> dict[str, str]:
    """A url-encoded form (the only kind these pages send), first value of each field."""
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    body = await request.body()
    if kind != "application/x-www-form-urlencoded" or len(body) > FORM_BYTES:
        return {"_invalid": "1"}
    return {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}


FormDep = Annotated[dict[str, str], Depends(form_data)]


# ------------------------------------------------------------------ login


def _safe_next(target: str | None) -> str:
    return target if target and target.startswith("/ui") and not target.startswith("//") else "/ui"


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, next: str | None = None):
    return _login_page(request, _safe_next(next), None)


def _login_page(request: Request, target: str, message: str | None, status: int = 200) -> Response:
    days = request.app.state.settings.session_hours / 24
    return render(request, "login.html", {"next": target, "message": message,
                                          "session_days": f"{days:g}"}, status=status)


@router.post("/login")
def login(request: Request, form: FormDep):
    ledger, settings = _ledger(request), request.app.state.settings
    target = _safe_next(form.get("next"))
    try:
        _check_csrf(request, form)
    except Forbidden as exc:
        return _login_page(request, target, exc.message, 403)
    hours = settings.session_hours
    # The cookie gets a session standing for the token, never the token (ledger/tokens.py): a logout, the
    # token's revocation or the expiry ends it, copies of the cookie included.
    session = tokens.log_in(ledger, form.get("token", "").strip(), settings.admin_token, hours)
    if session is None:
        return _login_page(request, target, "unknown or revoked token", 401)
    response = RedirectResponse(target, status_code=303)
    # HttpOnly: scripts never read it; SameSite=Strict: no other site's page makes the browser send it.
    # Path "/": the chart and export links (API routes) are read with it too.
    response.set_cookie(TOKEN_COOKIE, session, httponly=True, samesite="strict", secure=_secure(request), path="/",
                        max_age=hours * 3600)
    return response


@router.post("/logout")
def logout(request: Request, form: FormDep):
    try:
        _check_csrf(request, form)
    except Forbidden as exc:
        return _error(request, exc)
    grant = tokens.session_grant(_ledger(request), request.cookies.get(TOKEN_COOKIE, ""))
    if grant is not None:  # recorded, so that a copy of the cookie is refused too
        _ledger(request).handle(grant.campaign, EndSession(session_id=grant.session_id or ""), actor=grant.actor)
    response = RedirectResponse("/ui/login", status_code=303)
    response.delete_cookie(TOKEN_COOKIE, path="/")
    return response


# ------------------------------------------------------------------ pages


@router.get("", response_class=HTMLResponse)
@router.get("/", response_class=HTMLResponse)
async def campaigns_page(request: Request):
    try:
        caller = await _caller(request)
        ledger = _ledger(request)
        # As GET /campaigns: a campaign token reads its own campaign only.
        states = await run_in_threadpool(
            lambda: [ledger.campaign(caller.campaign)] if caller.campaign is not None else ledger.campaigns())
    except LedgerError as exc:
        return _error(request, exc)
    return render(request, "campaigns.html", {"campaigns": [campaign_public(s) for s in states],
                                              "may_create": may_write(caller.actor, "create_campaign")})


@router.get("/campaigns/{campaign}", response_class=HTMLResponse)
async def campaign_page(request: Request, campaign: str):
    def work(ledger: Ledger, actor: Actor, cid: UUID) -> dict[str, Any]:
        reader = reads_for(request).reader
        state = deps.state_of(request, ledger, cid)  # the head _reader read
        # The links of what this reader may do (ledger/access.py's WRITES), and none of what ends on Forbidden.
        may = {a: may_write(actor, a, state.settings) for a in ("record_ruling", "record_treasury", "open_turn",
                                                                 "list_tokens", "list_endpoints")}
        may["map"] = bool(map_forms.allowed(actor, state))
        return {"c": campaign_public(state), "turns": reader.turns(cid, actor, state), "may": may}

    return await _page(request, campaign, "campaign.html", work)


@router.get("/campaigns/{campaign}/turns/{turn}", response_class=HTMLResponse)
async def turn_page(request: Request, campaign: str, turn: Annotated[int, Path(ge=0, le=2**31)],
                    step: Annotated[int | None, Query(ge=1, le=2**31)] = None,
                    position: Annotated[int | None, Query(ge=1, le=2**53)] = None,
                    partial: bool = False):
    def work(ledger: Ledger, actor: Actor, cid: UUID) -> dict[str, Any]:
        reader = reads_for(request).reader
        state = deps.state_of(request, ledger, cid)  # the head _reader read
        listed = reader.ahead(reader.turns, cid, actor, state)  # read while the step is folded
        view = turn_view(ledger, cid, turn, actor, step=step, position=position, reader=reader, state=state)
        e = view.event
        n = e["position"]
        # The step's event, which the caller may see (the turn's steps are those), as the picture highlights it:
        # what the view shows of it is its payload and context, no second read of the store.
        shown = Record(campaign=str(cid), position=n, type=e["type"], data={**e["payload"], "context": e["context"]})
        # Inline, so each place's shape is a link to its page (an <img> cannot be clicked into).
        drawn = svg.picture(ledger, cid, actor, state, view.map, n, shown=shown,
                            link=lambda name: f"/ui/campaigns/{quote(state.slug)}/places/{quote(name, safe='')}?at={n}")
        return {"c": campaign_public(state), "v": view, "turns": listed.result(),
                "may_correct": may_write(actor, "record_correction", state.settings), "map_svg": Markup(drawn)}

    # The dispute form's key (form_key) is new on each page served: a double submit counts once, two disputes
    # twice. partial: the stepping script swaps the page's main part only (same HTML, no chrome).
    return await _page(request, campaign, "turn_main.html" if partial else "turn.html", work)


@router.get("/campaigns/{campaign}/places/{name}", response_class=HTMLResponse)
async def place_page(request: Request, campaign: str, name: Annotated[str, Path(min_length=1, max_length=200)],
                     at: Annotated[int | None, Query(ge=0, le=2**53)] = None,
                     page: Annotated[int, Query(ge=1, le=2**31)] = 1):
    """A place as of position ``at`` (default: the head): its state, the board's facts, and its history."""
    def work(ledger: Ledger, actor: Actor, cid: UUID) -> dict[str, Any]:
        reader = reads_for(request).reader
        state = deps.state_of(request, ledger, cid)  # the head _reader read
        return {"c": campaign_public(state),
                "p": place_view(ledger, reader, cid, actor, state, name, at, page)}

    return await _page(request, campaign, "place.html", work)


@router.get("/campaigns/{campaign}/charts", response_class=HTMLResponse)
async def charts_page(request: Request, campaign: str):
    try:
        actor, cid = await _reader(request, campaign)
        info = campaign_public(await run_in_threadpool(_ledger(request).campaign, cid))
    except LedgerError as exc:
        return _error(request, exc)
    countries = [actor.country] if actor.role == "player" and actor.country else info.countries
    return render(request, "charts.html", {"c": info, "kinds": CHART_KINDS, "countries": countries,
                                           "tables": EXPORT_TABLES})


@router.get("/campaigns/{campaign}/ers/{country}/{turn}", response_class=HTMLResponse)
async def ers_page(request: Request, campaign: str, country: Annotated[str, Path(pattern=r"^[A-Z]{2,4}$")],
                   turn: Annotated[int, Path(ge=1, le=2**31)]):
    """A country's ERS for a turn, laid out as sheets A, B and C, each cell with the events behind it."""
    def work(ledger: Ledger, actor: Actor, cid: UUID) -> dict[str, Any]:
        reader = reads_for(request).reader
        state = deps.state_of(request, ledger, cid)  # the head _reader read
        return {"c": campaign_public(state), "v": ers_view(ledger, reader, cid, actor, state, country, turn),
                "may_publish": may_write(actor, "publish_sheets", state.settings)}

    return await _page(request, campaign, "ers.html", work)  # its form key: a double submit publishes once


@router.get("/campaigns/{campaign}/income", response_class=HTMLResponse)
async def income_page(request: Request, campaign: str,
                      country: Annotated[str | None, Query(pattern=r"^[A-Z]{2,4}$")] = None):
    """The income and upkeep lines the board works out, with their lineage; the game master's confirm form."""
    def work(ledger: Ledger, actor: Actor, cid: UUID) -> dict[str, Any]:
        state = deps.state_of(request, ledger, cid)
        return {"c": campaign_public(state), "v": income_view(ledger, reads_for(request).reader, cid, actor, state,
                                                               country),
                "may_confirm": may_write(actor, "confirm_income", state.settings) and state.turn_open}

    return await _page(request, campaign, "income.html", work)


@router.post("/campaigns/{campaign}/income/confirm")
async def confirm_income(request: Request, campaign: str, form: FormDep):
    """The income page's buttons: one country's lines, or every country's, with the values kept and why."""
    ledger = _ledger(request)

    def work(actor: Actor, cid: UUID) -> None:
        ledger.handle(cid, income_command(form), actor=actor, idempotency_key=form.get("key") or None)

    try:
        actor, cid = await _reader(request, campaign)
        _check_csrf(request, form)
        await _maybe(deps._Permit("confirm_income")(request, actor))  # the API route's own check
        await run_in_threadpool(work, actor, cid)
    except LedgerError as exc:
        return _error(request, exc)
    return RedirectResponse(f"/ui/campaigns/{campaign}/income?confirmed=1#income-confirmed", status_code=303)


@router.post("/campaigns/{campaign}/ers/{country}/{turn}/publish")
async def publish_sheets(request: Request, campaign: str, country: Annotated[str, Path(pattern=r"^[A-Z]{2,4}$")],
                         turn: Annotated[int, Path(ge=1, le=2**31)], form: FormDep):
    """The game master's button on the ERS page: this country's sheets of the turn, or every country's."""
    ledger = _ledger(request)

    def work(actor: Actor, cid: UUID) -> None:
        everyone = form.get("countries") == "all"
        fields = {"turn": turn, **({} if everyone else {"countries": [country]})}
        if form.get("reason", "").strip():
            fields["reason"] = form["reason"]
        ledger.handle(cid, build(PublishSheets, **fields), actor=actor, idempotency_key=form.get("key") or None)

    try:
        actor, cid = await _reader(request, campaign)
        _check_csrf(request, form)
        await _maybe(deps._Permit("publish_sheets")(request, actor))  # the API route's own check
        await run_in_threadpool(work, actor, cid)
    except LedgerError as exc:
        return _error(request, exc)
    return RedirectResponse(f"/ui/campaigns/{campaign}/ers/{country}/{turn}?published=1#published",
                            status_code=303)


def _correction_input(form: dict[str, str], original: Any = None) -> RecordCorrection:
    """The form's fields as the command (the command model validates them, as for the API): the fields of the
    event's own type that differ from it, or a strike; ``replacement`` as JSON text for scripts."""
    try:
        corrects = int(form.get("corrects", ""))
    except ValueError:
        raise InvalidInput("corrects must be the position of the event corrected", field="corrects") from None
    replacement = None
    if original is not None and not form.get("strike") and any(k.startswith("input.") for k in form):
        replacement = posted_replacement(type(original).__name__, original.payload(), form)
        if not replacement:
            raise InvalidInput("change at least one field, or tick 'strike it'", field="replacement")
    elif form.get("replacement", "").strip():
        try:
            replacement = json.loads(form["replacement"])
        except ValueError as exc:
            raise InvalidInput(f"replacement is not JSON: {exc}", field="replacement") from None
        if not isinstance(replacement, dict):
            raise InvalidInput("replacement must be a JSON object, e.g. {\"amount\": 30}", field="replacement")
    return build(RecordCorrection, corrects=corrects, reason=form.get("reason", ""), replacement=replacement)


@router.post("/campaigns/{campaign}/corrections")
async def correct(request: Request, campaign: str, form: FormDep):
    """The dispute form: a correction of an event, with its reason (the original stays)."""
    ledger = _ledger(request)

    def work(actor: Actor, cid: UUID) -> Any:
        try:
            at = int(form.get("corrects", ""))
        except ValueError:
            raise InvalidInput("corrects must be the position of the event corrected", field="corrects") from None
        if not 1 <= at <= ledger.campaign(cid).version:
            raise EventNotFound(f"campaign has no event at position {at}", field="corrects")
        original = ledger.event_at(cid, at)
        if form.get("action") == "whatif":  # the difference at the head, recorded nowhere
            command = _correction_input({**form, "reason": form.get("reason") or "what if"}, original)
            reader, state = reads_of(request.app).reader, ledger.campaign(cid)
            answer = whatif.ask(reader, cid, ledger.drafted(cid, command, actor=actor))
            turn = original.context.get("turn") or state.turn
            view = turn_view(ledger, cid, turn, actor, position=at, reader=reader, state=state)
            return {"c": campaign_public(state), "v": view, "turns": reader.turns(cid, actor, state),
                    "may_correct": True, "whatif": answer}, None
        command = _correction_input(form, original)
        # Without a visibility, the correction is seen by those who see the original (ledger/usecases/records.py).
        ledger.handle(cid, command, actor=actor, idempotency_key=form.get("key") or None)
        return ledger.event_at(cid, command.corrects).context.get("turn"), command

    try:
        actor, cid = await _reader(request, campaign)
        _check_csrf(request, form)
        # The API route's own permission check: Permit("record_correction").
        await _maybe(deps._Permit("record_correction")(request, actor))
        turn, command = await run_in_threadpool(work, actor, cid)
    except LedgerError as exc:
        return _error(request, exc)
    if command is None:  # a what-if: ``turn`` is the turn page's context, with the answer
        return render(request, "turn.html", {**turn, "form_key": secrets.token_urlsafe(12)})
    if turn is None:
        return RedirectResponse(f"/ui/campaigns/{campaign}", status_code=303)
    return RedirectResponse(f"/ui/campaigns/{campaign}/turns/{turn}?position={command.corrects}#corrections",
                            status_code=303)


@router.post("/campaigns/{campaign}/rulings/{position}/rework")
async def rework(request: Request, campaign: str, position: Annotated[int, Path(ge=1, le=2**53)], form: FormDep):
    """The re-resolution form: ``action=preview`` shows the turn page with the old and new ruling side by side
    (nothing recorded, no die drawn); ``action=record`` records the correction and shows it."""
    ledger = _ledger(request)
    reader = reads_of(request.app).reader

    def work(actor: Actor, cid: UUID) -> Any:
        state = ledger.campaign(cid)
        original = ledger.event_at(cid, position)


        record = Record(str(cid), position, type(original).__name__, {**original.payload(),
                        "context": original.context})
        spec = rework_form(record, state)
        if spec is None:
            raise InvalidInput(f"position {position} is not a ruling this server can resolve", field="position")
        inputs = form_inputs(spec["fields"], form)
        manual = form.get("manual", "").strip()
        physical = [[int(v)] if v.strip().isdigit() else [v.strip()] for v in manual.split(",")] if manual else None
        kept = form.get("overrides", "").strip()
        command = build(ReworkRuling, position=position, inputs=inputs, reason=form.get("reason", ""),
                        manual_dice=physical, overrides=_overrides(kept) or None)
        turn = original.context.get("turn")
        if form.get("action") == "record":
            done = ledger.handle(cid, command, actor=actor, idempotency_key=form.get("key") or None)
            at = next(e["position"] for e in done.events if e["type"] == "CorrectionRecorded")
            shown_in = ledger.event_at(cid, at).context.get("turn") or turn  # the turn it was recorded in
            return {"redirect": f"/ui/campaigns/{campaign}/turns/{shown_in}?position={at}"}
        result = ledger.preview(cid, command, actor=actor)
        view = turn_view(ledger, cid, turn, actor, position=position, reader=reader, state=state)
        report = result.data.get("rework") or {}
        diff = {"ruling": words.ruling_diff(result.data.get("original"), result.data.get("ruling")),
                "rework": {k: [words.dice_line(d) for d in report.get(k) or ()] for k in ("matched", "drawn", "unused")}}
        posted = [(k, v) for k, v in form.items() if k.startswith("input.")]
        preview = {"position": position, "reason": command.reason, "needs_die": report.get("needs_die"),
                   "manual": manual, "overrides": kept, "after_turn_closed": report.get("after_turn_closed"),
                   "words": diff, "posted": posted, "fields": rework_form(record, state, inputs)["fields"],
                   "entries": [words.budget_line({**b, "turn": turn}) for b in result.data.get("entries") or ()]}
        return {"c": campaign_public(state), "v": view, "turns": reader.turns(cid, actor, state),
                "may_correct": True, "preview": preview}

    try:
        actor, cid = await _reader(request, campaign)
        _check_csrf(request, form)
        await _maybe(deps._Permit("record_correction")(request, actor))
        context = await run_in_threadpool(work, actor, cid)
    except LedgerError as exc:
        return _error(request, exc)
    if "redirect" in context:
        return RedirectResponse(context["redirect"] + "#corrected-original", status_code=303)
    context["form_key"] = secrets.token_urlsafe(12)
    return render(request, "turn.html", context)


def _overrides(text: str) -> dict[str, str]:
    """The inputs a game master keeps against the board, one a line as "defender.ld: why"."""
    kept = {}
    for line in filter(None, (x.strip() for x in text.splitlines())):
        name, sep, why = line.partition(":")
        if not sep or not name.strip() or not why.strip():
            raise InvalidInput(f"{line!r}: one input a line, its name, a colon and why (defender.ld: two LD "
                               "had deserted)", field="overrides")
        kept[name.strip()] = why.strip()
    return kept


# ------------------------------------------------------------------ the map forms


def _map_page(ledger: Ledger, actor: Actor, cid: UUID, posted: dict[str, Any] | None = None) -> dict[str, Any]:
    state = ledger.campaign(cid)
    return {"c": campaign_public(state), "forms": {k: gettext(map_forms.FORMS[k][0]) for k in map_forms.allowed(actor, state)},
            "o": map_forms.options(ledger, state, actor), "posted": posted or {}, "failed": None,
            "keys": {k: secrets.token_urlsafe(12) for k in map_forms.FORMS}, "held": map_forms.held(actor, state),
            "may_ruling": may_write(actor, "record_ruling", state.settings)}


@router.get("/campaigns/{campaign}/map", response_class=HTMLResponse)
async def map_page(request: Request, campaign: str):
    """The map forms: every map command this caller may record, as a plain form."""
    try:
        actor, cid = await _reader(request, campaign)
        context = await run_in_threadpool(_map_page, _ledger(request), actor, cid)
    except LedgerError as exc:
        return _error(request, exc)
    return render(request, "map.html", context)


@router.post("/campaigns/{campaign}/map/{name}")
async def map_form(request: Request, campaign: str, name: str, form: FormDep):
    """A map form posted: the command it reads as, through the API route's permission and ``Ledger.handle``;
    then the turn page at the event it appended (its map drawn), or the form again with the error beside the
    field it names."""
    ledger = _ledger(request)
    try:
        actor, cid = await _reader(request, campaign)
        _check_csrf(request, form)
    except LedgerError as exc:
        return _error(request, exc)

    def work() -> int:
        state = ledger.campaign(cid)
        command = map_forms.command_of(name, form, state, actor)
        if not may_write(actor, command.action, state.settings):  # the API route's Permit(action)
            raise Forbidden(f"a {actor.role} may not {command.action.replace('_', ' ')} in this campaign",
                            field="Authorization", rule=f"access.{command.action}")
        done = ledger.handle(cid, command, actor=actor, idempotency_key=form.get("key") or None)
        return done.events[0]["position"]

    try:
        at = await run_in_threadpool(work)
    except Unauthorized as exc:
        return _error(request, exc)
    except LedgerError as exc:
        context = await run_in_threadpool(_map_page, ledger, actor, cid, form)
        context["failed"] = {"form": name, "field": map_forms.error_field(exc.field), "message": exc.message}
        return render(request, "map.html", context, status=exc.status)
    turn = ledger.event_at(cid, at).context.get("turn") or 0
    return RedirectResponse(f"/ui/campaigns/{campaign}/turns/{turn}?position={at}", status_code=303)


# ------------------------------------------------------------------ a new ruling


def _ruling_page(ledger: Ledger, actor: Actor, cid: UUID, code: str | None, posted: dict[str, str] | None = None
                 ) -> dict[str, Any]:
    state = ledger.campaign(cid)
    proc = ruling_form.procedure(state.ruleset, code) if code else None
    return {"c": campaign_public(state), "procedures": ruling_form.procedures(state.ruleset), "proc": proc,
            "fields": ruling_form.fields(proc, posted) if proc else [], "roles": ruling_form.roles(proc) if proc else [],
            "rows": range(ruling_form.STACK_ROWS), "o": map_forms.options(ledger, state, actor),
            "posted": posted or {}, "failed": None, "key": secrets.token_urlsafe(12),
            "gm": actor.role != "player"}


@router.get("/campaigns/{campaign}/rulings/new", response_class=HTMLResponse)
async def new_ruling_page(request: Request, campaign: str,
                          procedure: Annotated[str | None, Query(max_length=20)] = None):
    """Choose a procedure, then its form: the inputs from its input schema, where, which stacks, the dice."""
    ledger = _ledger(request)
    try:
        actor, cid = await _reader(request, campaign)
        await _maybe(deps._Permit("record_ruling")(request, actor))  # as POST /campaigns/{id}/rulings
        context = await run_in_threadpool(_ruling_page, ledger, actor, cid, procedure or None)
    except LedgerError as exc:
        return _error(request, exc)
    return render(request, "ruling_new.html", context)


@router.post("/campaigns/{campaign}/rulings/new")
async def new_ruling(request: Request, campaign: str, form: FormDep):
    """The new-ruling form posted: ``RecordRuling`` through the API route's permission and ``Ledger.handle``;
    then the turn page at the ruling (its explanation and the map), or the form again with what was typed and
    the error beside the field it names."""
    ledger = _ledger(request)
    try:
        actor, cid = await _reader(request, campaign)
        _check_csrf(request, form)
        await _maybe(deps._Permit("record_ruling")(request, actor))
    except LedgerError as exc:
        return _error(request, exc)

    def work() -> int:
        proc = ruling_form.procedure(ledger.campaign(cid).ruleset, form.get("procedure", ""))
        command: RecordRuling = ruling_form.command_of(form, proc)
        player_dice(actor, command.visibility, command.manual_dice is not None)  # the API route's own check
        done = ledger.handle(cid, command, actor=actor, idempotency_key=form.get("key") or None)
        return next(e["position"] for e in done.events if e["type"] == "RulingRecorded")

    try:
        at = await run_in_threadpool(work)
    except Unauthorized as exc:
        return _error(request, exc)
    except LedgerError as exc:
        try:
            context = await run_in_threadpool(_ruling_page, ledger, actor, cid, form.get("procedure") or None, form)
        except LedgerError:  # an unknown procedure: the list again, the error beside it
            context = await run_in_threadpool(_ruling_page, ledger, actor, cid, None, form)
        field = ruling_form.error_field(exc.field, form)
        context["failed"] = {"field": field, "message": exc.message, "placed": ruling_form.placed(field, context["fields"]),
                             "keep": ruling_form.keepable(field, exc)}
        return render(request, "ruling_new.html", context, status=exc.status)
    turn = ledger.event_at(cid, at).context.get("turn") or 0
    return RedirectResponse(f"/ui/campaigns/{campaign}/turns/{turn}?position={at}#ruling", status_code=303)


# The pages people open most, first: a request is matched against this router's routes in order, twice (FastAPI
# finds the router, then the route), ~2 us a route. No two routes answer the same request
# (tests/unit/test_routing_order.py): the order changes no answer.
_MOST_OPENED = ("/ui/campaigns/{campaign}/turns/{turn}", "/ui/campaigns/{campaign}/ers/{country}/{turn}",
                "/ui/campaigns/{campaign}/places/{name}")
router.routes.sort(key=lambda r: _MOST_OPENED.index(r.path) if getattr(r, "path", None) in _MOST_OPENED
                   else len(_MOST_OPENED))
