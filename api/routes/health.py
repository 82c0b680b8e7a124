"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import LedgerDep

router = APIRouter(tags=["operations"])


@router.get("/health", response_model=dict[str, str])
def health():
    return {"status": "ok"}


@router.get("/ready", response_model=dict[str, str])
def ready(ledger: LedgerDep):
    ledger.recorder.max_notification_id()  # the store answers
    return {"status": "ready", "store": ledger.settings.backend}
