"""The turn's phases and the Economic Record Sheet of a country."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, status
from fastapi.responses import Response
from pydantic import BaseModel, Field

from api import readpath, schemas
from api.deps import ActorDep, CampaignId, CampaignStateDep, IdempotencyKey, LedgerDep, Permit
from api.errors import ERRORS
from api.routes.views import appended
from ledger.domain import commands as cmd
from ledger.domain.errors import EventNotFound, InvalidInput

router = APIRouter(prefix="/campaigns/{campaign}", tags=["economy"])


class ErsLine(BaseModel):
    code: str = Field(examples=["A9"])
    name: str = Field(examples=["Looting"])
    sheet: str = Field(examples=["A"])
    kind: str = Field(examples=["entered"], description="entered | derived")
    unit: str = Field(examples=["ducats"])
    amount: int = Field(examples=[35])
    ticks: int | None = Field(examples=[None])
    formula: str | None = Field(examples=[None])
    sources: list[str] = Field(examples=[[]], description="Lines a derived (or defaulted) cell is computed from")
    events: list[int] = Field(examples=[[12]], description="Positions of the events an entered cell comes from")
    defaulted: bool = Field(examples=[False])
    alert: str | None = Field(examples=[None])
    at_close: dict[str, Any] | None = Field(examples=[None])


class ErsSheet(BaseModel):
    country: str = Field(examples=["FRA"])
    turn: int = Field(examples=[1])
    lines: list[ErsLine]
    error: dict[str, Any] | None = Field(examples=[None])
    unbooked: list[dict[str, Any]] = Field(examples=[[]])
    phases_closed: list[str] = Field(examples=[["diplomacy"]])


PHASE = Path(min_length=1, max_length=40, examples=["diplomacy"], description="A phase of the sequence of play")


@router.post("/phases/{phase}/close", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             responses=ERRORS,
             summary="Close a phase of the open turn (in order, once): records the ERS lines it completes")
def close_phase(phase: Annotated[str, PHASE], cid: CampaignId, ledger: LedgerDep,
                actor: Permit("close_phase"),  # type: ignore[valid-type]
                key: IdempotencyKey):
    return appended(ledger.handle(cid, cmd.build(cmd.ClosePhase, phase=phase), actor=actor, idempotency_key=key))


@router.get("/ers/{country}/{turn}", response_model=ErsSheet, responses=ERRORS,
            summary="A country's ERS for a turn: every line, entered or derived, with its sources")
def ers_sheet(country: Annotated[str, Path(pattern=r"^[A-Z]{2,4}$", examples=["FRA"])],
              turn: Annotated[int, Path(ge=1, le=2**31, examples=[1])], cid: CampaignId, ledger: LedgerDep,
              actor: ActorDep, state: CampaignStateDep, request: Request) -> Response:
    state.require_country(country)
    if turn > state.turn:
        raise InvalidInput(f"turn {turn} has not been opened (current turn {state.turn})", field="turn")
    sheet = readpath.render_sheet(readpath.context(request, cid, actor, state), country, turn)
    if sheet is None:
        raise EventNotFound(f"no ERS for {country} at turn {turn}", field="turn")
    return readpath.respond(request, actor, state, sheet)  # bytes: the model above documents them
