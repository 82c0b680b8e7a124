"""The read routes' shared machinery: the app's ``Reader`` and its answers cached by head position and audience.

The views at the head, per audience, are ``projections.head.Reader``'s. Here a
read route, once FastAPI has authenticated the caller and refreshed the
campaign's state to its head (``api.deps``: ``ActorDep``, ``CampaignStateDep``,
the dependencies of every route), looks for the body it served the same
audience for the same request at the same head, and else renders it in the
thread pool and keeps it. A revoked token or another campaign's token is
refused by those dependencies before the cache is looked at. With a replica
(api/replica.py) a read may be served by the replica's own ``Reader``; both
readers share the one response cache, since an answer at a head version is the
same whichever store computed it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Annotated, Any

import orjson
from cachetools import LRUCache
from fastapi import Depends, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from api.replica import read_ledger
from ledger.application import Actor
from ledger.domain.campaign import CampaignState
from projections.head import Reader
from projections.read import Audience, audience
from projections.store import ViewDB

JSON = "application/json"


class ResponseCache:
    """The last 200 body per (path and query, audience), with the head position it was computed at."""

    def __init__(self, maxsize: int = 4096):
        self._entries: LRUCache[tuple[str, Audience], tuple[int, bytes]] = LRUCache(maxsize)
        self._lock = threading.Lock()  # cachetools caches are not thread-safe; routes run in a thread pool

    def get(self, key: str, who: Audience, version: int) -> bytes | None:
        with self._lock:
            entry = self._entries.get((key, who))
        return entry[1] if entry is not None and entry[0] == version else None

    def put(self, key: str, who: Audience, version: int, body: bytes) -> None:
        with self._lock:
            current = self._entries.get((key, who))
            if current is None or current[0] <= version:  # never replace a newer answer with an older one
                self._entries[(key, who)] = (version, body)


class Reads:
    """What one app keeps for its reads: the views' reader and the rendered responses."""

    def __init__(self, reader: Reader, cache: ResponseCache | None = None):
        self.reader = reader
        self.cache = cache or ResponseCache()


def viewdb_of(app: Any) -> ViewDB:
    """The view tables, without catching up first (the reader adds the tail itself)."""
    runner = getattr(app.state, "projection_runner", None)
    if runner is not None:
        return runner.projector.db
    projector = getattr(app.state, "projector", None)
    if projector is None:
        from projections.runner import Projector

        projector = app.state.projector = Projector(app.state.ledger)
    return projector.db


_reads_lock = threading.Lock()


def reads_of(app: Any) -> Reads:
    reads = getattr(app.state, "reads", None)
    if reads is None:
        with _reads_lock:  # one per app, even when the first requests come together
            reads = getattr(app.state, "reads", None)
            if reads is None:
                reads = app.state.reads = Reads(Reader(app.state.ledger, viewdb_of(app)))
    return reads


def replica_reads_of(app: Any, timeout: float = 10.0) -> Reads:
    """The replica's reader (its own view tables, replicated), sharing the primary's response cache: an answer
    at a head version is the same whichever store computed it. Made at start (or at the first read) once the
    replica has the view tables: a standby cannot create them, and just made on the primary (``reads_of``)
    they arrive within the replication lag."""
    reads = getattr(app.state, "replica_reads", None)
    if reads is not None:
        return reads
    cache = reads_of(app).cache  # before the lock, which reads_of may take
    deadline = time.monotonic() + timeout
    with _reads_lock:
        while getattr(app.state, "replica_reads", None) is None:
            replica = app.state.replica
            try:
                app.state.replica_reads = Reads(Reader(replica, ViewDB(replica.recorder)), cache)
            except Exception as e:  # not replayed yet: read-only, the CREATE is refused
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the replica has not received the view tables in {timeout} s: {e}") from e
                time.sleep(0.05)
        return app.state.replica_reads


def reads_for(request: Request) -> Reads:
    """The reads of the store this request reads (``api.replica.read_ledger`` chose it, else the primary)."""
    chosen = getattr(request.state, "read_ledger", None)
    if chosen is not None and chosen is getattr(request.app.state, "replica", None):
        return replica_reads_of(request.app)
    return reads_of(request.app)


async def get_reads(request: Request) -> Reads:
    await read_ledger(request)
    return reads_for(request)


ReadsDep = Annotated[Reads, Depends(get_reads)]


def request_key(request: Request) -> str:
    query = request.url.query
    return request.url.path + ("?" + query if query else "")


async def cached(request: Request, reads: Reads, actor: Actor, state: CampaignState,
                 render: Callable[[], bytes | Any]) -> Response:
    """The body served to this audience for this request at this head, else ``render()`` (in the thread pool:
    it reads the store), kept for the next caller. ``render`` raises for an error, as any route does."""
    key, who = request_key(request), audience(actor)
    body = reads.cache.get(key, who, state.version)
    if body is None:
        data = await run_in_threadpool(render)
        body = data if isinstance(data, bytes) else orjson.dumps(data)
        reads.cache.put(key, who, state.version, body)
    return Response(body, media_type=JSON)

