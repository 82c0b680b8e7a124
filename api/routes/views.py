"""Conversions from the write side to the public response models."""

from __future__ import annotations

from uuid import UUID

from ledger import positions
from ledger.application import Appended as AppendedResult
from ledger.domain.campaign import CampaignState
from ledger.domain.events import ENVELOPE, LedgerEvent
from projections.records import Record

from api import schemas
from api.observability import count_appended


def campaign_public(s: CampaignState) -> schemas.CampaignPublic:
    return schemas.CampaignPublic(
        id=str(s.id), slug=s.slug, name=s.name, ruleset=s.ruleset, ruleset_version=s.ruleset_version,
        countries=list(s.countries), players=s.players, game_masters=list(s.game_masters), settings=s.settings,
        turn=s.turn,
        turn_open=s.turn_open, commitment=s.commitment, position=s.version, head_hash=s.head_hash,
    )


def event_public(e: LedgerEvent) -> schemas.EventPublic:
    return schemas.EventPublic(
        position=e.originator_version, type=type(e).__name__, timestamp=e.timestamp, schema_version=e.schema,
        context=e.context, actor=e.actor, visibility=e.visibility, payload=e.payload(), prev_hash=e.prev_hash,
        hash=e.hash,
    )


def event_public_of(r: Record) -> schemas.EventPublic:
    """``event_public`` of a stored record (the read side's, one JSON decode) rather than a domain event: the same
    fields, without building the event object the write side needs."""
    d = r.data
    return schemas.EventPublic(
        position=r.position, type=r.type, timestamp=d["timestamp"], schema_version=d["schema"], context=d["context"],
        actor=d["actor"], visibility=d["visibility"], payload={k: v for k, v in d.items() if k not in ENVELOPE},
        prev_hash=d["prev_hash"], hash=d["hash"],
    )


def appended(result: AppendedResult) -> schemas.Appended:
    if not result.replayed:  # a replay appended nothing
        count_appended(result.events)
    position = positions.text((UUID(result.campaign), result.events[-1]["position"])) if result.events else None
    return schemas.Appended.model_validate({**result.to_json(), "position": position})
