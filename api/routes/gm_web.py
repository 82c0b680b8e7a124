"""The game master's pages of the web page (``/ui``): a new campaign, the desk of a campaign (its turn and phases
in the sequence of play, treasury entries and their corrections, settings), and its tokens.

Each form is read into the command model the API routes take (api/web/gm_forms.py) and recorded through
``Ledger.handle``, after the same permission check as the API route's ``Permit(action)`` and the page's CSRF
token (api/routes/web.py). A refused form is the page again, with what was typed and the error beside the field
it names, in the page's words; nothing is appended then. A reader is offered only the forms their role may
submit (ledger/access.py's WRITES).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import quote
from uuid import UUID

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from api.routes.views import campaign_public
from api.routes.web import FormDep, _caller, _check_csrf, _error, _ledger, _reader, render
from api.web import gm_forms
from ledger import tokens
from ledger.access import may_write, refusal
from ledger.application import Actor, Ledger
from ledger.domain import sight
from ledger.domain.campaign import CampaignState, campaign_id
from ledger.domain.errors import Forbidden, InvalidInput, LedgerError, Unauthorized
from ledger.domain.events import TreasuryEntryRecorded
from ledger.i18n import gettext
from projections import timeline, words
from projections.records import Record

router = APIRouter(prefix="/ui", tags=["web"], include_in_schema=False)
RECENT_ENTRIES = 15  # the entries the correction form offers by name (any other is typed by its position)


def _refuse(actor: Actor, name: str, state: CampaignState | None) -> None:
    """The API route's ``Permit(action)`` for form ``name``: 403 in the same words."""
    action = gm_forms.FORMS[name].action
    if not may_write(actor, action, state.settings if state is not None else {}):
        raise Forbidden(refusal(actor, action), field="Authorization", rule=f"access.{action}")


def _failed(name: str, exc: LedgerError) -> dict[str, Any]:
    field = gm_forms.form_field(name, exc.field)
    placed = field in gm_forms.FORMS[name].fields or field.startswith("option.")
    return {"form": name, "field": field if placed else "", "message": gm_forms.said(exc, field)}


# ------------------------------------------------------------------ a new campaign


def _new_page(posted: dict[str, str] | None = None, failed: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"posted": posted or {}, "failed": failed, "key": secrets.token_urlsafe(12),
            "rulesets": gm_forms.RULESETS, "boards": gm_forms.BOARDS, "scenarios": gm_forms.scenario_names(),
            "ers_visibility": gm_forms.translated(gm_forms.ERS_VISIBILITY)}


@router.get("/new-campaign", response_class=HTMLResponse)
async def new_campaign_page(request: Request):
    """The form of a new campaign: the operator's (the admin token's) alone, as ``POST /campaigns``."""
    try:
        caller = await _caller(request)
        _refuse(caller.actor, "create", None)
    except LedgerError as exc:
        return _error(request, exc)
    return render(request, "gm_new.html", _new_page())


@router.post("/new-campaign")
async def new_campaign(request: Request, form: FormDep):
    ledger = _ledger(request)
    try:
        caller = await _caller(request)
        _check_csrf(request, form)
        _refuse(caller.actor, "create", None)
    except LedgerError as exc:
        return _error(request, exc)

    def work() -> str:
        command = gm_forms.command_of("create", form, None)
        ledger.handle(campaign_id(command.slug), command, actor=caller.actor,
                      idempotency_key=form.get("key") or None)
        return command.slug

    try:
        slug = await run_in_threadpool(work)
    except LedgerError as exc:
        return render(request, "gm_new.html", _new_page(form, _failed("create", exc)), status=exc.status)
    return RedirectResponse(f"/ui/campaigns/{quote(slug)}/gm?created=1", status_code=303)


# ------------------------------------------------------------------ the game master's desk


def _entries(ledger: Ledger, cid: UUID, state: CampaignState) -> list[dict[str, Any]]:
    """The latest treasury entries, newest first, as the correction form names them (a few events read by
    position: the write side's treasury log knows where they are)."""
    log = state.treasury
    at = log.positions(("TreasuryEntryRecorded",))[-RECENT_ENTRIES:] if log is not None else []
    shown = []
    for position in reversed(at):
        e = ledger.event_at(cid, position)
        if isinstance(e, TreasuryEntryRecorded):
            shown.append({"position": position, "words": f"position {position}: {e.country} turn {e.turn}, "
                          f"{words.line_code(e.line)} {words.plain(e.amount)} ducats ({e.reason})"})
    return shown


def _desk(ledger: Ledger, actor: Actor, cid: UUID, posted: dict[str, str] | None = None,
          failed: dict[str, Any] | None = None) -> dict[str, Any]:
    state = ledger.campaign(cid)
    forms = gm_forms.offered(actor, state, gm_forms.DESK)
    if not forms:
        _refuse(actor, "treasury", state)  # nothing here this reader may do: refused as the API refuses
    return {"c": campaign_public(state), "forms": {n: gettext(gm_forms.FORMS[n].title) for n in forms},
            "phases": gm_forms.phases(state), "next_phase": gm_forms.next_phase(state),
            "lines": gm_forms.ers_lines(state.ruleset),
            "entries": _entries(ledger, cid, state) if "entry-correction" in forms else [],
            "settings": {"players_may_roll": bool(state.settings.get("players_may_roll")),
                         "players_may_move": bool(state.settings.get("players_may_move")),
                         "ers_visibility": state.settings.get("ers_visibility", "country")},
            "rules_options": gm_forms.rules_options(state) if "settings" in forms else [],
            "ers_visibility": gm_forms.translated(gm_forms.ERS_VISIBILITY), "posted": posted or {}, "failed": failed,
            "keys": {n: secrets.token_urlsafe(12) for n in gm_forms.DESK},
            "tokens_page": may_write(actor, "list_tokens", state.settings)}


@router.get("/campaigns/{campaign}/gm", response_class=HTMLResponse)
async def desk_page(request: Request, campaign: str, recorded: Annotated[int | None, Query(ge=1, le=2**53)] = None,
                    created: int | None = None):
    """The game master's desk: the turn and its phases, a treasury entry, a correction of one, the settings."""
    ledger = _ledger(request)
    try:
        actor, cid = await _reader(request, campaign)
        context = await run_in_threadpool(_desk, ledger, actor, cid)
        said = await run_in_threadpool(_said, ledger, cid, recorded) if recorded else None
    except LedgerError as exc:
        return _error(request, exc)
    return render(request, "gm.html", {**context, "recorded": said, "created": created})


def _said(ledger: Ledger, cid: UUID, position: int) -> dict[str, Any] | None:
    """What the form just recorded, as the turn's page says it (the desk is the game master's: every event is
    theirs to read)."""
    if not 1 <= position <= ledger.campaign(cid).version:
        return None
    e = ledger.event_at(cid, position)
    record = Record(str(cid), position, type(e).__name__, {**e.payload(), "context": e.context})
    return {"position": position, "turn": e.context.get("turn") or 0,
            "words": timeline.summary(timeline.empty(), record)}


@router.post("/campaigns/{campaign}/gm/{name}")
async def desk_form(request: Request, campaign: str, name: str, form: FormDep):
    """A form of the desk posted: its command through the API route's permission and ``Ledger.handle``; then the
    desk again, saying what was recorded, or the form with the error beside its field."""
    return await _post_form(
        request, campaign, name, form, gm_forms.DESK,
        lambda ledger, actor, cid, failed: ("gm.html", _desk(ledger, actor, cid, form, failed)),
        lambda at: f"/ui/campaigns/{campaign}/gm?recorded={at}#form-{name}")


async def _post_form(request: Request, campaign: str, name: str, form: dict[str, str], forms: Any,
                     again: Callable[..., tuple[str, dict[str, Any]]], done: Callable[[int], str]) -> Response:
    """A game master's form posted (the desk's, the setup pages'): the page's forms only, the CSRF token and
    the API route's permission, then its command through ``Ledger.handle``; on success a redirect to ``done``
    (the position recorded), else the page ``again`` builds, with the error beside the form's field."""
    ledger = _ledger(request)
    try:
        actor, cid = await _reader(request, campaign)
        _check_csrf(request, form)
        if name not in forms:
            raise InvalidInput(f"no form {name!r} on this page", field="form")
        state = await run_in_threadpool(ledger.campaign, cid)
        _refuse(actor, name, state)
    except LedgerError as exc:
        return _error(request, exc)

    def work() -> int:
        command = gm_forms.command_of(name, form, ledger.campaign(cid))
        done = ledger.handle(cid, command, actor=actor, idempotency_key=form.get("key") or None)
        return done.events[-1]["position"]

    try:
        at = await run_in_threadpool(work)
    except Unauthorized as exc:
        return _error(request, exc)
    except LedgerError as exc:
        template, context = await run_in_threadpool(again, ledger, actor, cid, _failed(name, exc))
        return render(request, template, context, status=exc.status)
    return RedirectResponse(done(at), status_code=303)


# ------------------------------------------------------------------ tokens


def _tokens_page(ledger: Ledger, actor: Actor, cid: UUID, posted: dict[str, str] | None = None,
                 failed: dict[str, Any] | None = None) -> dict[str, Any]:
    state = ledger.campaign(cid)
    if not may_write(actor, "list_tokens", state.settings):
        _refuse(actor, "issue-token", state)  # the list is the game master's: refused as the API refuses it
    live = sorted(tokens.live_tokens(ledger, cid), key=lambda t: (t["role"], t["country"] or "", t["holder"] or ""))
    return {"c": campaign_public(state), "tokens": live, "roles": gm_forms.translated(gm_forms.ROLES),
            "forms": gm_forms.offered(actor, state, gm_forms.TOKENS), "posted": posted or {}, "failed": failed,
            "key": secrets.token_urlsafe(12), "issued": None}


@router.get("/campaigns/{campaign}/tokens", response_class=HTMLResponse)
async def tokens_page(request: Request, campaign: str):
    """The campaign's live tokens (never their secrets), a form to issue one and one to revoke each."""
    try:
        actor, cid = await _reader(request, campaign)
        context = await run_in_threadpool(_tokens_page, _ledger(request), actor, cid)
    except LedgerError as exc:
        return _error(request, exc)
    return render(request, "gm_tokens.html", context)


def _login_link(request: Request, slug: str, raw: str) -> str:
    """The link that logs the token's holder in: the token after ``#``, which the browser never sends to the
    server (no access log holds it); the login page's script fills the form from it."""
    base = str(request.base_url).rstrip("/")
    return f"{base}/ui/login?next={quote(f'/ui/campaigns/{slug}', safe='')}#token={raw}"


@router.post("/campaigns/{campaign}/tokens/issue")
async def issue_token(request: Request, campaign: str, form: FormDep):
    """A token issued: its secret shown on this answer only (never kept by a cache), with a ready login link."""
    ledger = _ledger(request)
    try:
        actor, cid = await _reader(request, campaign)
        _check_csrf(request, form)
        _refuse(actor, "issue-token", await run_in_threadpool(ledger.campaign, cid))
    except LedgerError as exc:
        return _error(request, exc)

    def work() -> tuple[dict[str, Any], str | None]:
        command = gm_forms.command_of("issue-token", form, None)
        result, raw = tokens.issue_token(ledger, cid, command, actor=actor, idempotency_key=form.get("key") or None)
        return dict(result.data), raw  # token_id, role, country, holder

    try:
        issued, raw = await run_in_threadpool(work)
    except Unauthorized as exc:
        return _error(request, exc)
    except LedgerError as exc:
        context = await run_in_threadpool(_tokens_page, ledger, actor, cid, form, _failed("issue-token", exc))
        return render(request, "gm_tokens.html", context, status=exc.status)
    context = await run_in_threadpool(_tokens_page, ledger, actor, cid)
    slug = context["c"].slug
    context["issued"] = {**issued, "token": raw, "link": _login_link(request, slug, raw) if raw else None}
    response = render(request, "gm_tokens.html", context, status=201)
    response.headers["Cache-Control"] = "no-store"  # the secret: shown once, kept nowhere
    return response


@router.post("/campaigns/{campaign}/tokens/{token_id}/revoke")
async def revoke_token(request: Request, campaign: str, token_id: str, form: FormDep):
    ledger = _ledger(request)
    try:
        actor, cid = await _reader(request, campaign)
        _check_csrf(request, form)
        _refuse(actor, "revoke-token", await run_in_threadpool(ledger.campaign, cid))
    except LedgerError as exc:
        return _error(request, exc)

    def work() -> None:
        command = gm_forms.command_of("revoke-token", {**form, "token_id": token_id[:64]}, None)
        ledger.handle(cid, command, actor=actor, idempotency_key=form.get("key") or None)

    try:
        await run_in_threadpool(work)
    except Unauthorized as exc:
        return _error(request, exc)
    except LedgerError as exc:
        failed = _failed("revoke-token", exc)
        if any(t["id"] == token_id for t in tokens.live_tokens(ledger, cid)):
            failed["token"] = token_id  # beside its row; an unknown or revoked one is said above the table
        context = await run_in_threadpool(_tokens_page, ledger, actor, cid, form, failed)
        return render(request, "gm_tokens.html", context, status=exc.status)
    return RedirectResponse(f"/ui/campaigns/{campaign}/tokens?revoked={quote(token_id)}", status_code=303)


# ------------------------------------------------------------------ a country's setup; the stacks and leaders
# Two pages of forms over the commands the JSON routes take (``POST .../map/countries``, ``.../trade/...``,
# ``.../map/stacks/disband``, ``.../map/leaders/values``), each prefilled with what the write side holds now.

PAGES = {"countries": (gm_forms.COUNTRY_SETUP, "gm_countries.html"), "stacks": (gm_forms.STACKS, "gm_stacks.html")}


def _chosen(state: CampaignState, country: str | None) -> str:
    """The country the setup page shows: the one asked for if it is the campaign's, else the first."""
    return country if country in state.countries else state.countries[0]


def _countries_page(ledger: Ledger, actor: Actor, cid: UUID, query: dict[str, str],
                    posted: dict[str, str] | None = None, failed: dict[str, Any] | None = None) -> dict[str, Any]:
    from ledger.board import load_board
    from ledger.economy.trade_income import CENTRES, RESOURCE_NAMES, zone_ids
    from ledger.rules.core import load_table

    state = ledger.campaign(cid)
    forms = gm_forms.offered(actor, state, gm_forms.COUNTRY_SETUP)
    if not forms:
        _refuse(actor, "country-facts", state)  # the game master's page: refused as the API refuses
    country = _chosen(state, (posted or query).get("country"))
    facts = gm_forms.country_facts_of(state, country)
    everyone = (state.military or {}).get("countries") or {}
    scenario = ledger.scenario(cid) or {}
    try:
        technologies = load_table(f"ledger.rules.{state.ruleset}", "technologies.toml")
    except (ModuleNotFoundError, FileNotFoundError):
        technologies = {}
    board = load_board(scenario["board"]) if scenario.get("board") else None
    zone, centre, place = query.get("zone") or "", query.get("centre") or "", query.get("place") or ""
    kind = query.get("kind") if query.get("kind") in ("colony", "trading_post") else "colony"
    held = {c: {"holder": code, **v} for code, cf in everyone.items() for c, v in (cf.get("trade_centres") or {}).items()}
    establishment = {"kind": kind, "place": place,
                     "level": str((facts.get("colonies" if kind == "colony" else "trading_posts") or {}).get(place, "")),
                     "exploits": ", ".join(f"{r}: {n}" for r, n in ((facts.get("exploits") or {}).get(place) or {}).items()),
                     "gold": "yes" if place in (facts.get("gold") or ()) else "no"}
    return {"c": campaign_public(state), "country": country, "forms": {n: gm_forms.FORMS[n].title for n in forms},
            "facts": facts, "posted": posted or {}, "failed": failed,
            "keys": {n: secrets.token_urlsafe(12) for n in gm_forms.COUNTRY_SETUP},
            "prefill": {"country-facts": gm_forms.facts_shown(facts),
                        "trade-fleet": {"zone": zone, "level": str((facts.get("trade_fleets") or {}).get(zone, ""))},
                        "trade-centre": {"centre": centre or "atlantic",
                                         "holder": (held.get(centre) or {}).get("holder") or country,
                                         "province": (held.get(centre) or {}).get("province") or "",
                                         "income": str((held.get(centre) or {}).get("income") or "")},
                        "establishment": establishment,
                        "mission": {"place": place, "present": "no" if place in (facts.get("missions") or ()) else "yes"}},
            "technologies": {k: [(code, f"{code} ({', '.join(names)})" if names else code)
                                 for code, names in technologies.get(k, {}).items()] for k in ("land", "naval")},
            "centres": [{"code": code, "name": name, **held.get(code, {})} for code, name in CENTRES.items()],
            "centre_choices": list(CENTRES.items()), "resources": RESOURCE_NAMES,
            "resource_codes": ", ".join(f"{code} {name}" for code, name in RESOURCE_NAMES.items()),
            "zones": list(zone_ids()),
            "rotw": sorted(board.rotw) if board is not None else [],
            "scenario_countries": [c["code"] for c in scenario.get("countries") or ()]}


def _stacks_page(ledger: Ledger, actor: Actor, cid: UUID, query: dict[str, str],
                 posted: dict[str, str] | None = None, failed: dict[str, Any] | None = None) -> dict[str, Any]:
    state = ledger.campaign(cid)
    forms = gm_forms.offered(actor, state, gm_forms.STACKS)
    if not forms:
        _refuse(actor, "disband", state)
    seen, military = sight.seen(state, actor)  # the game master's: every stack
    where = {sid: at for sid, (at, *_) in seen.items()}
    stacks = [{"id": sid, "country": f["country"], "at": where.get(sid, ""),
               "units": ", ".join(f"{words.plain(n)} {u}" for u, n in f["units"].items()) or "no unit",
               "leaders": f["leaders"]} for sid, f in sorted((military.get("forces") or {}).items())]
    name = (posted or query).get("leader") or ""
    found = gm_forms.leader_of(state, name)
    leader = {"name": name, "stack": found[0] if found else None,
              **{k: str(found[1].get(k, 0)) if found else "" for k in ("fire", "shock", "manoeuvre", "siege")}}
    return {"c": campaign_public(state), "forms": {n: gm_forms.FORMS[n].title for n in forms}, "stacks": stacks,
            "leader": leader, "stack": (posted or query).get("stack") or "", "posted": posted or {},
            "failed": failed, "keys": {n: secrets.token_urlsafe(12) for n in gm_forms.STACKS}}


_BUILDERS = {"countries": _countries_page, "stacks": _stacks_page}


@router.get("/campaigns/{campaign}/countries", response_class=HTMLResponse)
async def countries_page(request: Request, campaign: str, recorded: Annotated[int | None, Query(ge=1, le=2**53)] = None):
    """A country's setup: its technologies, domestic trade, vassals, manufactures and mines, its trade fleets,
    trade centres, colonies, trading posts and missions, each form prefilled with what the ledger holds."""
    return await _setup_get(request, campaign, "countries", recorded)


@router.get("/campaigns/{campaign}/stacks", response_class=HTMLResponse)
async def stacks_page(request: Request, campaign: str, recorded: Annotated[int | None, Query(ge=1, le=2**53)] = None):
    """The stacks on the map with their leaders' values: disband a stack, give a leader his printed values."""
    return await _setup_get(request, campaign, "stacks", recorded)


def _query(request: Request) -> dict[str, str]:
    return {k: v[:200] for k, v in request.query_params.items() if k in ("country", "zone", "centre", "place",
                                                                            "kind", "leader", "stack")}


async def _setup_get(request: Request, campaign: str, page: str, recorded: int | None) -> Response:
    ledger = _ledger(request)
    try:
        actor, cid = await _reader(request, campaign)
        context = await run_in_threadpool(_BUILDERS[page], ledger, actor, cid, _query(request))
        said = await run_in_threadpool(_said, ledger, cid, recorded) if recorded else None
    except LedgerError as exc:
        return _error(request, exc)
    return render(request, PAGES[page][1], {**context, "recorded": said})


@router.post("/campaigns/{campaign}/countries/{name}")
async def countries_form(request: Request, campaign: str, name: str, form: FormDep):
    """A form of a country's setup posted: recorded as the JSON route records it, or the page again with the
    error beside its field and what was typed."""
    return await _setup_post(request, campaign, "countries", name, form)


@router.post("/campaigns/{campaign}/stacks/{name}")
async def stacks_form(request: Request, campaign: str, name: str, form: FormDep):
    return await _setup_post(request, campaign, "stacks", name, form)


async def _setup_post(request: Request, campaign: str, page: str, name: str, form: dict[str, str]) -> Response:
    def back(at: int) -> str:
        where = f"?country={quote(form.get('country') or '')}&recorded={at}" if page == "countries" \
            else f"?recorded={at}"
        return f"/ui/campaigns/{campaign}/{page}{where}#form-{name}"

    return await _post_form(
        request, campaign, name, form, PAGES[page][0],
        lambda ledger, actor, cid, failed: (PAGES[page][1], _BUILDERS[page](ledger, actor, cid, {}, form, failed)),
        back)
