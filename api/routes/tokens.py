"""Access tokens of a campaign (issued and revoked by its game master) and visibility reveals."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, status

from api import schemas
from api.deps import CampaignId, IdempotencyKey, LedgerDep, Permit
from api.errors import ERRORS
from api.routes.views import appended
from ledger import tokens
from ledger.domain import commands as cmd

router = APIRouter(prefix="/campaigns/{campaign}", tags=["access"], responses=ERRORS)


@router.post("/tokens", response_model=schemas.TokenIssuedPublic, status_code=status.HTTP_201_CREATED,
             summary="Issue a token (game master); the secret is in this response only")
def issue_token(body: cmd.IssueToken, cid: CampaignId, ledger: LedgerDep, actor: Permit("issue_token"),
                key: IdempotencyKey):
    result, raw = tokens.issue_token(ledger, cid, body, actor=actor, idempotency_key=key)
    return schemas.TokenIssuedPublic(**appended(result).model_dump(), token=raw)


@router.get("/tokens", response_model=list[schemas.TokenPublic], summary="The live tokens (never their secrets)")
def list_tokens(cid: CampaignId, ledger: LedgerDep, actor: Permit("list_tokens")):
    return [schemas.TokenPublic(**t) for t in tokens.live_tokens(ledger, cid)]


@router.post("/tokens/{token_id}/revoke", response_model=schemas.Appended, summary="Revoke a token at once")
def revoke_token(body: schemas.Reason, cid: CampaignId, token_id: Annotated[str, Path(max_length=64)],
                 ledger: LedgerDep, actor: Permit("revoke_token"), key: IdempotencyKey):
    command = cmd.build(cmd.RevokeToken, token_id=token_id, reason=body.reason)
    return appended(ledger.handle(cid, command, actor=actor, idempotency_key=key))


@router.post("/reveals", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Make a hidden event public (a new event; the original is unchanged)")
def reveal(body: cmd.RevealEvent, cid: CampaignId, ledger: LedgerDep, actor: Permit("reveal"), key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))
