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

The web pages (api/routes/web.py) and ``map.svg`` are kept the same way, a
page per caller (its name is on it) with its per-request parts (the form's
CSRF token, a form's idempotency key) as slots filled in on the way out. Every
answer kept here carries an ``ETag`` derived from what its bytes depend on: the
request, the audience, the head position, this release of the code; a client
sending it back in ``If-None-Match`` gets a 304 after the authentication and
the head's read, without a render.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Annotated, Any

import orjson
from cachetools import LRUCache
from fastapi import Depends, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from api.replica import read_ledger
from ledger import i18n
from ledger.application import Actor
from ledger.domain.campaign import CampaignState
from projections.head import Reader
from projections.read import Audience, audience
from projections.store import ViewDB

JSON = "application/json"
#: Answers kept here (in the worker) are kept by no browser or proxy (api/guards.py sets no-store on every private
#: answer); a client that sends their ETag back anyway gets a 304 cheaply.
REVALIDATE = {"Cache-Control": "no-store"}
#: Bytes of rendered answers each worker keeps (LEDGER_RESPONSE_CACHE_BYTES sets it: ledger/config.py).
CACHE_BYTES = 64 << 20
ENTRY_OVERHEAD = 200  # the key, the tuple, the version: roughly, per entry


class ResponseCache:
    """The last 200 body per (request, reader), with the head position it was computed at; least recently used
    first out, bounded in bytes. ``who`` is what the body depends on of the caller: the audience for the JSON
    reads (api/routes/projections.py), the caller itself for a page that names them."""

    def __init__(self, max_bytes: int = CACHE_BYTES):
        self._entries: LRUCache[tuple[str, Hashable], tuple[int, bytes | str]] = LRUCache(
            max_bytes, getsizeof=lambda entry: len(entry[1]) + ENTRY_OVERHEAD)
        self._lock = threading.Lock()  # cachetools caches are not thread-safe; routes run in a thread pool

    def get(self, key: str, who: Hashable, version: int) -> Any:
        with self._lock:
            entry = self._entries.get((key, who))
        return entry[1] if entry is not None and entry[0] == version else None

    def put(self, key: str, who: Hashable, version: int, body: bytes | str) -> None:
        if len(body) + ENTRY_OVERHEAD > self._entries.maxsize // 8:  # one answer never flushes the whole cache
            return
        with self._lock:
            current = self._entries.get((key, who))
            if current is None or current[0] <= version:  # never replace a newer answer with an older one
                self._entries[(key, who)] = (version, body)

    @property
    def size(self) -> int:
        """Bytes held, by the cache's own measure."""
        return int(self._entries.currsize)


class Reads:
    """What one app keeps for its reads: the views' reader and the rendered responses."""

    def __init__(self, reader: Reader, cache: ResponseCache | None = None):
        self.reader = reader
        self.cache = cache or ResponseCache()


def _release() -> str:
    """This release of the code, as far as an answer's bytes go: the name, size and modification time of every
    source and template file of the service's packages (a new release changes at least one), read once."""
    root = Path(__file__).resolve().parents[1]
    seen = hashlib.sha256()
    for package in ("api", "projections", "ledger"):
        for f in sorted((root / package).rglob("*")):
            if f.suffix in (".py", ".html", ".toml", ".json", ".css", ".js"):
                stat = f.stat()
                seen.update(f"{f.relative_to(root)}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return seen.hexdigest()[:16]


RELEASE = _release()


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
                size = getattr(app.state.settings, "response_cache_bytes", CACHE_BYTES)
                reads = app.state.reads = Reads(Reader(app.state.ledger, viewdb_of(app)), ResponseCache(size))
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
    """What an answer's bytes depend on of the request: path, query and the reader's language (api/language.py;
    an English key is the path and query alone, as before the catalogues)."""
    query = request.url.query
    key = request.url.path + ("?" + query if query else "")
    lang = i18n.current()
    return key if lang == i18n.DEFAULT else f"{key}#{lang}"


def etag(request: Request, who: Hashable, version: int) -> str:
    """The answer's entity tag: this request (path and query), ``who`` (what the answer depends on of the caller),
    the campaign's head position and the code's release. Equal tags, equal bytes."""
    key = f"{RELEASE}|{request_key(request)}|{who!r}|{version}"
    return '"' + hashlib.sha256(key.encode()).hexdigest()[:32] + '"'


def not_modified(request: Request, tag: str) -> Response | None:
    """A 304 when the caller already holds the answer tagged ``tag`` (``If-None-Match``), else None."""
    sent = request.headers.get("if-none-match")
    if sent and (sent.strip() == "*" or tag in [t.strip().removeprefix("W/") for t in sent.split(",")]):
        return Response(status_code=304, headers={"ETag": tag, **REVALIDATE})
    return None


async def cached(request: Request, reads: Reads, actor: Actor, state: CampaignState,
                 render: Callable[[], bytes | Any], media_type: str = JSON) -> Response:
    """The body served to this audience for this request at this head (a 304 if the caller holds it already),
    else ``render()`` (in the thread pool: it reads the store), kept for the next caller. ``render`` raises for an
    error, as any route does."""
    key, who = request_key(request), audience(actor)
    tag = etag(request, who, state.version)
    unchanged = not_modified(request, tag)
    if unchanged is not None:
        return unchanged
    body = reads.cache.get(key, who, state.version)
    if body is None:
        data = await run_in_threadpool(render)
        body = data if isinstance(data, bytes) else orjson.dumps(data)
        reads.cache.put(key, who, state.version, body)
    return Response(body, media_type=media_type, headers={"ETag": tag, **REVALIDATE})

