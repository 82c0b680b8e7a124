"""Campaigns and turns."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Path, status

from api import schemas
from api.deps import ActorDep, CallerDep, CampaignId, CampaignStateDep, IdempotencyKey, LedgerDep, Permit
from api.errors import ERRORS
from api.routes.views import appended, campaign_public
from ledger.domain import commands as cmd
from ledger.domain.campaign import campaign_id

router = APIRouter(prefix="/campaigns", tags=["campaigns"])


@router.post("", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Create a campaign (admin token)", responses=ERRORS)
def create_campaign(body: cmd.CreateCampaign, ledger: LedgerDep, actor: Permit("create_campaign"),
                    key: IdempotencyKey):
    return appended(ledger.handle(campaign_id(body.slug), body, actor=actor, idempotency_key=key))


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
    return appended(ledger.handle(cid, cmd.OpenTurn(), actor=actor, idempotency_key=key))


@router.post("/{campaign}/turns/{turn}/close", response_model=schemas.Appended, tags=["turns"],
             summary="Close the open turn (reveals its dice seed)", responses=ERRORS)
def close_turn(cid: CampaignId, turn: Annotated[int, Path(ge=1, le=2**31, examples=[1])], ledger: LedgerDep,
               actor: Permit("close_turn"), key: IdempotencyKey,
               out_of_sequence: Annotated[str | None, Body(
                   embed=True, description="Game master: close the turn although some of its phases are open "
                                           "(why; recorded)")] = None):
    # The turn is checked by the use case, after an idempotent replay: a retried close answers as the first.
    fields = {"out_of_sequence": out_of_sequence} if out_of_sequence is not None else {}
    return appended(ledger.handle(cid, cmd.build(cmd.CloseTurn, turn=turn, **fields), actor=actor,
                                  idempotency_key=key))


@router.post("/{campaign}/settings", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Change campaign settings (game master): counts at once on every server process",
             responses=ERRORS)
def change_settings(body: cmd.ChangeSettings, cid: CampaignId, ledger: LedgerDep, actor: Permit("change_settings"),
                    key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))
