"""The turn's phases and the Economic Record Sheet of a country."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, status
from pydantic import BaseModel

from api import schemas
from api.deps import ActorDep, CampaignId, IdempotencyKey, LedgerDep, Permit
from api.routes.projections import _projector
from api.routes.views import appended
from ledger import phases
from ledger.access import ALL_SEEING
from ledger.domain.errors import EventNotFound, InvalidInput
from projections.budget import sheet_json
from projections.budget_view import stored_sheet

router = APIRouter(prefix="/campaigns/{campaign}", tags=["economy"])


class ErsLine(BaseModel):
    code: str
    name: str
    sheet: str
    kind: str  # entered | derived
    unit: str
    amount: int
    ticks: int | None
    formula: str | None
    sources: list[str]  # lines a derived (or defaulted) cell is computed from
    events: list[int]  # positions of the events an entered cell comes from
    defaulted: bool
    alert: str | None
    at_close: dict[str, Any] | None


class ErsSheet(BaseModel):
    country: str
    turn: int
    lines: list[ErsLine]
    error: dict[str, Any] | None
    unbooked: list[dict[str, Any]]
    phases_closed: list[str]


@router.post("/phases/{phase}/close", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Close a phase of the open turn (in order, once): records the ERS lines it completes")
def close_phase(phase: str, cid: CampaignId, ledger: LedgerDep,
                actor: Permit("close_phase"),  # type: ignore[valid-type]
                key: IdempotencyKey):
    return appended(phases.close_phase(ledger, cid, phase, actor=actor, idempotency_key=key))


@router.get("/ers/{country}/{turn}", response_model=ErsSheet,
            summary="A country's ERS for a turn: every line, entered or derived, with its sources")
def ers_sheet(country: str, turn: int, cid: CampaignId, ledger: LedgerDep, actor: ActorDep, request: Request):
    state = ledger.campaign(cid)
    state.require_country(country)
    if turn < 1 or turn > state.turn:
        raise InvalidInput(f"turn {turn} has not been opened (current turn {state.turn})", field="turn")
    if actor.role in ALL_SEEING:
        # The stored budget view holds every event's effect: served only when it has reached the head.
        stored = stored_sheet(_projector(request).db, str(cid), country, turn, state.version)
        if stored is not None:
            return stored
    # Computed from the events this caller may see: a hidden entry stays hidden in the totals too.
    sheet = phases.campaign_budget(ledger, cid, actor=actor).sheet(country, turn)
    if sheet is None:
        raise EventNotFound(f"no ERS for {country} at turn {turn}", field="turn")
    return sheet_json(sheet)
