"""App factory: settings, ledger and routers are assembled here, not at import."""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI

from api import errors
from api.routes import audit, campaigns, health, records
from ledger.application import Ledger
from ledger.config import Settings


def create_app(settings: Settings | None = None, ledger: Ledger | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.ledger = ledger or Ledger(settings)
        yield
        if ledger is None:
            app.state.ledger.close()

    app = FastAPI(
        title="Wargame ledger",
        version="0.1.0",
        description="Event-sourced ledger for hex-and-counter wargames: verifiable dice, recomputable rulings, "
        "hash-chained history.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    if ledger is not None:
        app.state.ledger = ledger
    errors.register(app)
    for module in (health, campaigns, records, audit):
        app.include_router(module.router)
    return app
