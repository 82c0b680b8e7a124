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
from pydantic import BaseModel, Field

from api.deps import ActorDep, CallerDep, CampaignId, LedgerDep
from api.errors import ERRORS
from api.security import check_campaign
from ledger.domain.campaign import campaign_id

router = APIRouter(tags=["checkpoints"], responses=ERRORS)

HEX64 = ["b41a" + "0" * 60]


class LedgerKey(BaseModel):
    name: str = Field(description="The key name in checkpoint signature lines (and the origin's host)",
                      examples=["ledger.example.org"])
    algorithm: str = Field(examples=["ed25519"])
    key_id: str = Field(description="sha256(name || '\\n' || 0x01 || public key)[:4], hex", examples=["1a2b3c4d"])
    public_key: str = Field(description="The raw 32-byte Ed25519 public key, base64", examples=["MCow..."])
    vkey: str = Field(description="The signed-note verifier key: name+key id+base64(0x01 || key)",
                      examples=["ledger.example.org+1a2b3c4d+AQ..."])


class InclusionProof(BaseModel):
    position: int = Field(examples=[3])
    size: int = Field(description="The tree size (head position) the proof is for", examples=[8])
    leaf_hash: str = Field(description="sha256(0x00 || event hash), hex: the event's place, not its content",
                           examples=HEX64)
    root: str = Field(description="The RFC 6962 root at `size`, hex (the checkpoint's, base64 there)",
                      examples=HEX64)
    proof: list[str] = Field(description="The audit path, hex, leaf to root", examples=[HEX64])


class ConsistencyProof(BaseModel):
    from_: int = Field(alias="from", examples=[3])
    to: int = Field(examples=[8])
    from_root: str = Field(examples=HEX64)
    to_root: str = Field(examples=HEX64)
    proof: list[str] = Field(examples=[HEX64])


@router.get("/.well-known/ledger-key", response_model=LedgerKey, summary="The service's public checkpoint key")
def ledger_key(ledger: LedgerDep):
    s = ledger.signer
    return LedgerKey(name=s.name, algorithm="ed25519", key_id=s.key_id.hex(),
                     public_key=base64.b64encode(s.public).decode(), vkey=s.vkey())


@router.get("/campaigns/{campaign}/checkpoint", response_class=PlainTextResponse,
            summary="The signed checkpoint at the head (C2SP tlog-checkpoint in a signed note)",
            responses={200: {"content": {"text/plain": {}}}})
def checkpoint(cid: CampaignId, ledger: LedgerDep, actor: ActorDep):
    return PlainTextResponse(ledger.checkpoint(cid), media_type="text/plain; charset=utf-8")


@router.get("/campaigns/{campaign}/proofs/inclusion", response_model=InclusionProof,
            summary="Proof that the event at a position is in the tree of a given size")
def inclusion(cid: CampaignId, ledger: LedgerDep, actor: ActorDep,
              position: Annotated[int, Query(ge=1, le=2**53, examples=[3])],
              size: Annotated[int | None, Query(ge=1, le=2**53, description="default: the head")] = None):
    return ledger.inclusion_proof(cid, position, size)


@router.get("/campaigns/{campaign}/proofs/consistency", response_model=ConsistencyProof,
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
