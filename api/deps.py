"""Dependencies shared by the routes, as Annotated aliases.

Access control for route authors (see ``ledger/access.py`` for the rules):

- ``ActorDep``: the authenticated caller as an ``Actor``
  (id, role, country). On a route under ``/campaigns/{campaign}`` it is also
  checked against that campaign: 401 without or with a bad token, 404 for an
  unknown campaign, 403 for a token of another campaign. Use it on every read
  route, then filter what you return with ``ledger.access.can_see(actor, event,
  state.revealed)`` (``CampaignStateDep`` gives the state).
- ``Permit("action")``: the same, and ``ledger.access.may_write`` must allow
  the action for the role in this campaign (``WRITES`` table), else 403. Use it
  on every write route: ``actor: Permit("record_ruling")``. A new action is
  allowed to game masters and refused to players and observers until a
  ``WRITES`` entry says otherwise.
- ``OperatorDep``: the admin token's caller only (else 403), for what concerns the
  service rather than a campaign (``/metrics``).
- ``CampaignId``: the campaign of the path (id or slug), resolved once per request.
- ``IdempotencyKey``: the ``Idempotency-Key`` header, to pass to ``Ledger.execute``.
"""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import Depends, Header, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from api.replica import read_ledger
from api.security import Caller, authenticate, check_campaign
from ledger.access import may_write, refusal
from ledger.application import Actor, Ledger
from ledger.domain.campaign import CampaignState, campaign_id
from ledger.domain.errors import CampaignNotFound, Forbidden


# The dependencies are ``async def`` on purpose: a sync one costs a hop to the thread pool per request each.
# The one store read of a request with a campaign token (its campaign's head) takes that hop in api/security.py:
# on the event loop it stalled every request of the worker behind a round trip or a writer (ops/load.py).
async def get_ledger(request: Request) -> Ledger:
    """The store this request reads and writes: the primary, or for a read the replica (api/replica.py)."""
    return await read_ledger(request)


LedgerDep = Annotated[Ledger, Depends(get_ledger)]


_bearer = HTTPBearer(auto_error=False, description="A campaign token, or the admin token (LEDGER_ADMIN_TOKEN)")


async def caller_of(request: Request) -> Caller:
    """The authenticated caller, once per request (401 without or with a bad token). Tokens are checked on the
    primary, even for a read the replica serves: a revocation counts at once."""
    caller = getattr(request.state, "caller", None)
    if caller is None:
        caller = await authenticate(request, request.app.state.settings, request.app.state.ledger)
        request.state.caller = caller
        request.state.actor = caller.actor  # for the access log
    return caller


async def get_caller(request: Request,
               _: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)] = None) -> Caller:
    # HTTPBearer only documents the scheme in OpenAPI; api/security.py reads the header itself.
    return await caller_of(request)


CallerDep = Annotated[Caller, Depends(get_caller)]


def _campaign(request: Request, ledger: Ledger, campaign: str) -> CampaignState:
    """The path's campaign state, read once per request (raises CampaignNotFound)."""
    cached = getattr(request.state, "campaign_state", None)
    if cached is None:
        try:
            cid = UUID(campaign)
        except ValueError:
            cid = campaign_id(campaign)
        if ledger is request.app.state.ledger:
            checked = getattr(request.state, "token_state", None)  # the primary's, at its head
            if checked is None or checked.id != cid:
                checked = ledger.campaign(cid)
        else:  # the replica, at the head api/replica.py just read there
            checked = ledger.campaign(cid, head=getattr(request.state, "replica_head", None))
        cached = checked
        request.state.campaign_state = cached
    return cached


def state_of(request: Request, ledger: Ledger, cid: UUID) -> CampaignState:
    """The campaign's state as this request read it, once, at its head (the token check's, or ``_campaign``'s):
    a page that asked the store for the head again could show two heads, and paid a round trip for it."""
    found = getattr(request.state, "campaign_state", None)
    return found if found is not None and found.id == cid else ledger.campaign(cid)


# FastAPI walks the whole tree of a route's dependencies on every request, a node each time one is named, even
# when its value is kept (fastapi/dependencies/utils.py: ~10-20 us a node): ActorDep, CampaignId and
# CampaignStateDep name only what documents the route (the bearer scheme, the campaign's path parameter) and
# read the ledger, the caller and the campaign's state once per request through plain functions.
async def get_actor(request: Request, caller: CallerDep) -> Actor:
    campaign = request.path_params.get("campaign")
    if campaign is not None:
        check_campaign(caller, _campaign(request, await read_ledger(request), campaign).id)
    return caller.actor


ActorDep = Annotated[Actor, Depends(get_actor)]


class _Permit:
    def __init__(self, action: str):
        self.action = action

    async def __call__(self, request: Request, actor: ActorDep) -> Actor:
        campaign = request.path_params.get("campaign")
        settings: dict[str, Any] = (_campaign(request, await read_ledger(request), campaign).settings
                                    if campaign is not None else {})
        if not may_write(actor, self.action, settings):
            raise Forbidden(refusal(actor, self.action), field="Authorization", rule=f"access.{self.action}")
        return actor


def Permit(action: str) -> Any:  # noqa: N802 (reads as a type in signatures)
    """``actor: Permit("roll")``: the caller, allowed to perform ``action`` here (else 403)."""
    return Annotated[Actor, Depends(_Permit(action))]


async def operator(caller: CallerDep) -> Actor:
    """The service's operator: the admin token (``LEDGER_ADMIN_TOKEN``), or in development without one a request
    without a token from loopback (``api/security.py``); a campaign's token, whatever its role, gets 403."""
    if caller.actor.role != "admin":
        raise Forbidden("only the operator's admin token (LEDGER_ADMIN_TOKEN) may read this", field="Authorization",
                        rule="access.operator")
    return caller.actor


#: ``_: OperatorDep`` on a route for the operator alone (``/metrics``: its counters move with every append, hidden
#: ones too, so a reader who may not see an event would learn when one of which type was recorded).
OperatorDep = Annotated[Actor, Depends(operator)]


async def idempotency_key(
    idempotency_key: Annotated[str | None, Header(max_length=200, description="Retry-safe key")] = None,
) -> str | None:
    return idempotency_key


IdempotencyKey = Annotated[str | None, Depends(idempotency_key)]


async def resolve_campaign(request: Request, caller: CallerDep,
                           campaign: Annotated[str, Path(min_length=1, max_length=100, examples=["europa-1492"],
                                                         description="The campaign's id or slug")]) -> UUID:
    """A campaign is addressed by its id or its slug (401, then 404, then 403 for another campaign's token)."""
    state = _campaign(request, await read_ledger(request), campaign)
    check_campaign(caller, state.id)
    return state.id


CampaignId = Annotated[UUID, Depends(resolve_campaign)]


async def campaign_state(request: Request) -> CampaignState:
    """The path's campaign, checked as ``CampaignId`` checks it (the route names that too: its path parameter)."""
    caller, state = await caller_of(request), _campaign(request, await read_ledger(request),
                                                        request.path_params["campaign"])
    check_campaign(caller, state.id)
    return state


CampaignStateDep = Annotated[CampaignState, Depends(campaign_state)]
__all__ = ["LedgerDep", "ActorDep", "Permit", "OperatorDep", "CallerDep", "IdempotencyKey",
           "CampaignId", "CampaignStateDep", "CampaignNotFound"]
