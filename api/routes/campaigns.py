"""Campaigns and turns."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, status
from pydantic import BaseModel, ConfigDict, Field

from api import schemas
from api.deps import ActorDep, CallerDep, CampaignId, CampaignStateDep, IdempotencyKey, LedgerDep, Permit
from api.errors import ERRORS
from api.routes.views import appended, campaign_public
from ledger import campaign_settings
from ledger.domain.errors import StateConflict

router = APIRouter(prefix="/campaigns", tags=["campaigns"])


@router.post("", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Create a campaign (admin token)", responses=ERRORS)
def create_campaign(body: schemas.CampaignCreate, ledger: LedgerDep, actor: Permit("create_campaign"),
                    key: IdempotencyKey):
    result = ledger.create_campaign(
        slug=body.slug, name=body.name, ruleset=body.ruleset, countries=body.countries, players=body.players,
        game_masters=body.game_masters, settings=body.settings, actor=actor, idempotency_key=key,
    )
    return appended(result)


@router.get("", response_model=list[schemas.CampaignPublic], summary="The campaigns this token may read",
            responses=ERRORS)
def list_campaigns(ledger: LedgerDep, caller: CallerDep):
    if caller.campaign is not None:  # a campaign token reads its own campaign only
        return [campaign_public(ledger.campaign(caller.campaign))]
    return [campaign_public(c) for c in ledger.campaigns()]


@router.get("/{campaign}", response_model=schemas.CampaignPublic, summary="A campaign, by id or slug",
            responses=ERRORS)
def get_campaign(cid: CampaignId, actor: ActorDep, state: CampaignStateDep):
    return campaign_public(state)


@router.post("/{campaign}/turns", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             tags=["turns"], summary="Open the next turn (records the dice commitment)", responses=ERRORS)
def open_turn(cid: CampaignId, ledger: LedgerDep, actor: Permit("open_turn"), key: IdempotencyKey):
    return appended(ledger.open_turn(cid, actor=actor, idempotency_key=key))


@router.post("/{campaign}/turns/{turn}/close", response_model=schemas.Appended, tags=["turns"],
             summary="Close the open turn (reveals its dice seed)", responses=ERRORS)
def close_turn(cid: CampaignId, turn: Annotated[int, Path(ge=1, le=2**31, examples=[1])], ledger: LedgerDep,
               actor: Permit("close_turn"), key: IdempotencyKey, state: CampaignStateDep):
    if not state.turn_open or state.turn != turn:
        raise StateConflict(f"turn {turn} is not the open turn", field="turn")
    return appended(ledger.close_turn(cid, actor=actor, idempotency_key=key))


class SettingsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    players_may_roll: bool | None = Field(default=None, examples=[True],
                                          description="Players may roll server dice and record rulings")


class SettingsChange(BaseModel):
    model_config = ConfigDict(extra="forbid")
    settings: SettingsIn = Field(examples=[{"players_may_roll": True}])
    reason: str = Field(min_length=1, max_length=500, examples=["players roll their own interceptions"])


@router.post("/{campaign}/settings", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Change campaign settings (game master): counts at once on every server process",
             responses=ERRORS)
def change_settings(body: SettingsChange, cid: CampaignId, ledger: LedgerDep, actor: Permit("change_settings"),
                    key: IdempotencyKey):
    changed = body.settings.model_dump(exclude_none=True)
    return appended(campaign_settings.change_settings(ledger, cid, changed, reason=body.reason, actor=actor,
                                                      idempotency_key=key))
