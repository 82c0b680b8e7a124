"""Read models: map, victory, timeline, state as of a position, differences between positions.

A game master reads the tracked views at the campaign's head: the stored
documents and rows plus the events the runner has not applied yet
(api/readpath.py), so a client reads its own writes without waiting for the
runner. Players and observers must not learn from hidden events: their map,
victory and state are replayed from the events they may see
(``ledger.access.can_see``), kept per audience and fast-forwarded; their
timeline is filtered. Answers are cached per head position and audience.
"""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from api import readpath
from api.deps import ActorDep, CampaignId, CampaignStateDep, LedgerDep
from api.errors import ERRORS
from ledger.access import ALL_SEEING, can_see
from ledger.application import Actor
from projections import corrections, replay
from projections.records import Record
from projections.runner import Projector

router = APIRouter(prefix="/campaigns/{campaign}", tags=["projections"])

MAP_EXAMPLE: dict[str, Any] = {
    "position": 42, "turn": 1,
    "provinces": {"Picardie": {"controller": "ENG", "owner": "FRA", "markers": []}},
    "sea_zones": {}, "stacks": {"FRA-1": {"country": "FRA", "location": "Picardie", "units": {"LD": 5}}},
    "leaders": {}, "sieges": {}, "discoveries": {}, "unplaced": []}
VICTORY_EXAMPLE: dict[str, Any] = {
    "position": 42, "turn": 1, "countries": ["ENG", "FRA"], "vp": {"ENG": 5, "FRA": 0},
    "vp_by_turn": {"1": {"ENG": 5}}, "stability": {"ENG": 1, "FRA": -1}, "stability_log": [], "inflation": 1,
    "inflation_log": [], "wars": [], "war_turns": {"ENG": 0, "FRA": 0},
    "awards": [{"position": 37, "effect": 0, "country": "ENG", "turn": 1, "points": "5", "reason": "M19"}]}


class TimelineRow(BaseModel):
    position: int = Field(examples=[37])
    turn: int | None = Field(examples=[1])
    type: str = Field(examples=["RulingRecorded"])
    summary: str = Field(examples=["T1 S2: M19 battle at Picardie: ENG major victory"])
    context: dict[str, Any] = Field(examples=[{"turn": 1, "phase": "military", "round": "S2", "impulse": "ENG"}])
    visibility: dict[str, Any] = Field(examples=[{"scope": "public"}])


class StatePublic(BaseModel):
    campaign: str = Field(examples=["6d1c0b1e-7f7a-5b2c-9e3d-4f5a6b7c8d9e"])
    position: int = Field(examples=[42], description="The position the state is as of")
    checkpoint: int | None = Field(default=None, examples=[30],
                                   description="Where the replay started from (game master)")
    filtered_for: str | None = Field(default=None, examples=["player"],
                                     description="Replayed from the events this role may see (not a game master)")
    map: dict[str, Any] = Field(examples=[MAP_EXAMPLE])
    victory: dict[str, Any] = Field(examples=[{k: v for k, v in VICTORY_EXAMPLE.items() if k != "awards"}])


class Change(BaseModel):
    path: str = Field(examples=["map.stacks.FRA-1.units.LD"])
    from_: Any = Field(alias="from", examples=[8])
    to: Any = Field(examples=[5])


class DiffPublic(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    campaign: str = Field(examples=["6d1c0b1e-7f7a-5b2c-9e3d-4f5a6b7c8d9e"])
    from_: int = Field(alias="from", examples=[36])
    to: int = Field(examples=[37])
    changes: list[Change]
    events: list[TimelineRow]


class ProjectionStatus(BaseModel):
    head: int | None = Field(default=None, examples=[1234], description="Latest notification id of the store")
    positions: dict[str, int] = Field(examples=[{"map": 1234, "victory": 1234, "timeline": 1234, "budget": 1234}])
    lag: int = Field(examples=[0])
    running: bool = Field(examples=[True], description="Whether this process runs the projection runner")
    processed: int | None = Field(default=None, examples=[1234])
    last_error: str | None = Field(default=None, examples=[None])


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
    visible = [r for r in replay._records(ledger, cid, 0, n) if can_see(actor, _as_event(r), revealed)]
    docs = corrections.fold(replay.MODELS, visible)  # a correction counts for those who may see it
    return {"campaign": str(cid), "position": n, "filtered_for": actor.role, **docs}


def _as_event(r: Record) -> dict[str, Any]:
    return {"position": r.position, "visibility": r.data.get("visibility") or {}}


def _state(request: Request, ledger: Any, cid: UUID, n: int, actor: Actor, state: Any) -> dict[str, Any]:
    if _sees_all(actor):
        return replay.state_at(ledger, readpath.viewdb_of(request.app), cid, n)
    replay._check_position(ledger, cid, n)
    return _visible_state(ledger, cid, n, actor, tuple(getattr(state, "revealed", ())))


AT = Query(ge=0, le=2**53, description="Position N (default: the head)")
TURN = Path(ge=1, le=2**31, description="Turn number", examples=[1])


@router.get("/state", summary="Map and victory state as of a position (default: the head)",
            response_model=StatePublic, responses=ERRORS)
def state_at(request: Request, cid: CampaignId, ledger: LedgerDep, actor: ActorDep, state: CampaignStateDep,
             at: Annotated[int | None, AT] = None) -> Response:
    if at is not None and at != state.version:
        return readpath.respond(request, actor, state, _state(request, ledger, cid, at, actor, state))
    return readpath.respond(request, actor, state, readpath.render_state(readpath.context(request, cid, actor, state)))


@router.get("/map", summary="The map now: provinces, sea zones, stacks, leaders, sieges, discoveries",
            response_model=dict[str, Any], responses={**ERRORS, 200: {"content": {"application/json": {
                "example": MAP_EXAMPLE}}, "description": "The map document"}})
def map_view(request: Request, cid: CampaignId, actor: ActorDep, state: CampaignStateDep) -> Response:
    return readpath.respond(request, actor, state, readpath.render_map(readpath.context(request, cid, actor, state)))


@router.get("/victory", summary="Victory points per country and turn (with their events), tracks, wars",
            response_model=dict[str, Any], responses={**ERRORS, 200: {"content": {"application/json": {
                "example": VICTORY_EXAMPLE}}, "description": "The victory document and its awards"}})
def victory_view(request: Request, cid: CampaignId, actor: ActorDep, state: CampaignStateDep) -> Response:
    body = readpath.render_victory(readpath.context(request, cid, actor, state))
    return readpath.respond(request, actor, state, body)


@router.get("/turns/{turn}/timeline", summary="The events of a turn in order, one line each",
            response_model=list[TimelineRow], responses=ERRORS)
def turn_timeline(request: Request, cid: CampaignId, turn: Annotated[int, TURN], actor: ActorDep,
                  state: CampaignStateDep) -> Response:
    body = readpath.render_timeline(readpath.context(request, cid, actor, state), turn)
    return readpath.respond(request, actor, state, body)


@router.get("/diff", summary="What changed on the map and the tracks between two positions",
            response_model=DiffPublic, responses=ERRORS)
def diff(request: Request, cid: CampaignId, ledger: LedgerDep, actor: ActorDep, state: CampaignStateDep,
         from_: int = Query(alias="from", ge=0, le=2**53), to: int = Query(ge=0, le=2**53)) -> dict[str, Any]:
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


@router.get("/projections", summary="Projection runner status: positions and lag",
            response_model=ProjectionStatus, responses=ERRORS)
def projection_status(request: Request, cid: CampaignId) -> dict[str, Any]:
    runner = getattr(request.app.state, "projection_runner", None)
    if runner is not None:
        return runner.status()
    p = _projector(request)
    positions = p.positions()
    return {"positions": positions, "lag": p.lag(), "running": False}
