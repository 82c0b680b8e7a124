"""Where a write left its campaign, for read-your-writes: ``<campaign id>:<version>``.

A write answers with the position it appended (its campaign and the version of
its last event); a read that names it (``Ledger-Position``, api/replica.py) is
served only by a store that holds that campaign's history at least that far.
Versions are per campaign and gapless, so "the replica has it" is one indexed
query on the replica, whatever else the primary wrote meanwhile.

``watching()`` collects the positions of the writes made inside it (the HTTP
layer opens one per request); ``Ledger.handle``, the one door of every write,
calls ``note``. A ``ContextVar`` holding a list: the routes run in a thread
pool with a copy of the request's context, and the copy shares the list.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any
from uuid import UUID

from ledger.domain.campaign import campaign_id
from ledger.domain.errors import InvalidInput

Position = tuple[UUID, int]
_written: ContextVar[list[Position] | None] = ContextVar("ledger_written", default=None)


@contextmanager
def watching() -> Iterator[list[Position]]:
    """The positions written inside the block, in order."""
    found: list[Position] = []
    token = _written.set(found)
    try:
        yield found
    finally:
        _written.reset(token)


def note(appended: Any) -> None:
    """Record where ``appended`` (a ``ledger.application.Appended``) left its campaign, if anyone watches."""
    found = _written.get()
    if found is not None and appended.events:
        found.append((UUID(appended.campaign), int(appended.events[-1]["position"])))


def text(position: Position) -> str:
    return f"{position[0]}:{position[1]}"


def parse(value: str, field: str) -> Position:
    """``<campaign id or slug>:<version>`` (a version of 1 or more), else 422 naming ``field``."""
    name, sep, number = value.strip().rpartition(":")
    if not sep or not name or not number.isdigit() or not 1 <= int(number) <= 2**53:
        raise InvalidInput(f"{value[:80]!r} is not a position: expected <campaign>:<version>, e.g. "
                           "6d1c0b1e-7f7a-5b2c-9e3d-4f5a6b7c8d9e:43", field=field)
    try:
        cid = UUID(name)
    except ValueError:
        cid = campaign_id(name)
    return cid, int(number)
