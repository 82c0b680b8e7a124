"""Conversions from the write side to the public response models."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

import orjson
from pydantic import TypeAdapter

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
        hash=e.hash, salt=e.salt,
    )


def event_public_of(r: Record) -> schemas.EventPublic:
    """``event_public`` of a stored record (the read side's, one JSON decode) rather than a domain event: the same
    fields, without building the event object the write side needs."""
    d = r.data
    return schemas.EventPublic(
        position=r.position, type=r.type, timestamp=d["timestamp"], schema_version=d["schema"], context=d["context"],
        actor=d["actor"], visibility=d["visibility"], payload={k: v for k, v in d.items() if k not in ENVELOPE},
        prev_hash=d["prev_hash"], hash=d["hash"], salt=d.get("salt"),
    )


EVENTS = TypeAdapter(list[schemas.EventPublic])  # what FastAPI's response_model serializes with
_TIME = TypeAdapter(datetime)
#: A timestamp as the store writes them (``datetime.isoformat()`` in UTC): pydantic prints it with "Z".
_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{6})?(?:\+00:00|Z)")


def _timestamp(text: str) -> str:
    if _UTC.fullmatch(text):
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return _TIME.dump_python(_TIME.validate_python(text), mode="json")  # any other form: pydantic's own


def events_json(records: Sequence[Record]) -> bytes:
    """``EVENTS.dump_json([event_public_of(r) ...], by_alias=True)``, the same bytes, from plain dicts: a page of
    events built ~50 pydantic models (a third of a ms per 50) only to print what the records hold already. A
    value orjson does not print as pydantic does (an integer past 64 bits) takes pydantic's way."""
    rows: list[dict[str, Any]] = []
    for r in records:
        d = r.data
        rows.append({"position": r.position, "type": r.type, "timestamp": _timestamp(d["timestamp"]),
                     "schema_version": d["schema"], "context": d["context"], "actor": d["actor"],
                     "visibility": d["visibility"], "payload": {k: v for k, v in d.items() if k not in ENVELOPE},
                     "prev_hash": d["prev_hash"], "hash": d["hash"], "salt": d.get("salt")})
    try:
        return orjson.dumps(rows)
    except TypeError:
        return EVENTS.dump_json([event_public_of(r) for r in records], by_alias=True)


def appended(result: AppendedResult) -> schemas.Appended:
    if not result.replayed:  # a replay appended nothing
        count_appended(result.events)
    position = positions.text((UUID(result.campaign), result.events[-1]["position"])) if result.events else None
    return schemas.Appended.model_validate({**result.to_json(), "position": position})
