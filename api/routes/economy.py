"""The turn's phases and the Economic Record Sheet of a country."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, status
from fastapi.responses import Response

from api import schemas
from api.deps import ActorDep, CampaignId, CampaignStateDep, IdempotencyKey, LedgerDep, Permit
from api.errors import ERRORS
from api.readpath import ReadsDep, cached
from api.routes.views import appended
from ledger.domain import commands as cmd
from ledger.domain.errors import EventNotFound, InvalidInput
from projections import income

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


@router.post("/income/confirm", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             responses=ERRORS,
             summary="Confirm the income and upkeep lines the board works out (game master): one event per "
                     "country and the entries booking its lines; a typed value the board contradicts is refused "
                     "unless kept with a reason")
def confirm_income(body: cmd.ConfirmIncome, cid: CampaignId, ledger: LedgerDep,
                   actor: Permit("confirm_income"),  # type: ignore[valid-type]
                   key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.get("/income", response_model=schemas.IncomeProposal, responses=ERRORS,
            summary="A country's income and upkeep lines worked out from the board, with their lineage (the game "
                    "master: any country; a player: their own, as they see the map)")
def income_proposal(cid: CampaignId, ledger: LedgerDep, actor: ActorDep, state: CampaignStateDep, reads: ReadsDep,
                    country: Annotated[str, Query(pattern=r"^[A-Z]{2,4}$", examples=["POR"])],
                    at: Annotated[int | None, Query(ge=1, le=2**53, description="A position (default: the head)")]
                    = None):
    return income.proposal_answer(ledger, cid, actor, state, country, at, reads.reader.records_at)
