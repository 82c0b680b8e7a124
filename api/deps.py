"""Dependencies shared by the routes, as Annotated aliases."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import Depends, Header, Request

from ledger.application import Actor, Ledger
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import CampaignNotFound


def get_ledger(request: Request) -> Ledger:
    return request.app.state.ledger


LedgerDep = Annotated[Ledger, Depends(get_ledger)]


def get_actor(x_ledger_actor: Annotated[str | None, Header(max_length=100)] = None) -> Actor:
    # Until per-campaign tokens land, every caller acts as a game master named
    # by the X-Ledger-Actor header (development only: see README).
    return Actor(id=x_ledger_actor or "gm", role="gm")


ActorDep = Annotated[Actor, Depends(get_actor)]
def idempotency_key(
    idempotency_key: Annotated[str | None, Header(max_length=200, description="Retry-safe key")] = None,
) -> str | None:
    return idempotency_key


IdempotencyKey = Annotated[str | None, Depends(idempotency_key)]


def resolve_campaign(ledger: LedgerDep, campaign: str) -> UUID:
    """A campaign is addressed by its id or its slug."""
    try:
        cid = UUID(campaign)
    except ValueError:
        cid = campaign_id(campaign)
    ledger.campaign(cid)  # raises CampaignNotFound
    return cid


CampaignId = Annotated[UUID, Depends(resolve_campaign)]
__all__ = ["LedgerDep", "ActorDep", "IdempotencyKey", "CampaignId", "CampaignNotFound"]
