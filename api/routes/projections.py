"""Read models: map, victory, timeline, state as of a position, differences between positions.

A game master reads the tracked views (caught up first when the runner lives
in this process, so a client reads its own writes). Players and observers must
not learn from hidden events: their map and state are replayed from the events
they may see (``ledger.access.can_see``), and their timeline is filtered.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter, Query, Request

from api.deps import ActorDep, CampaignId, CampaignStateDep, LedgerDep
from ledger.access import ALL_SEEING, can_see
from ledger.application import Actor
from projections import replay
from projections.records import Record
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


def _sees_all(actor: Actor) -> bool:
    return actor.role in ALL_SEEING


def _visible_state(ledger: Any, cid: UUID, n: int, actor: Actor, revealed: tuple[int, ...]) -> dict[str, Any]:
    docs = {name: model.empty() for name, model in replay.MODELS.items()}
    for r in replay._records(ledger, cid, 0, n):
        if can_see(actor, _as_event(r), revealed):
            for name, model in replay.MODELS.items():
                model.apply(docs[name], r)
    return {"campaign": str(cid), "position": n, "filtered_for": actor.role, **docs}


def _as_event(r: Record) -> dict[str, Any]:
    return {"position": r.position, "visibility": r.data.get("visibility") or {}}


def _state(request: Request, ledger: Any, cid: UUID, n: int, actor: Actor, state: Any) -> dict[str, Any]:
    if _sees_all(actor):
        return replay.state_at(ledger, _projector(request).db, cid, n)
    replay._check_position(ledger, cid, n)
    return _visible_state(ledger, cid, n, actor, tuple(getattr(state, "revealed", ())))


@router.get("/state", summary="Map and victory state as of a position (default: the head)")
def state_at(request: Request, cid: CampaignId, ledger: LedgerDep, actor: ActorDep, state: CampaignStateDep,
             at: int | None = Query(default=None, ge=0, description="Position N")) -> dict[str, Any]:
    return _state(request, ledger, cid, state.version if at is None else at, actor, state)


@router.get("/map", summary="The map now: provinces, sea zones, stacks, leaders, sieges, discoveries")
def map_view(request: Request, cid: CampaignId, ledger: LedgerDep, actor: ActorDep,
             state: CampaignStateDep) -> dict[str, Any]:
    if _sees_all(actor):
        return replay.current(_projector(request).db, cid, "map")
    return _state(request, ledger, cid, state.version, actor, state)["map"]


@router.get("/victory", summary="Victory points per country and turn (with their events), tracks, wars")
def victory_view(request: Request, cid: CampaignId, ledger: LedgerDep, actor: ActorDep,
                 state: CampaignStateDep) -> dict[str, Any]:
    if _sees_all(actor):
        db = _projector(request).db
        return {**replay.current(db, cid, "victory"), "awards": replay.awards(db, cid)}
    doc = _state(request, ledger, cid, state.version, actor, state)["victory"]
    return {**doc, "awards": None}


@router.get("/turns/{turn}/timeline", summary="The events of a turn in order, one line each")
def turn_timeline(request: Request, cid: CampaignId, turn: int, actor: ActorDep,
                  state: CampaignStateDep) -> list[dict[str, Any]]:
    rows = replay.timeline(_projector(request).db, cid, turn=turn)
    revealed = tuple(getattr(state, "revealed", ()))
    return [r for r in rows if can_see(actor, r, revealed)]


@router.get("/diff", summary="What changed on the map and the tracks between two positions")
def diff(request: Request, cid: CampaignId, ledger: LedgerDep, actor: ActorDep, state: CampaignStateDep,
         from_: int = Query(alias="from", ge=0), to: int = Query(ge=0)) -> dict[str, Any]:
    revealed = tuple(getattr(state, "revealed", ()))
    db = _projector(request).db
    if _sees_all(actor):
        out = replay.diff(ledger, db, cid, from_, to)
    else:
        replay.diff(ledger, db, cid, from_, from_)  # position checks
        a = _state(request, ledger, cid, from_, actor, state)
        b = _state(request, ledger, cid, to, actor, state)
        if from_ > to:
            replay.diff(ledger, db, cid, from_, to)  # raises the same 422 as for a GM
        out = {"campaign": str(cid), "from": from_, "to": to,
               "changes": [c for n in replay.MODELS for c in replay.diff_docs(a[n], b[n], n)]}
    out["events"] = [r for r in replay.timeline(db, cid, gt=from_, lte=to) if can_see(actor, r, revealed)]
    return out


@router.get("/projections", summary="Projection runner status: positions and lag")
def projection_status(request: Request, cid: CampaignId) -> dict[str, Any]:
    runner = getattr(request.app.state, "projection_runner", None)
    if runner is not None:
        return runner.status()
    p = _projector(request)
    positions = p.positions()
    return {"positions": positions, "lag": p.lag(), "running": False}
