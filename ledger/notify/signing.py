"""Endpoint secrets and message signatures.

A receiver checks that a message comes from this ledger and was not replayed: the body is signed with
HMAC-SHA256 under the endpoint's secret, over ``<timestamp>.<body>``, and sent with two headers::

    X-Ledger-Timestamp: 1764410000            (seconds since 1970, UTC)
    X-Ledger-Signature: sha256=<hex of HMAC-SHA256(secret, "1764410000." + body)>

The receiver recomputes the HMAC over the raw body it received, compares in constant time, and refuses a
timestamp more than a few minutes old (``verify``).

The secret is never stored, not even in the events an owner reads back: it is derived from the service's key
(``Signer.derived_key``, outside the database, travelling with backups as the key does) and the campaign and
endpoint ids, shown once when the endpoint is registered, and derived again by the delivery worker.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any
from uuid import UUID

PURPOSE = b"ledger notify endpoints"
SIGNATURE_HEADER = "X-Ledger-Signature"
TIMESTAMP_HEADER = "X-Ledger-Timestamp"
#: How old a signed timestamp ``verify`` accepts, in seconds.
TOLERANCE = 300


def secret_of(key: bytes, campaign: UUID | str, endpoint_id: str) -> str:
    """The signing secret of an endpoint: HMAC-SHA256(key, "<campaign id>/<endpoint id>"), hex, prefixed."""
    return "whsec_" + hmac.new(key, f"{campaign}/{endpoint_id}".encode(), hashlib.sha256).hexdigest()


def endpoint_secret(ledger: Any, campaign: UUID | str, endpoint_id: str) -> str:
    """``secret_of`` under this service's key."""
    return secret_of(ledger.signer.derived_key(PURPOSE), campaign, endpoint_id)


def signature(secret: str, timestamp: int, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()


def headers(secret: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {TIMESTAMP_HEADER: str(timestamp), SIGNATURE_HEADER: signature(secret, timestamp, body)}


def verify(secret: str, body: bytes, timestamp: str, sig: str, now: float, tolerance: int = TOLERANCE) -> bool:
    """What a receiver does: the signature matches the raw body and the timestamp is recent."""
    try:
        stamp = int(timestamp)
    except (TypeError, ValueError):
        return False
    if abs(now - stamp) > tolerance:
        return False
    return hmac.compare_digest(signature(secret, stamp, body), sig or "")


def new_endpoint_id() -> str:
    """A fresh endpoint id (random: an id says nothing of its owner, and a rival cannot guess one)."""
    import secrets

    return "ep_" + secrets.token_hex(8)
