"""Hash chain over a campaign's history.

``hash = sha256(prev_hash || canonical_json(event_without_hash))`` where the
canonical JSON is orjson with sorted keys, UTF-8, no whitespace. The body hashed
includes the campaign id, the position and the event type, so an event cannot
be moved, renumbered or retyped without breaking the chain.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any
from uuid import UUID

import orjson

#: prev_hash of the first event of every campaign.
GENESIS = "0" * 64

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def _default(obj: Any) -> Any:
    # Exact values are stored as text so that nothing is rounded through floats.
    if isinstance(obj, (Fraction, Decimal)):
        return str(obj)
    if isinstance(obj, datetime):  # subclasses (e.g. a frozen clock's) in orjson's own format
        return obj.isoformat()
    if isinstance(obj, (set, frozenset, tuple)):
        return sorted(obj) if isinstance(obj, (set, frozenset)) else list(obj)
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    raise TypeError(f"cannot serialise {type(obj).__name__} canonically")


class NotCanonical(ValueError):
    """A value has no canonical JSON form (an integer beyond 64 bits, an object...)."""


def canonical_json(obj: Any) -> bytes:
    """Sorted keys, UTF-8, no insignificant whitespace."""
    try:
        return orjson.dumps(obj, default=_default, option=_OPTIONS)
    except TypeError as e:
        raise NotCanonical(str(e)) from None


def hash_body(campaign: UUID | str, position: int, topic: str, state: Mapping[str, Any]) -> dict[str, Any]:
    """What the hash covers: the stored state without its own hash, plus where it sits."""
    body = {k: v for k, v in state.items() if k != "hash"}
    body["campaign"] = str(campaign)
    body["position"] = position
    body["topic"] = topic
    return body


def event_hash(prev_hash: str, body: Mapping[str, Any]) -> str:
    return hashlib.sha256(prev_hash.encode("ascii") + canonical_json(body)).hexdigest()


@dataclass(frozen=True)
class StoredRow:
    """One stored event as the database holds it."""

    campaign: UUID
    position: int
    topic: str
    state: bytes


@dataclass(frozen=True)
class ChainReport:
    intact: bool
    count: int
    head_hash: str
    broken_at: int | None = None
    reason: str | None = None


def verify_rows(rows: Iterable[StoredRow]) -> ChainReport:
    """Walk a campaign's stored rows in order; name the first that does not match.

    Checks, for each row: positions are gapless from 1; the stored bytes are the
    canonical encoding of what they decode to (so even a whitespace edit is
    caught); the link to the previous hash; the hash itself.
    """
    prev = GENESIS
    count = 0
    for expected, row in enumerate(rows, start=1):
        def broken(reason: str) -> ChainReport:
            return ChainReport(False, count, prev, row.position, reason)

        if row.position != expected:
            return ChainReport(False, count, prev, expected, f"position {expected} is missing (found {row.position})")
        try:
            state = orjson.loads(row.state)
        except orjson.JSONDecodeError:
            return broken("stored bytes are not valid JSON")
        if not isinstance(state, dict):
            return broken("stored state is not an object")
        if canonical_json(state) != bytes(row.state):
            return broken("stored bytes are not in canonical form (edited outside the ledger)")
        if state.get("prev_hash") != prev:
            return broken("link to the previous event does not match")
        recomputed = event_hash(prev, hash_body(row.campaign, row.position, row.topic, state))
        if state.get("hash") != recomputed:
            return broken("hash does not match the event's content")
        prev = recomputed
        count += 1
    return ChainReport(True, count, prev)

