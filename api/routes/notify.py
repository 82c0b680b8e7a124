"""Notification endpoints (issue 38): register, list with their deliveries, change, remove.

A player acts on and reads their own country's endpoints only (ledger/usecases/notify.py ``owns``); the game
master every one of the campaign. An id that is not the caller's is a 404 whether a rival holds it or nobody.
"""

from __future__ import annotations

from typing import Annotated

import orjson
from fastapi import APIRouter, Path, Request, status

from api import schemas
from api.deps import CampaignId, IdempotencyKey, LedgerDep, Permit
from api.errors import ERRORS
from api.readpath import viewdb_of
from api.routes.views import appended
from ledger.domain import commands as cmd
from ledger.domain.errors import EndpointNotFound
from ledger.notify.signing import endpoint_secret, new_endpoint_id
from ledger.usecases.notify import live_endpoints
from projections import outbox

router = APIRouter(prefix="/campaigns/{campaign}", tags=["notifications"], responses=ERRORS)
EndpointPath = Annotated[str, Path(max_length=40, examples=["ep_0123456789abcdef"])]


@router.post("/endpoints", response_model=schemas.EndpointRegisteredPublic, status_code=status.HTTP_201_CREATED,
             summary="Register a webhook or e-mail address to be told (players: for their own country); the "
                     "signing secret is in this response only")
def register_endpoint(body: cmd.RegisterEndpoint, cid: CampaignId, ledger: LedgerDep,
                      actor: Permit("register_endpoint"), key: IdempotencyKey):
    result = ledger.handle(cid, body, actor=actor, idempotency_key=key, endpoint_id=new_endpoint_id())
    eid = result.data["endpoint_id"]  # a replay answers the first request's id
    secret = None if result.replayed else endpoint_secret(ledger, cid, eid)
    return schemas.EndpointRegisteredPublic(**appended(result).model_dump(), endpoint_id=eid, secret=secret)


@router.get("/endpoints", response_model=list[schemas.EndpointPublic],
            summary="Your endpoints (the game master: the campaign's), each with its deliveries and last error")
def list_endpoints(request: Request, cid: CampaignId, ledger: LedgerDep, actor: Permit("list_endpoints")):
    mine = live_endpoints(ledger.campaign(cid), actor)
    counts = outbox.status(viewdb_of(request.app), str(cid), sorted(mine))
    return [schemas.EndpointPublic(id=eid, **{k: ep[k] for k in ("audience", "kind", "target", "label", "topics")},
                                   **{k: v for k, v in counts[eid].items() if k != "cancelled"})
            for eid, ep in sorted(mine.items(), key=lambda kv: kv[1]["position"])]


@router.get("/endpoints/{endpoint_id}/deliveries", response_model=list[schemas.DeliveryPublic],
            summary="An endpoint's latest messages, newest first, with their state and last error")
def endpoint_deliveries(request: Request, cid: CampaignId, endpoint_id: EndpointPath, ledger: LedgerDep,
                        actor: Permit("list_endpoints")):
    if endpoint_id not in live_endpoints(ledger.campaign(cid), actor):
        raise EndpointNotFound(f"no endpoint {endpoint_id} of yours in this campaign", field="endpoint_id")
    rows = outbox.deliveries(viewdb_of(request.app), str(cid), endpoint_id)
    return [schemas.DeliveryPublic(position=r["position"], topic=r["topic"], text=orjson.loads(r["message"])["text"],
                                   status=r["status"], attempts=r["attempts"], last_error=r["last_error"],
                                   next_at=r["next_at"] if r["status"] == outbox.PENDING else None,
                                   delivered_at=r["delivered_at"]) for r in rows]


@router.post("/endpoints/{endpoint_id}/topics", response_model=schemas.Appended,
             summary="Change what an endpoint is told about")
def change_endpoint(body: schemas.EndpointTopics, cid: CampaignId, endpoint_id: EndpointPath, ledger: LedgerDep,
                    actor: Permit("change_endpoint"), key: IdempotencyKey):
    command = cmd.build(cmd.ChangeEndpoint, endpoint_id=endpoint_id, topics=body.topics)
    return appended(ledger.handle(cid, command, actor=actor, idempotency_key=key))


@router.post("/endpoints/{endpoint_id}/remove", response_model=schemas.Appended, summary="Remove an endpoint")
def remove_endpoint(body: schemas.Reason, cid: CampaignId, endpoint_id: EndpointPath, ledger: LedgerDep,
                    actor: Permit("remove_endpoint"), key: IdempotencyKey):
    command = cmd.build(cmd.RemoveEndpoint, endpoint_id=endpoint_id, reason=body.reason)
    return appended(ledger.handle(cid, command, actor=actor, idempotency_key=key))
