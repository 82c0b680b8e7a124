"""Hash chain over a campaign's history.

``hash = sha256(prev_hash || canonical_json(event_without_hash))`` where the
canonical JSON is orjson with sorted keys, UTF-8, no whitespace. The body hashed
includes the campaign id, the position and the event type, so an event cannot
be moved, renumbered or retyped without breaking the chain.

A hidden event (visibility not public) also stores a ``salt``: 32 random bytes
(hex) drawn when it is sealed, part of what its hash covers. Every reader gets
every link (``/chain``), and an event's content is often guessable (a die's
faces, a marker in one of a few provinces, a time between two visible
neighbours'); without the salt, a reader who may not see the event could hash
each guess and confirm the one that matches. With it, the hash tells them
nothing they could not draw at random; whoever may see the event receives it
whole, salt included, and recomputes its hash as for any other. Public events
carry no salt, and events sealed before salts existed hash as they always did.
"""

from __future__ import annotations

import hashlib
import secrets
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


def blinded(visibility: Mapping[str, Any] | None) -> bool:
    """Whether an event of this visibility is sealed with a salt: every event not shown to everyone."""
    return (visibility or {}).get("scope", "public") != "public"


def new_salt() -> str:
    """A hidden event's salt: 32 bytes from the OS's CSPRNG, hex (what a guess of the event must also guess)."""
    return secrets.token_hex(32)


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
    root: str | None = None  # RFC 6962 root (hex) of the events that verified


@dataclass(frozen=True)
class Expectation:
    """What the history must hold at ``size`` events: a head hash, or a Merkle root (a checkpoint's).

    ``signed``: a checkpoint the service signed after a write (``root`` None when its signature does
    not verify); every stored position must be covered by one, so an event appended outside the ledger
    shows. Otherwise what a caller noted (a head, a checkpoint they kept), against a truncated or
    rewritten-and-rehashed tail.
    """

    size: int
    head_hash: str | None = None
    root: bytes | None = None
    source: str = "the expectation"
    signed: bool = False


def verify_rows(rows: Iterable[StoredRow], expectations: Iterable[Expectation] = (), *,
                require_signed: bool = False) -> ChainReport:
    """Walk a campaign's stored rows in order; name the first that does not match.

    Checks, for each row: positions are gapless from 1; the stored bytes are the
    canonical encoding of what they decode to (so even a whitespace edit is
    caught); the link to the previous hash; the hash itself. Then the
    expectations (with ``require_signed``, every position must be covered by a
    signed one); each must match the history at its size, and the
    history may not end before one. Nothing here decodes an event into a domain object, so
    no stored row, however mangled, can make it fail otherwise than by a report.
    """
    from ledger import merkle  # beside the chain; imported here to keep this module's import light

    wanted: dict[int, list[Expectation]] = {}
    for x in expectations:
        wanted.setdefault(x.size, []).append(x)
    signed_sizes = sorted(x.size for xs in wanted.values() for x in xs if x.signed)
    problems: list[tuple[int, str]] = []
    frontier: list[bytes] = []
    last_signed = 0
    prev = GENESIS
    count = 0
    for expected, row in enumerate(rows, start=1):
        def broken(reason: str) -> None:
            problems.append((expected, reason))

        if row.position != expected:
            broken(f"position {expected} is missing (found {row.position})")
            break
        try:
            state = orjson.loads(row.state)
        except orjson.JSONDecodeError:
            broken("stored bytes are not valid JSON")
            break
        if not isinstance(state, dict):
            broken("stored state is not an object")
            break
        if canonical_json(state) != bytes(row.state):
            broken("stored bytes are not in canonical form (edited outside the ledger)")
            break
        if state.get("prev_hash") != prev:
            broken("link to the previous event does not match")
            break
        recomputed = event_hash(prev, hash_body(row.campaign, row.position, row.topic, state))
        if state.get("hash") != recomputed:
            broken("hash does not match the event's content")
            break
        prev = recomputed
        frontier = merkle.frontier_append(frontier, count, merkle.leaf_hash(bytes.fromhex(recomputed)))
        count += 1
        for x in wanted.get(count, ()):
            if x.signed:
                first, last_signed = last_signed + 1, count
                if x.root is None:
                    problems.append((first, f"{x.source} at size {count} does not verify with the service's key"))
                elif x.root != merkle.frontier_root(frontier):
                    problems.append((first, f"positions {first}..{count} do not hash to the root {x.source} at "
                                            f"size {count}: rewritten (and re-hashed) outside the ledger"))
            elif x.head_hash is not None and x.head_hash != recomputed:
                problems.append((count, f"the event at position {count} is not {x.source} "
                                        f"({x.head_hash[:16]}…): rewritten"))
            elif x.root is not None and x.root != merkle.frontier_root(frontier):
                problems.append((count, f"positions 1..{count} do not hash to the root of {x.source}: "
                                        f"rewritten at or before position {count}"))
        if problems:
            break
    if not problems:
        size = max(wanted, default=0)
        if size > count:
            problems.append((count + 1, f"positions {count + 1}..{size} are missing: {wanted[size][0].source} "
                                        f"covers {size} events (a deleted tail)"))
        covered = signed_sizes[-1] if signed_sizes else 0
        if require_signed and count > covered:
            problems.append((covered + 1, f"position {covered + 1} is not covered by any checkpoint the service "
                                          "signed: appended outside the ledger"))
    root = merkle.frontier_root(frontier).hex()
    if problems:
        at, reason = min(problems)
        return ChainReport(False, count, prev, at, reason, root)
    return ChainReport(True, count, prev, root=root)
