"""Campaigns and turns."""

from __future__ import annotations

from fastapi import APIRouter, status

from api import schemas
from api.deps import ActorDep, CampaignId, IdempotencyKey, LedgerDep
from api.routes.views import appended, campaign_public
from ledger.domain.errors import StateConflict

router = APIRouter(prefix="/campaigns", tags=["campaigns"])


@router.post("", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED)
def create_campaign(body: schemas.CampaignCreate, ledger: LedgerDep, actor: ActorDep, key: IdempotencyKey):
    result = ledger.create_campaign(
        slug=body.slug, name=body.name, ruleset=body.ruleset, countries=body.countries, players=body.players,
        game_masters=body.game_masters, settings=body.settings, actor=actor, idempotency_key=key,
    )
    return appended(result)


@router.get("", response_model=list[schemas.CampaignPublic])
def list_campaigns(ledger: LedgerDep):
    return [campaign_public(c) for c in ledger.campaigns()]


@router.get("/{campaign}", response_model=schemas.CampaignPublic)
def get_campaign(cid: CampaignId, ledger: LedgerDep):
    return campaign_public(ledger.campaign(cid))


@router.post("/{campaign}/turns", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             tags=["turns"], summary="Open the next turn (records the dice commitment)")
def open_turn(cid: CampaignId, ledger: LedgerDep, actor: ActorDep, key: IdempotencyKey):
    return appended(ledger.open_turn(cid, actor=actor, idempotency_key=key))


@router.post("/{campaign}/turns/{turn}/close", response_model=schemas.Appended, tags=["turns"],
             summary="Close the open turn (reveals its dice seed)")
def close_turn(cid: CampaignId, turn: int, ledger: LedgerDep, actor: ActorDep, key: IdempotencyKey):
    state = ledger.campaign(cid)
    if not state.turn_open or state.turn != turn:
        raise StateConflict(f"turn {turn} is not the open turn", field="turn")
    return appended(ledger.close_turn(cid, actor=actor, idempotency_key=key))
