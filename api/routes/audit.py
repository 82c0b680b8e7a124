"""The history and its verification."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api import schemas
from api.deps import CampaignId, LedgerDep
from api.routes.views import event_public

router = APIRouter(prefix="/campaigns/{campaign}", tags=["audit"])


@router.get("/events", response_model=list[schemas.EventPublic], summary="The history in order, with hashes")
def list_events(cid: CampaignId, ledger: LedgerDep, after: Annotated[int, Query(ge=0)] = 0,
                limit: Annotated[int, Query(ge=1, le=5000)] = 500):
    return [event_public(e) for e in ledger.history(cid, after=after, limit=limit)]


@router.get("/verify", response_model=schemas.ChainPublic, summary="Walk the hash chain")
def verify(cid: CampaignId, ledger: LedgerDep):
    r = ledger.verify(cid)
    return schemas.ChainPublic(intact=r.intact, count=r.count, head_hash=r.head_hash, broken_at=r.broken_at,
                               reason=r.reason)


@router.get("/turns/{turn}/dice/verify", response_model=schemas.DicePublic,
            summary="Recompute every server roll of a closed turn from its revealed seed")
def verify_dice(cid: CampaignId, turn: int, ledger: LedgerDep):
    r = ledger.verify_dice(cid, turn)
    return schemas.DicePublic(turn=r.turn, checked=r.checked, manual=r.manual, ok=r.ok,
                              mismatches=list(r.mismatches))
