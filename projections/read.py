"""The read side's public API: a campaign's records as a caller may see them, and position checks.

Every reader (the HTTP routes, the web page, the CLI) reads events through
here, and filters them with the one visibility predicate,
``ledger.access.can_see`` (a ``Record`` passes for an event there). Records are
read by position range and in pages: a long campaign holds hundreds of
thousands of events, so no read a person waits for asks for all of them.
The state at a position is ``projections.replay.state_at`` (game master) and
``projections.head.Reader`` (every audience, at the head or at a position).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import replace
from typing import Any
from uuid import UUID

from ledger.access import ALL_SEEING, can_see, readable, withheld
from ledger.application import Actor
from ledger.domain.errors import InvalidInput
from projections.records import Record, from_row

#: Who sees the same answers: every all-seeing role alike; a player per country; observers alike.
Audience = tuple[str, str | None]
PAGE = 5000


def audience(actor: Actor) -> Audience:
    if actor.role in ALL_SEEING:
        return ("all", None)
    return (actor.role, actor.country if actor.role == "player" else None)


def sees_all(actor: Actor) -> bool:
    return actor.role in ALL_SEEING


def records(ledger: Any, cid: UUID, gt: int = 0, lte: int | None = None, *, limit: int | None = None,
            decoders: Mapping[str, Callable[[bytes], dict[str, Any]]] | None = None) -> list[Record]:
    """The campaign's records at positions ``(gt, lte]`` (at most ``limit`` of them), decoded once
    (``decoders``: per type, a decoder of only the fields the caller reads, ``records.from_row``)."""
    if lte is not None and lte <= gt:
        return []
    rows = ledger.recorder.select_events(cid, gt=gt or None, lte=lte, limit=limit)
    return [from_row(cid, s.originator_version, s.topic, s.state, 0, decoders) for s in rows]


def pages(ledger: Any, cid: UUID, gt: int = 0, lte: int | None = None, size: int = PAGE) -> Iterator[list[Record]]:
    """``records`` in pages of ``size``: a caller that stops early reads no further."""
    while True:
        page = records(ledger, cid, gt, lte, limit=size)
        if page:
            yield page
        if len(page) < size:
            return
        gt = page[-1].position


def visible(actor: Actor, rs: list[Record], revealed: Collection[int] = ()) -> list[Record]:
    """The records of ``rs`` ``actor`` may see, in order (``revealed``: the campaign state's), as they may read
    them (``ledger.access.readable``: without a rival's figures an old phase close carries)."""
    if sees_all(actor):
        return list(rs)
    shown = frozenset(revealed)
    return [replace(r, data=readable(actor, r.type, r.data)) if withheld(actor, r.type, r.data) else r
            for r in rs if can_see(actor, r, shown)]


def visible_records(ledger: Any, cid: UUID, actor: Actor, revealed: Collection[int], gt: int = 0,
                    lte: int | None = None) -> list[Record]:
    """The records at ``(gt, lte]`` the caller may see."""
    return visible(actor, records(ledger, cid, gt, lte), revealed)


def check_position(ledger: Any, cid: UUID, n: Any, name: str = "at", head: int | None = None) -> int:
    """The campaign's head, after checking that ``n`` is a position of its history (else 422 on ``name``)."""
    if head is None:
        head = ledger.campaign(cid).version
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= head:
        raise InvalidInput(f"position {n} is not in the history (0..{head})", field=name)
    return head
