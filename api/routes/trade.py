"""What a game master records of the trade and the rest of the world on the board (issue 36): trade fleets,
trade centres, colonies and trading posts, missions (names checked against the board)."""

from __future__ import annotations

from fastapi import APIRouter, status

from api import schemas
from api.deps import CampaignId, IdempotencyKey, LedgerDep, Permit
from api.errors import ERRORS
from api.routes.views import appended
from ledger.domain import commands as cmd

router = APIRouter(prefix="/campaigns/{campaign}/trade", tags=["trade"], responses=ERRORS)


@router.post("/fleets", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A country's trade fleet in a trade zone is now at a level (0: none)")
def change_trade_fleet(body: cmd.ChangeTradeFleet, cid: CampaignId, ledger: LedgerDep,
                       actor: Permit("change_trade_fleet"), key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/centres", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A trade centre is now held by a country (or nobody), in a province")
def change_trade_centre(body: cmd.ChangeTradeCentre, cid: CampaignId, ledger: LedgerDep,
                        actor: Permit("change_trade_centre"), key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/establishments", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A country's colony or trading post is now at a level (0: gone), with what it exploits")
def change_establishment(body: cmd.ChangeEstablishment, cid: CampaignId, ledger: LedgerDep,
                         actor: Permit("change_establishment"), key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/missions", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A country's mission is founded or gone")
def change_mission(body: cmd.ChangeMission, cid: CampaignId, ledger: LedgerDep, actor: Permit("change_mission"),
                   key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))
