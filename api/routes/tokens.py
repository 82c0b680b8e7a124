"""Access tokens of a campaign (issued and revoked by its game master) and visibility reveals."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, status
from pydantic import BaseModel, Field

from api import schemas
from api.deps import CampaignId, IdempotencyKey, LedgerDep, Permit
from api.errors import ERRORS
from api.routes.views import appended
from ledger import tokens
from ledger.domain import commands as cmd

router = APIRouter(prefix="/campaigns/{campaign}", tags=["access"], responses=ERRORS)


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


@router.post("/tokens", response_model=TokenIssuedPublic, status_code=status.HTTP_201_CREATED,
             summary="Issue a token (game master); the secret is in this response only")
def issue_token(body: cmd.IssueToken, cid: CampaignId, ledger: LedgerDep, actor: Permit("issue_token"),
                key: IdempotencyKey):
    result, raw = tokens.issue_token(ledger, cid, body, actor=actor, idempotency_key=key)
    return TokenIssuedPublic(**appended(result).model_dump(), token=raw)


@router.get("/tokens", response_model=list[TokenPublic], summary="The live tokens (never their secrets)")
def list_tokens(cid: CampaignId, ledger: LedgerDep, actor: Permit("list_tokens")):
    return [TokenPublic(**t) for t in tokens.live_tokens(ledger, cid)]


@router.post("/tokens/{token_id}/revoke", response_model=schemas.Appended, summary="Revoke a token at once")
def revoke_token(body: schemas.Reason, cid: CampaignId, token_id: Annotated[str, Path(max_length=64)],
                 ledger: LedgerDep, actor: Permit("revoke_token"), key: IdempotencyKey):
    command = cmd.build(cmd.RevokeToken, token_id=token_id, reason=body.reason)
    return appended(ledger.handle(cid, command, actor=actor, idempotency_key=key))


@router.post("/reveals", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Make a hidden event public (a new event; the original is unchanged)")
def reveal(body: cmd.RevealEvent, cid: CampaignId, ledger: LedgerDep, actor: Permit("reveal"), key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))
