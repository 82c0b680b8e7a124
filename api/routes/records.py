"""Dice, rulings, treasury entries and corrections: what a game master records."""

from __future__ import annotations

from fastapi import APIRouter, status

from api import schemas
from api.deps import ActorDep, CampaignId, IdempotencyKey, LedgerDep
from api.routes.views import appended, ctx, event_public, vis
from ledger.domain.errors import EventNotFound
from ledger.domain.events import RulingRecorded

router = APIRouter(prefix="/campaigns/{campaign}", tags=["records"])


@router.post("/rolls", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED)
def roll(body: schemas.RollCreate, cid: CampaignId, ledger: LedgerDep, actor: ActorDep, key: IdempotencyKey):
    if body.values is not None:
        result = ledger.record_manual_roll(cid, purpose=body.purpose, sides=body.sides, values=body.values,
                                           actor=actor, vis=vis(body.visibility), context=ctx(body.context),
                                           idempotency_key=key)
    else:
        result = ledger.roll(cid, purpose=body.purpose, sides=body.sides, count=body.count, actor=actor,
                             vis=vis(body.visibility), context=ctx(body.context), idempotency_key=key)
    return appended(result)


@router.post("/rulings", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Resolve a procedure with server dice and record the ruling")
def record_ruling(body: schemas.RulingCreate, cid: CampaignId, ledger: LedgerDep, actor: ActorDep,
                  key: IdempotencyKey):
    result = ledger.record_ruling(cid, procedure=body.procedure, inputs=body.inputs, manual_dice=body.manual_dice,
                                  actor=actor, vis=vis(body.visibility), context=ctx(body.context),
                                  idempotency_key=key)
    return appended(result)


@router.get("/rulings", response_model=list[schemas.EventPublic])
def list_rulings(cid: CampaignId, ledger: LedgerDep):
    return [event_public(e) for e in ledger.history(cid) if isinstance(e, RulingRecorded)]


@router.get("/rulings/{position}", response_model=schemas.EventPublic)
def get_ruling(cid: CampaignId, position: int, ledger: LedgerDep):
    event = ledger.event_at(cid, position)
    if not isinstance(event, RulingRecorded):
        raise EventNotFound(f"the event at position {position} is a {type(event).__name__}, not a ruling",
                            field="position")
    return event_public(event)


@router.post("/treasury", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED)
def record_treasury(body: schemas.TreasuryCreate, cid: CampaignId, ledger: LedgerDep, actor: ActorDep,
                    key: IdempotencyKey):
    result = ledger.record_treasury_entry(cid, country=body.country, line=body.line, amount=body.amount,
                                          reason=body.reason, turn=body.turn, source=body.source, actor=actor,
                                          vis=vis(body.visibility), context=ctx(body.context),
                                          idempotency_key=key)
    return appended(result)


@router.post("/corrections", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED)
def record_correction(body: schemas.CorrectionCreate, cid: CampaignId, ledger: LedgerDep, actor: ActorDep,
                      key: IdempotencyKey):
    result = ledger.record_correction(cid, corrects=body.corrects, reason=body.reason,
                                      replacement=body.replacement, actor=actor, vis=vis(body.visibility),
                                      idempotency_key=key)
    return appended(result)
