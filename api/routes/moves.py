"""What a game master (or a player, for their own stacks, where the campaign allows it) records on the map: moves,
splits, merges, units and leaders, control, owner, markers, sieges, war and peace (names checked against the
scenario)."""

from __future__ import annotations

from fastapi import APIRouter, status

from api import schemas
from api.deps import CampaignId, IdempotencyKey, LedgerDep, Permit
from api.errors import ERRORS
from api.routes.views import appended
from ledger.domain import commands as cmd

router = APIRouter(prefix="/campaigns/{campaign}/map", tags=["map"], responses=ERRORS)


@router.post("/moves", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A stack moves from where the game master read it on the map to a neighbouring place")
def move_stack(body: cmd.MoveStack, cid: CampaignId, ledger: LedgerDep, actor: Permit("move_stack"),
               key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/control", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A province changes controller")
def change_control(body: cmd.ChangeControl, cid: CampaignId, ledger: LedgerDep, actor: Permit("change_control"),
                   key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/owner", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A province changes owner (a cession, an annexation)")
def change_owner(body: cmd.ChangeOwner, cid: CampaignId, ledger: LedgerDep, actor: Permit("change_owner"),
                 key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/markers", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Place a marker (pillage, revolt, siegework...) on a province or sea zone")
def place_marker(body: cmd.PlaceMarker, cid: CampaignId, ledger: LedgerDep, actor: Permit("place_marker"),
                 key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/markers/remove", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Remove a marker")
def remove_marker(body: cmd.RemoveMarker, cid: CampaignId, ledger: LedgerDep, actor: Permit("remove_marker"),
                  key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/fortress", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A province's fortress level changes")
def change_fortress(body: cmd.ChangeFortress, cid: CampaignId, ledger: LedgerDep, actor: Permit("change_fortress"),
                    key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/wars", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Declare a war between two sides")
def declare_war(body: cmd.DeclareWar, cid: CampaignId, ledger: LedgerDep, actor: Permit("declare_war"),
                key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/peace", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Peace ends a war in progress (its two sides as declared)")
def make_peace(body: cmd.MakePeace, cid: CampaignId, ledger: LedgerDep, actor: Permit("make_peace"),
               key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/stacks", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A new stack on the map: its country, place, units and leaders")
def raise_stack(body: cmd.RaiseStack, cid: CampaignId, ledger: LedgerDep, actor: Permit("raise_stack"),
                key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/stacks/split", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Some units and leaders of a stack form a new stack in the same place")
def split_stack(body: cmd.SplitStack, cid: CampaignId, ledger: LedgerDep, actor: Permit("split_stack"),
                key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/stacks/merge", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A stack joins another in the same place")
def merge_stacks(body: cmd.MergeStacks, cid: CampaignId, ledger: LedgerDep, actor: Permit("merge_stacks"),
                 key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/stacks/change", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A stack gains or loses units; leaders arrive on it or leave the game (I3)")
def change_stack(body: cmd.ChangeStack, cid: CampaignId, ledger: LedgerDep, actor: Permit("change_stack"),
                 key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/sieges", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A siege starts: stacks in the province besiege it")
def start_siege(body: cmd.StartSiege, cid: CampaignId, ledger: LedgerDep, actor: Permit("start_siege"),
                key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/sieges/end", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A siege ends: taken, lifted or relieved")
def end_siege(body: cmd.EndSiege, cid: CampaignId, ledger: LedgerDep, actor: Permit("end_siege"),
              key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/stacks/disband", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A stack leaves the map with its units and leaders (disbanded)")
def disband_stack(body: cmd.DisbandStack, cid: CampaignId, ledger: LedgerDep, actor: Permit("disband_stack"),
                  key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/leaders/values", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="A leader on the map is given the values printed on his counter (no departure)")
def set_leader_values(body: cmd.SetLeaderValues, cid: CampaignId, ledger: LedgerDep,
                      actor: Permit("set_leader_values"), key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))


@router.post("/countries", response_model=schemas.Appended, status_code=status.HTTP_201_CREATED,
             summary="Set some of a country's economic facts (technologies, domestic trade index, vassals, "
                     "manufactures, mines): what the income lines worked out from the map read")
def set_country_facts(body: cmd.SetCountryFacts, cid: CampaignId, ledger: LedgerDep,
                      actor: Permit("set_country_facts"), key: IdempotencyKey):
    return appended(ledger.handle(cid, body, actor=actor, idempotency_key=key))
