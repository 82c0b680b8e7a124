"""orjson transcoder and mapper: stored bytes are canonical JSON.

The transcoder writes exactly ``ledger.chain.canonical_json`` so that the bytes
in the database are the form the hash chain is computed over; verification can
then detect any byte changed outside the ledger.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
from eventsourcing.persistence import Mapper, StoredEvent, Transcoder

from ledger.chain import canonical_json


class OrjsonTranscoder(Transcoder):
    def encode(self, obj: Any) -> bytes:
        return canonical_json(obj)

    def decode(self, data: bytes) -> Any:
        return orjson.loads(data)


class LedgerMapper(Mapper):
    """Turns the stored ISO timestamp back into a datetime on the way out."""

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        event = super().to_domain_event(stored_event)
        ts = event.__dict__.get("timestamp")
        if isinstance(ts, str):
            event.__dict__["timestamp"] = datetime.fromisoformat(ts)
        return event
