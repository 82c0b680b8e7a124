"""The turn's phases and the Economic Record Sheet of a country."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, status
from fastapi.responses import Response

from api import schemas
from api.deps import ActorDep, CampaignId, CampaignStateDep, IdempotencyKey, LedgerDep, Permit
from api.errors import ERRORS
from api.readpath import ReadsDep, cached
from api.routes.views import appended
from ledger.domain import commands as cmd
from ledger.domain.errors import EventNotFound, InvalidInput

router = APIRouter(prefix="/campaigns/{campaign}", tags=["economy"])


PHASE = Path(min_length=1, max_length=40, examples=["diplomacy"], description="A phase of the sequence of play")


@router.post("/phases/{phase}/close", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             responses=ERRORS,
             summary="Close a phase of the open turn (in order, once): records the ERS lines it completes")
def close_phase(phase: Annotated[str, PHASE], cid: CampaignId, ledger: LedgerDep,
                actor: Permit("close_phase"),  # type: ignore[valid-type]
                key: IdempotencyKey):
    return appended(ledger.handle(cid, cmd.build(cmd.ClosePhase, phase=phase), actor=actor, idempotency_key=key))


@router.post("/ers/publish", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED, responses=ERRORS,
             summary="Publish a turn's ERS sheets (game master): their hidden entries become public, for good")
def publish_sheets(body: cmd.PublishSheets, cid: CampaignId, ledger: LedgerDep,
                   actor: Permit("publish_sheets"),  # type: ignore[valid-type]
                   key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.get("/ers/{country}/{turn}", responses={**ERRORS, 200: {"model": schemas.ErsSheet, "description": "The sheet"}},
            summary="A country's ERS for a turn: every line, entered or derived, with its sources")
async def ers_sheet(country: Annotated[str, Path(pattern=r"^[A-Z]{2,4}$", examples=["FRA"])],
                    turn: Annotated[int, Path(ge=1, le=2**31, examples=[1])], cid: CampaignId, actor: ActorDep,
                    state: CampaignStateDep, reads: ReadsDep, request: Request) -> Response:
    state.require_country(country)
    if turn > state.turn:
        raise InvalidInput(f"turn {turn} has not been opened (current turn {state.turn})", field="turn")

    def render() -> bytes:
        sheet = reads.reader.sheet(cid, actor, state, country, turn)
        if sheet is None:
            raise EventNotFound(f"no ERS for {country} at turn {turn}", field="turn")
        return sheet

    return await cached(request, reads, actor, state, render)  # JSON bytes: ErsSheet documents them
