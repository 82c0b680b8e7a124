"""The history and its verification, filtered by what the caller may see.

Verification and visibility: every reader may walk the whole chain on the
server (``/verify``: counts and hashes only) and read every link (``/chain``:
position, previous hash, own hash, whether they may see the event). A player
can thus check that nothing was inserted, removed or rewritten between the
events they see, without learning a hidden event's type or content: a hidden
event's hash covers a salt served only with the event (ledger/chain.py), so its
link confirms no guess of it. Whoever may read the event (its audience; everyone
once it is revealed) gets it whole, salt included, and recomputes its hash.
"""

from __future__ import annotations

import re
from typing import Annotated

from uuid import UUID

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import Response

from api import schemas
from api.deps import ActorDep, CampaignId, CampaignStateDep, LedgerDep
from api.errors import ERRORS
from api.routes.checkpoints import campaign_ref
from api.readpath import ReadsDep, cached
from api.routes.views import events_json
from ledger.access import ALL_SEEING, can_see, withheld
from ledger.domain.errors import Forbidden, InvalidInput
from ledger.economy.income import audit_words
from projections import read

router = APIRouter(prefix="/campaigns/{campaign}", tags=["audit"], responses=ERRORS)

PAGE = 500


@router.get("/events", response_model=list[schemas.EventPublic],
            summary="The history in order, with hashes (only the events this caller may see)")
async def list_events(request: Request, cid: CampaignId, ledger: LedgerDep, actor: ActorDep,
                      state: CampaignStateDep, reads: ReadsDep,
                      after: Annotated[int, Query(ge=0, le=2**53)] = 0,
                      limit: Annotated[int, Query(ge=1, le=5000)] = 500) -> Response:
    def render() -> bytes:
        # Up to the head this request read (its answer is kept at that head), decoded as records, not events.
        shown: list = []
        # A reader who may not see everything reads twice the page at first: most pages then take one statement.
        gt, size = after, limit if actor.role in ALL_SEEING else min(2 * limit, max(limit, PAGE))
        while len(shown) < limit:
            page = read.records(ledger, cid, gt, state.version, limit=size)
            shown.extend(read.visible(actor, page, state.revealed))
            if len(page) < size:
                break
            # Hidden events on the way (a player's page): read on in growing pages, up to PAGE at a time.
            gt, size = page[-1].position, min(2 * size, max(limit, PAGE))
        return events_json(shown[:limit])

    return await cached(request, reads, actor, state, render)


@router.get("/verify", response_model=schemas.ChainPublic,
            summary="Walk the stored rows on the server (counts and hashes only), against what you noted")
def verify(cid: Annotated[UUID, Depends(campaign_ref)], ledger: LedgerDep,
           expect_head: Annotated[str | None, Query(max_length=200, description="POSITION:HASH you noted",
                                                    examples=["42:b41a" + "0" * 60])] = None,
           checkpoint: Annotated[str | None, Query(max_length=4000,
                                                   description="A signed checkpoint you kept (a receipt)")] = None):
    # Never builds the campaign's state: a damaged history gets its report, not an error.
    r = ledger.verify(cid, expect_head=parse_head(expect_head) if expect_head else None, checkpoint=checkpoint)
    return schemas.ChainPublic(intact=r.intact, count=r.count, head_hash=r.head_hash, broken_at=r.broken_at,
                               reason=r.reason)


@router.get("/recompute", response_model=schemas.RecomputePublic,
            summary="The game master's audit (as `ledger recompute`): every ruling recomputed from its inputs and "
                    "dice, the inputs the board and the map contradict, and every confirmed income line that "
                    "disagrees with the state at its position")
def recompute(cid: CampaignId, ledger: LedgerDep, actor: ActorDep):
    if actor.role not in ALL_SEEING:  # it reads every event, hidden ones included
        raise Forbidden("the recompute audit reads every event: game master only", field="campaign",
                        rule="access.recompute")
    checked: list[int] = []
    board: list[dict] = []
    incomes: list[dict] = []
    rulings = ledger.recompute(cid, checked=checked, board=board, incomes=incomes)
    for i in incomes:
        i["words"] = audit_words(i)
    return schemas.RecomputePublic(checked=len(checked), rulings=rulings, board=board, incomes=incomes)


def parse_head(text: str, field: str = "expect_head") -> tuple[int, str]:
    position, sep, digest = text.partition(":")
    if not sep or not position.isdigit() or not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise InvalidInput("expected POSITION:HASH (a position and a 64-hex-digit hash)", field=field)
    return int(position), digest


@router.get("/chain", response_model=list[schemas.ChainLink],
            summary="Every link of the chain: hidden events show their hashes, never their content")
def chain(cid: CampaignId, ledger: LedgerDep, actor: ActorDep, state: CampaignStateDep,
          after: Annotated[int, Query(ge=0, le=2**53)] = 0, limit: Annotated[int, Query(ge=1, le=5000)] = 500):
    return [schemas.ChainLink(position=e.originator_version, prev_hash=e.prev_hash, hash=e.hash,
                              visible=can_see(actor, e, state.revealed)
                              and not withheld(actor, type(e).__name__, vars(e)))
            for e in ledger.history(cid, after=after, limit=limit)]


@router.get("/turns/{turn}/dice/verify", response_model=schemas.DicePublic,
            summary="Recompute the server rolls of a closed turn this caller may see from their revealed seeds")
def verify_dice(cid: CampaignId, turn: Annotated[int, Path(ge=1, le=2**31)], ledger: LedgerDep, actor: ActorDep, state: CampaignStateDep):
    # The game master hears of every roll; anyone else checks, counts and hears of the rolls they may see only
    # (ledger/dice.py ``verify_for``): nobody outside an audience learns that it rolled, nor how often.
    r = ledger.verify_dice(cid, turn, actor=actor, revealed=state.revealed)
    return schemas.DicePublic(turn=r.turn, checked=r.checked, manual=r.manual, ok=r.ok, mismatches=list(r.mismatches))
