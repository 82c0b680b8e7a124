"""Read models: map, victory, timeline, state as of a position, differences between positions.

The views at the head for every audience are ``projections.head.Reader``'s: a
game master reads the stored views plus the events the runner has not applied
yet, so a client reads its own writes without waiting; players and observers
get documents replayed from the events they may see (``ledger.access.can_see``).
Answers are cached per head position and audience (api/readpath.py), after the
same authentication every route has.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import Response
import orjson

from api import schemas
from api.deps import ActorDep, CampaignId, CampaignStateDep, LedgerDep
from api.errors import ERRORS
from api.readpath import ReadsDep, cached
from api.replica import on_primary
from ledger.access import can_see
from ledger.domain.errors import InvalidInput
from projections import read, replay, svg
from projections.runner import Projector

router = APIRouter(prefix="/campaigns/{campaign}", tags=["projections"])


def _projector(request: Request) -> Projector:
    runner = getattr(request.app.state, "projection_runner", None)
    if runner is not None:
        runner.catch_up()
        return runner.projector
    projector = getattr(request.app.state, "projector", None)
    if projector is None:
        projector = request.app.state.projector = Projector(request.app.state.ledger)
    return projector


AT = Query(ge=0, le=2**53, description="Position N (default: the head)")
TURN = Path(ge=1, le=2**31, description="Turn number", examples=[1])


def _json(model: type, description: str) -> dict[int | str, dict[str, Any]]:
    """The routes below return JSON bytes (cached): ``model`` documents them without re-validating."""
    return {**ERRORS, 200: {"model": model, "description": description}}


# ``async``: a cached answer needs no thread; ``cached`` renders a new one in the thread pool.
@router.get("/state", summary="Map and victory state as of a position (default: the head)",
            responses=_json(schemas.StatePublic, "Map and victory as of the position"))
async def state_at(request: Request, cid: CampaignId, actor: ActorDep, state: CampaignStateDep, reads: ReadsDep,
                   at: Annotated[int | None, AT] = None) -> Response:
    if at is not None and at != state.version:
        return await cached(request, reads, actor, state, lambda: reads.reader.state_at(cid, actor, state, at))
    return await cached(request, reads, actor, state, lambda: reads.reader.state(cid, actor, state))


@router.get("/map", summary="The map now: provinces, sea zones, stacks, leaders, sieges, discoveries",
            responses=_json(schemas.MapPublic, "The map document"))
async def map_view(request: Request, cid: CampaignId, actor: ActorDep, state: CampaignStateDep,
                   reads: ReadsDep) -> Response:
    def render() -> bytes:
        body = reads.reader.map(cid, actor, state)
        if not read.sees_all(actor) or not state.held:
            return body
        # The players' commands the game master's map held (ledger/domain/sight.py): the game master's only.
        return orjson.dumps({**orjson.loads(body), "held": sorted(state.held.values(), key=lambda h: h["position"])})

    return await cached(request, reads, actor, state, render)


@router.get("/map.svg", summary="The map drawn as of a position (default: the head), as the caller may see it",
            responses={**ERRORS, 200: {"content": {"image/svg+xml": {}}, "description": "An SVG picture"}},
            response_class=Response)
async def map_svg(request: Request, cid: CampaignId, ledger: LedgerDep, actor: ActorDep, state: CampaignStateDep,
                  reads: ReadsDep, at: Annotated[int | None, AT] = None) -> Response:
    n = state.version if at is None else at

    def render() -> bytes:
        doc = reads.reader.state_at(cid, actor, state, n)["map"]
        return svg.picture(ledger, cid, actor, state, doc, n).encode()

    return await cached(request, reads, actor, state, render, media_type="image/svg+xml")


@router.get("/victory", summary="Victory points per country and turn (with their events), tracks, wars",
            responses=_json(schemas.VictoryPublic, "The victory document and its awards"))
async def victory_view(request: Request, cid: CampaignId, actor: ActorDep, state: CampaignStateDep,
                       reads: ReadsDep) -> Response:
    return await cached(request, reads, actor, state, lambda: reads.reader.victory(cid, actor, state))


@router.get("/turns/{turn}/timeline", summary="The events of a turn in order, one line each",
            responses=_json(list[schemas.TimelineRow], "The turn's events this caller may see"))
async def turn_timeline(request: Request, cid: CampaignId, turn: Annotated[int, TURN], actor: ActorDep,
                        state: CampaignStateDep, reads: ReadsDep) -> Response:
    return await cached(request, reads, actor, state, lambda: reads.reader.timeline(cid, actor, state, turn))


@router.get("/diff", summary="What changed on the map and the tracks between two positions",
            response_model=schemas.DiffPublic, responses=ERRORS, dependencies=[Depends(on_primary)])
def diff(request: Request, cid: CampaignId, ledger: LedgerDep, actor: ActorDep, state: CampaignStateDep,
         reads: ReadsDep, from_: int = Query(alias="from", ge=0, le=2**53), to: int = Query(ge=0, le=2**53)
         ) -> dict[str, Any]:
    revealed = tuple(getattr(state, "revealed", ()))
    db = _projector(request).db
    if read.sees_all(actor):
        out = replay.diff(ledger, db, cid, from_, to)
    else:
        read.check_position(ledger, cid, from_, "from", head=state.version)
        read.check_position(ledger, cid, to, "to", head=state.version)
        if from_ > to:
            raise InvalidInput(f"from ({from_}) must not be after to ({to})", field="from")
        a, b = (reads.reader.state_at(cid, actor, state, n) for n in (from_, to))
        out = {"campaign": str(cid), "from": from_, "to": to,
               "changes": [c for n in replay.MODELS for c in replay.diff_docs(a[n], b[n], n)]}
    out["events"] = [r for r in replay.timeline(db, cid, gt=from_, lte=to) if can_see(actor, r, revealed)]
    return out


@router.get("/projections", summary="Projection runner status: positions and lag",
            response_model=schemas.ProjectionStatus, responses=ERRORS)
def projection_status(request: Request, cid: CampaignId) -> dict[str, Any]:
    runner = getattr(request.app.state, "projection_runner", None)
    if runner is not None:
        return runner.status()
    p = _projector(request)
    positions = p.positions()
    return {"positions": positions, "lag": p.lag(), "running": False}
