"""The pace of a turn and "since you last looked" (issue 38): deadlines, readiness, reminders, the reader's mark,
and the turn report in plain text or Markdown (projections/catchup.py)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request, status
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from api import schemas
from api.deps import ActorDep, CampaignId, CampaignStateDep, IdempotencyKey, LedgerDep, Permit
from api.errors import ERRORS
from api.routes.views import appended
from ledger.domain import commands as cmd
from ledger.domain import pace
from ledger.domain.errors import InvalidInput
from projections import catchup

router = APIRouter(prefix="/campaigns/{campaign}", tags=["pace"])

ZONE = Query(min_length=1, max_length=60, examples=["Europe/Paris"],
             description="The reader's time zone (an IANA name); the campaign's when left out")
MEDIA = {"md": "text/markdown; charset=utf-8", "text": "text/plain; charset=utf-8"}


@router.post("/deadlines", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED, responses=ERRORS,
             summary="Set or move the deadline of a phase of the open turn (in the campaign's time zone), "
                     "with reminders before it")
def set_deadline(body: pace.SetDeadline, cid: CampaignId, ledger: LedgerDep,
                 actor: Permit("set_deadline"),  # type: ignore[valid-type]
                 key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/deadlines/clear", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             responses=ERRORS, summary="Clear the deadline of a phase")
def clear_deadline(body: pace.ClearDeadline, cid: CampaignId, ledger: LedgerDep,
                   actor: Permit("clear_deadline"),  # type: ignore[valid-type]
                   key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/ready", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED, responses=ERRORS,
             summary="Mark a country ready, or not, for the phase the turn is in (a player: their own country)")
def mark_ready(body: pace.MarkReady, cid: CampaignId, ledger: LedgerDep,
               actor: Permit("mark_ready"),  # type: ignore[valid-type]
               key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/reminders", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED, responses=ERRORS,
             summary="Record the reminders due now, naming the countries not ready (the service's ticker does it)")
def send_reminders(cid: CampaignId, ledger: LedgerDep,
                   actor: Permit("send_reminders"),  # type: ignore[valid-type]
                   key: IdempotencyKey):
    return appended(ledger.handle(cid, cmd.build(pace.SendReminders), actor=actor, idempotency_key=key))


@router.post("/read", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED, responses=ERRORS,
             summary="Mark the campaign read up to a position: \"since you last looked\" starts after it")
def mark_read(body: pace.MarkAsRead, cid: CampaignId, ledger: LedgerDep,
              actor: Permit("mark_read"),  # type: ignore[valid-type]
              key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.get("/report", response_class=Response, responses={
    **ERRORS, 200: {"content": {MEDIA["md"]: {}, MEDIA["text"]: {}},
                    "description": "The turn report: what changed for the caller, in words, with links"}},
    summary="What changed for the caller since a position (default: where they marked read), in plain text or "
            "Markdown, to paste in a forum or an e-mail")
async def report(request: Request, cid: CampaignId, actor: ActorDep, state: CampaignStateDep, ledger: LedgerDep,
                 since: Annotated[int | None, Query(ge=0, le=2**53)] = None,
                 format: Annotated[Literal["md", "text"], Query()] = "md",  # noqa: A002 (the query's name)
                 tz: Annotated[str | None, ZONE] = None,
                 mine: Annotated[bool, Query(description="Only what touches the caller's country (a player)")]
                 = False) -> Response:
    if since is not None and since > state.version:
        raise InvalidInput(f"since: position {since} is not in the history (it ends at {state.version})",
                           field="since")
    try:
        zone_name = catchup.reader_zone(state, tz)
    except ValueError as e:
        raise InvalidInput(f"tz: {e}", field="tz") from None
    origin = str(request.base_url).rstrip("/")

    def build() -> str:
        c = catchup.catch_up(ledger, state, actor, since=since, zone_name=zone_name, mine=mine)
        return catchup.markdown(c, origin) if format == "md" else catchup.text(c, origin)

    return Response(await run_in_threadpool(build), media_type=MEDIA[format])
