"""Signed checkpoints and Merkle proofs: trust that does not depend on the operator.

The service's public key is published at ``/.well-known/ledger-key``; every
write returns a checkpoint signed by it (a receipt), and any checkpoint can be
asked for at the head. Proofs link receipts to each other and to events:
inclusion (an event, hidden or not, is in the tree a checkpoint signs: the
caller learns its hash, never its content) and consistency (a later tree
extends an earlier one: nothing before it was removed or rewritten).
"""

from __future__ import annotations

import base64
from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import PlainTextResponse

from api import schemas
from api.deps import ActorDep, CallerDep, CampaignId, LedgerDep
from api.errors import ERRORS
from api.security import check_campaign
from ledger.domain.campaign import campaign_id

router = APIRouter(tags=["checkpoints"], responses=ERRORS)



@router.get("/.well-known/ledger-key", response_model=schemas.LedgerKey, summary="The service's public checkpoint key")
def ledger_key(ledger: LedgerDep):
    s = ledger.signer
    return schemas.LedgerKey(name=s.name, algorithm="ed25519", key_id=s.key_id.hex(),
                     public_key=base64.b64encode(s.public).decode(), vkey=s.vkey())


@router.get("/campaigns/{campaign}/checkpoint", response_class=PlainTextResponse,
            summary="The signed checkpoint at the head, or at a turn's close (C2SP tlog-checkpoint in a signed note)",
            responses={200: {"content": {"text/plain": {}}}})
def checkpoint(cid: CampaignId, ledger: LedgerDep, actor: ActorDep,
               turn: Annotated[int | None, Query(ge=1, le=10_000, examples=[3],
                                                 description="the checkpoint signed when this turn closed")] = None):
    return PlainTextResponse(ledger.checkpoint(cid, turn), media_type="text/plain; charset=utf-8")


@router.get("/campaigns/{campaign}/proofs/inclusion", response_model=schemas.InclusionProof,
            summary="Proof that the event at a position is in the tree of a given size")
def inclusion(cid: CampaignId, ledger: LedgerDep, actor: ActorDep,
              position: Annotated[int, Query(ge=1, le=2**53, examples=[3])],
              size: Annotated[int | None, Query(ge=1, le=2**53, description="default: the head")] = None):
    return ledger.inclusion_proof(cid, position, size)


@router.get("/campaigns/{campaign}/proofs/consistency", response_model=schemas.ConsistencyProof,
            summary="Proof that the tree of size `to` extends the tree of size `from`")
def consistency(cid: CampaignId, ledger: LedgerDep, actor: ActorDep,
                first: Annotated[int, Query(alias="from", ge=1, le=2**53, examples=[3])],
                to: Annotated[int | None, Query(ge=1, le=2**53, description="default: the head")] = None):
    return ledger.consistency_proof(cid, first, to)


def campaign_ref(request: Request, caller: CallerDep,
                 campaign: Annotated[str, Path(min_length=1, max_length=100)]) -> UUID:
    """The path's campaign id, without loading its state: what ``/verify`` needs to answer on a damaged one."""
    try:
        cid = UUID(campaign)
    except ValueError:
        cid = campaign_id(campaign)
    check_campaign(caller, cid)
    return cid
