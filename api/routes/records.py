"""Dice, rulings, treasury entries and corrections: what a game master (or a player, for dice) records."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response, status

from api import schemas
from api.deps import ActorDep, CampaignId, CampaignStateDep, IdempotencyKey, LedgerDep, Permit
from api.errors import ERRORS
from api.readpath import ReadsDep
from api.routes.views import appended, event_public
from ledger.access import can_see, visible
from ledger.application import Actor
from ledger.domain import commands as cmd
from ledger.domain.errors import EventNotFound, Forbidden
from ledger.domain.events import CorrectionRecorded, RulingRecorded
from projections import timeline, whatif, words
from projections.records import Record

router = APIRouter(prefix="/campaigns/{campaign}", tags=["records"], responses=ERRORS)
PAGE = 1000


def player_dice(actor: Actor, visibility: cmd.Visibility, manual: bool) -> None:
    """A player rolls only for their own country: server dice, seen by their country at least."""
    if actor.role != "player":
        return
    if manual:
        raise Forbidden("physical dice are entered by the game master", field="values", rule="access.manual_dice")
    if visibility.scope == "gm" or (visibility.scope == "countries" and actor.country not in (visibility.countries
                                                                                            or ())):
        raise Forbidden(f"a player's dice are public or visible to their own country ({actor.country})",
                        field="visibility", rule="access.player_visibility")


@router.post("/rolls", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Roll server dice, or record physical dice (values)")
def roll(body: cmd.RollDice, cid: CampaignId, ledger: LedgerDep, actor: Permit("roll"), key: IdempotencyKey):
    player_dice(actor, body.visibility, body.values is not None)
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/rulings", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Resolve a procedure with server dice and record the ruling")
def record_ruling(body: cmd.RecordRuling, cid: CampaignId, ledger: LedgerDep, actor: Permit("record_ruling"),
                  key: IdempotencyKey):
    player_dice(actor, body.visibility, body.manual_dice is not None)
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.get("/rulings", response_model=list[schemas.EventPublic],
            summary="The rulings this caller may see, in order, after a position (paged)")
def list_rulings(cid: CampaignId, ledger: LedgerDep, actor: ActorDep, state: CampaignStateDep,
                 after: Annotated[int, Query(ge=0, le=2**53)] = 0, limit: Annotated[int, Query(ge=1, le=5000)] = 500):
    # Pages of the history rather than the whole of it: a long campaign holds hundreds of thousands of events.
    shown: list = []
    while len(shown) < limit:
        page = ledger.history(cid, after=after, limit=PAGE)
        rulings = [e for e in page if isinstance(e, RulingRecorded)]
        shown.extend(visible(actor, rulings, state.revealed))
        if len(page) < PAGE:
            break
        after = page[-1].originator_version
    return [event_public(e) for e in shown[:limit]]


@router.get("/rulings/{position}", response_model=schemas.RulingPublic,
            summary="One ruling, in words too, with the positions that correct it (404 when hidden from this "
                    "caller, as if it did not exist)")
def get_ruling(cid: CampaignId, position: Annotated[int, Path(ge=1, le=2**53)], ledger: LedgerDep, actor: ActorDep, state: CampaignStateDep):
    event = ledger.event_at(cid, position)
    if not can_see(actor, event, state.revealed):
        # The same answer as for a missing position: a hidden event's type does not leak.
        raise EventNotFound(f"campaign has no event at position {position}", field="position")
    if not isinstance(event, RulingRecorded):
        raise EventNotFound(f"the event at position {position} is a {type(event).__name__}, not a ruling",
                            field="position")
    chain, corrected_by = {position}, []
    for e in ledger.history(cid, after=position):
        if isinstance(e, CorrectionRecorded) and e.corrects in chain:
            chain.add(e.originator_version)
            if can_see(actor, e, state.revealed):
                corrected_by.append(e.originator_version)
    shown = words.ruling_words(event.ruling)
    return schemas.RulingPublic(**event_public(event).model_dump(), summary=timeline.summary(timeline.empty(), _record(event)),
                        outcome=shown["outcome_rows"], effects=shown["effects"], board=shown["board"],
                        corrected_by=corrected_by)


def _record(e: Any) -> Record:
    return Record("", e.originator_version, type(e).__name__, {**e.payload(), "context": e.context})


@router.post("/rulings/{position}/rework", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Resolve a recorded ruling again with amended inputs, its recorded dice matched by purpose, "
                     "and record the correction (dry_run=true: the answer only, nothing recorded, no die drawn)")
def rework_ruling(body: schemas.ReworkBody, cid: CampaignId, position: Annotated[int, Path(ge=1, le=2**53)],
                  ledger: LedgerDep, actor: Permit("record_correction"), key: IdempotencyKey,
                  response: Response, dry_run: bool = False):
    # The command is built from the path and the body (``build`` validates it as any request body).
    command = cmd.build(cmd.ReworkRuling, position=position, inputs=body.inputs, reason=body.reason,
                        manual_dice=body.manual_dice, overrides=body.overrides)
    if dry_run:
        response.status_code = status.HTTP_200_OK
        return schemas.Appended.model_validate(ledger.preview(cid, command, actor=actor).to_json())
    return appended(ledger.handle(cid, command, actor=actor, idempotency_key=key))


@router.post("/treasury", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Record a treasury entry on an ERS line")
def record_treasury(body: cmd.RecordTreasuryEntry, cid: CampaignId, ledger: LedgerDep,
                    actor: Permit("record_treasury"), key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/corrections", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Record a correction of an earlier event (the original stays; without a visibility, the "
                     "correction is seen by those who see the original)")
def record_correction(body: cmd.RecordCorrection, cid: CampaignId, ledger: LedgerDep,
                      actor: Permit("record_correction"), key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/whatif", response_model=schemas.WhatIfPublic,
             summary="What the map, budget and victory would be at the head had the event at `at` been otherwise "
                     "(records nothing)")
def what_if(body: schemas.WhatIfBody, cid: CampaignId, at: Annotated[int, Query(ge=1, le=2**53)], ledger: LedgerDep,
            reads: ReadsDep, actor: Permit("record_correction")):
    # A game master's question (it reads every event): the same permission as recording the correction.
    command = cmd.build(cmd.RecordCorrection, corrects=at, reason="what if", replacement=body.replacement)
    return whatif.ask(reads.reader, cid, ledger.drafted(cid, command, actor=actor))
