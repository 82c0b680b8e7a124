"""Access tokens of a campaign (issued and revoked by its game master) and visibility reveals."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, status
from pydantic import BaseModel, ConfigDict, Field

from api import schemas
from api.deps import CampaignId, IdempotencyKey, LedgerDep, Permit
from api.errors import ERRORS
from api.routes.views import appended
from ledger import tokens

router = APIRouter(prefix="/campaigns/{campaign}", tags=["access"], responses=ERRORS)


class TokenCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: Literal["gm", "player", "observer"] = Field(examples=["player"])
    country: str | None = Field(default=None, max_length=4, examples=["FRA"],
                                description="The player's country (players only)")
    holder: str | None = Field(default=None, min_length=1, max_length=100, examples=["bruno"],
                               description="Who holds it; recorded as the actor of their events")


class TokenPublic(BaseModel):
    id: str = Field(examples=["3f9a0c1d2e4b5a69"])
    role: str = Field(examples=["player"])
    country: str | None = Field(examples=["FRA"])
    holder: str = Field(examples=["bruno"])


class TokenIssuedPublic(schemas.Appended):
    token: str | None = Field(
        description="The secret, shown once: only its sha256 is kept. null on an idempotent replay.",
        examples=["lt_6d1c0b1e7f7a5b2c9e3d4f5a6b7c8d9e_Zk3...Q"],
    )


class TokenRevoke(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field(min_length=1, max_length=500, examples=["player left the game"])


class RevealCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    position: int = Field(ge=1, le=2**53, examples=[7], description="Position of the hidden event to make public")
    reason: str = Field(min_length=1, max_length=500, examples=["end of turn: secret rolls revealed"])


@router.post("/tokens", response_model=TokenIssuedPublic, status_code=status.HTTP_201_CREATED,
             summary="Issue a token (game master); the secret is in this response only")
def issue_token(body: TokenCreate, cid: CampaignId, ledger: LedgerDep, actor: Permit("issue_token"),
                key: IdempotencyKey):
    result, raw = tokens.issue_token(ledger, cid, role=body.role, country=body.country, holder=body.holder,
                                     actor=actor, idempotency_key=key)
    return TokenIssuedPublic(**appended(result).model_dump(), token=raw)


@router.get("/tokens", response_model=list[TokenPublic], summary="The live tokens (never their secrets)")
def list_tokens(cid: CampaignId, ledger: LedgerDep, actor: Permit("list_tokens")):
    return [TokenPublic(**t) for t in tokens.live_tokens(ledger, cid)]


@router.post("/tokens/{token_id}/revoke", response_model=schemas.Appended, summary="Revoke a token at once")
def revoke_token(body: TokenRevoke, cid: CampaignId, token_id: Annotated[str, Path(max_length=64)],
                 ledger: LedgerDep, actor: Permit("revoke_token"), key: IdempotencyKey):
    return appended(tokens.revoke_token(ledger, cid, token_id, reason=body.reason, actor=actor,
                                        idempotency_key=key))


@router.post("/reveals", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Make a hidden event public (a new event; the original is unchanged)")
def reveal(body: RevealCreate, cid: CampaignId, ledger: LedgerDep, actor: Permit("reveal"), key: IdempotencyKey):
    return appended(tokens.reveal(ledger, cid, body.position, reason=body.reason, actor=actor,
                                  idempotency_key=key))
