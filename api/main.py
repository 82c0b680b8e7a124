"""App factory: settings, ledger and routers are assembled here, not at import."""

from __future__ import annotations

import logging
import os
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.routing import Match, get_route_path

from api import errors, guards, readpath, replica, warmup
from api.observability import LagWatch, Observability, StoreHealth, configure_logging
from api.routes import audit, campaigns, health, records, tokens
from api.routes import checkpoints, economy, moves, notify, trade
from api.routes import export as export_routes
from api.routes import projections as projection_routes
from api.routes import gm_web, notify_web, pace, pace_web, web
from api.language import Language
from api.security import open_development
from ledger.application import Ledger
from ledger.config import Settings
from ledger.deadlines import Ticker
from ledger.supervision import SteadyGC, die_with_parent
from projections.delivery import DeliveryWorker
from projections.runner import ProjectionRunner


def create_app(settings: Settings | None = None, ledger: Ledger | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        # A worker of `ledger serve --workers N` exits when the master dies, even by kill -9 (ledger/supervision.py).
        die_with_parent()
        collector = SteadyGC(settings.full_gc_seconds, settings.young_gc_objects).start()
        runner = deliveries = ticker = None
        try:  # a start-up that fails (a bad key, a store refused) still gives the process its GC rule back
            app.state.ledger = ledger or Ledger(settings)
            # Embedded default: the views follow the log in a background thread (else `ledger project --follow`).
            runner = ProjectionRunner(app.state.ledger).start() if settings.projection_runner == "thread" else None
            app.state.projection_runner = runner
            # The outbox's messages (projections/outbox.py) are sent from a thread too, unless another process does.
            deliveries = DeliveryWorker(app.state.ledger).start() if settings.notify_delivery == "thread" else None
            # Reminders due are recorded once whichever worker's ticker sees them first (ledger/deadlines.py).
            if settings.deadline_tick_seconds > 0:
                ticker = Ticker(app.state.ledger, settings.deadline_tick_seconds).start()
            # With LEDGER_POSTGRES_REPLICA_DSN, reads are served by a streaming replica (api/replica.py).
            if replica.replica_of(app) is not None:
                readpath.replica_reads_of(app)
            await warmup.warm(app)  # before the first connection: its one-off costs are not a person's wait
            collector.settle()  # what start-up built stays out of every later collection's walk
            yield
        finally:
            if deliveries is not None:
                deliveries.stop()
            if ticker is not None:
                ticker.stop()
            if runner is not None:
                runner.stop()
            if getattr(app.state, "replica", None) is not None:
                app.state.replica.close()
                app.state.replica = app.state.replica_reads = None
            if ledger is None and getattr(app.state, "ledger", None) is not None:
                app.state.ledger.close()
            collector.stop()

    app = FastAPI(
        title="Wargame ledger",
        version="0.1.0",
        description="Event-sourced ledger for hex-and-counter wargames: verifiable dice, recomputable rulings, "
        "hash-chained history.",
        lifespan=lifespan,
        # Served below from files of the fastapi-offline package: FastAPI's defaults load them from a CDN.
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.store_health = StoreHealth()  # a write the store refused, for /ready
    app.state.lag_watch = LagWatch()  # views behind for good, for /ready
    if ledger is not None:
        app.state.ledger = ledger
    errors.register(app)
    # The most requested first: FastAPI keeps included routers nested and matches a request against each route of
    # each router in this order, ~2 us a route (the web pages, last, took ~90 us to find). No two routes answer
    # the same request (tests/unit/test_routing_order.py): the order changes no answer.
    app.include_router(health.router)
    app.include_router(projection_routes.router)  # map, victory, timeline, state at N, diff
    app.include_router(web.router)  # the web page at /ui
    app.include_router(gm_web.router)  # the game master's pages at /ui (api/web/gm_forms.py)
    app.include_router(notify_web.router)  # the reader's notifications page at /ui
    app.include_router(economy.router)  # phases, ERS
    app.include_router(audit.router)  # events, chain, dice checks
    app.include_router(records.router)  # rolls, rulings, treasury, corrections
    app.include_router(moves.router)  # moves, control, markers, wars
    app.include_router(trade.router)  # trade fleets, trade centres, colonies and trading posts, missions
    app.include_router(campaigns.router)
    app.include_router(tokens.router)
    app.include_router(notify.router)  # notification endpoints and their deliveries
    app.include_router(export_routes.router)  # economic history downloads and charts
    app.include_router(checkpoints.router)  # the service's key, signed checkpoints, Merkle proofs
    app.include_router(pace.router)  # deadlines, readiness, reminders, read marks, the turn report
    app.include_router(pace_web.router)  # "Since you last looked" at /ui
    _reject_by_prefix(app)
    app.mount("/ui/static", StaticFiles(directory=web.WEB / "static"), name="ui-static")
    _offline_docs(app)
    # Outermost last: request id and timing wrap everything, the size limit wraps the routes.
    app.add_middleware(errors.BodyLimit, max_bytes=settings.max_request_bytes)
    app.add_middleware(guards.ReadSlots, slots=settings.read_slots)  # reads take turns; writes go past them
    app.add_middleware(guards.InFlightLimit, limit=settings.limit_concurrency)  # 503 + Retry-After over the bound
    if open_development(settings):  # loopback Host only, no cross-site writes (DNS rebinding, CSRF)
        app.add_middleware(guards.LocalOnly)
    app.add_middleware(replica.Positions)  # a write's position (Ledger-Position) for read-your-writes
    app.add_middleware(Observability, statements=settings.count_statements)
    app.add_middleware(guards.SecurityHeaders)
    app.add_middleware(Language)  # the reader's language around all of it, errors included (api/language.py)
    configure_logging()
    if open_development(settings):
        logging.getLogger("ledger.security").warning(
            "development mode without LEDGER_ADMIN_TOKEN: requests from 127.0.0.1 without a token act as admin")
    return app


def _reject_by_prefix(app: FastAPI) -> None:
    """An included router answers "no match" at once for a path outside the literal prefix its routes share
    ("/ui", "/campaigns/"), rather than trying each of its routes (~2 us each: a JSON read went through the 17
    web pages' routes). Only a path no route of it could match is turned away: each route's pattern begins with
    that literal text."""
    for top in app.router.routes:
        contexts = getattr(top, "effective_route_contexts", None)
        if contexts is None:
            continue
        prefix = os.path.commonprefix([c.path for c in contexts()]).split("{", 1)[0]
        if len(prefix) < 2:  # "" or "/": every path
            continue
        matches = top.matches

        def quick(scope: dict, matches=matches, prefix=prefix) -> tuple[Match, dict]:
            if scope["type"] == "http" and not get_route_path(scope).startswith(prefix):
                return Match.NONE, {}
            return matches(scope)

        top.matches = quick  # type: ignore[method-assign]


def _offline_docs(app: FastAPI) -> None:
    """``/docs`` (Swagger UI 5, which reads OpenAPI 3.1) and ``/redoc`` from the static files the installed
    ``fastapi-offline`` package ships, so they render without internet. Only its files are used."""
    from pathlib import Path

    import fastapi_offline
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html

    app.mount("/docs/static", StaticFiles(directory=Path(fastapi_offline.__file__).parent / "static"),
              name="docs-static")
    spec = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    def docs():
        return get_swagger_ui_html(openapi_url=spec, title=f"{app.title} · API",
                                   swagger_js_url="/docs/static/swagger-ui-bundle.js",
                                   swagger_css_url="/docs/static/swagger-ui.css",
                                   swagger_favicon_url="/docs/static/favicon.png")

    @app.get("/redoc", include_in_schema=False)
    def redoc():
        return get_redoc_html(openapi_url=spec, title=f"{app.title} · API", redoc_js_url="/docs/static/redoc.standalone.js",
                              redoc_favicon_url="/docs/static/favicon.png", with_google_fonts=False)
