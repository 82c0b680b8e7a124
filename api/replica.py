"""Reads from a PostgreSQL streaming replica, with read-your-writes.

With ``LEDGER_POSTGRES_REPLICA_DSN`` set, the app opens a second, read-only
``Ledger`` on the replica (a hot standby of the store, ``ops/pg.sh replica``).
A GET or HEAD that reads a campaign is served from it; everything else stays on
the primary: writes, the write side's state they build on, authentication
(tokens are checked on the primary, so a revoked token is refused at once) and
the projection runner.

Read-your-writes. Every write answers with its position, ``<campaign>:<version>``
(the ``Ledger-Position`` response header, and ``position`` in the body; the web
forms also set it as the short-lived ``ledger_position`` cookie, so the page a
form redirects to carries it). A read naming a position (the request header
``Ledger-Position``, else that cookie) is served by the replica once the
replica holds that campaign up to that version, polled for at most
``LEDGER_REPLICA_WAIT_MS``; past that, by the primary. A position of another
campaign than the one read does not hold the read back. A read naming nothing
is served by the replica as it stands: behind by the replication lag at most,
but whole (the history at the replica's head, the views folded up to it), and
a campaign the replica does not hold yet (just created) is read on the primary.
A failure to reach the replica sends the read to the primary too: a replica
never turns a read into an error.

Views: the runner writes them on the primary; the replica receives them with the
events, in commit order, so a view there is never ahead of the events there;
the read path folds the events after a view's position (projections/head.py),
so a view behind gives the same answer on the replica as on the primary, and
one response cache (by head version) serves both.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any
from uuid import UUID

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from fastapi import Request

from ledger import positions
from ledger.application import Ledger
from ledger.config import Settings
from ledger.domain.campaign import campaign_id
from ledger.domain.errors import InvalidInput

logger = logging.getLogger("ledger.replica")
HEADER = "Ledger-Position"
COOKIE = "ledger_position"
#: Long enough for any replication lag worth waiting for; the position only matters until the replica has it.
COOKIE_SECONDS = 60
#: Which store served a read (``replica`` or ``primary``), on reads of an app that has a replica.
SOURCE_HEADER = "Ledger-Read"
READS = ("GET", "HEAD")


def open_replica(settings: Settings) -> Ledger | None:
    """A ``Ledger`` reading the replica, or None without one. It creates nothing: a standby is read-only, and
    the primary (``ledger migrate``, or the service at its start) has made the tables it replicates."""
    on_replica = settings.on_replica()
    return Ledger(on_replica, env={"CREATE_TABLE": "n"}) if on_replica is not None else None


_opening = threading.Lock()


def replica_of(app: Any) -> Ledger | None:
    """The app's replica ledger, opened at start (``create_app``'s lifespan), else at the first read (an app
    driven without its lifespan, as tests do)."""
    found = getattr(app.state, "replica", None)
    if found is None and app.state.settings.on_replica() is not None:
        with _opening:
            found = getattr(app.state, "replica", None)
            if found is None:
                found = app.state.replica = open_replica(app.state.settings)
    return found


def named_position(request: Request) -> positions.Position | None:
    """The position the read names: the header (422 if malformed), else the web forms' cookie (ignored if
    malformed: the service sets it, and a stale cookie never fails a page)."""
    header = request.headers.get(HEADER)
    if header is not None:
        return positions.parse(header, HEADER)
    cookie = request.cookies.get(COOKIE)
    if cookie:
        try:
            return positions.parse(cookie, COOKIE)
        except InvalidInput:
            return None
    return None


def _path_campaign(request: Request) -> UUID | None:
    name = request.path_params.get("campaign")
    if not name:
        return None
    try:
        return UUID(name)
    except ValueError:
        return campaign_id(name)


async def read_ledger(request: Request) -> Ledger:
    """The ledger this request reads: the replica or the primary, chosen once per request (see the module)."""
    chosen = getattr(request.state, "read_ledger", None)
    if chosen is None:
        chosen = await _choose(request)
        request.state.read_ledger = chosen
        if request.method in READS and getattr(request.app.state, "replica", None) is not None:
            request.state.read_source = "replica" if chosen is request.app.state.replica else "primary"
    return chosen


async def on_primary(request: Request) -> None:
    """A route's dependency: it reads the primary (it catches the views up there, which a standby cannot)."""
    request.state.read_ledger = request.app.state.ledger
    if getattr(request.app.state, "replica", None) is not None:
        request.state.read_source = "primary"


async def _choose(request: Request) -> Ledger:
    primary: Ledger = request.app.state.ledger
    if request.method not in READS:
        return primary
    named = named_position(request)  # checked on every topology, so a bad header is a 422 on both
    replica = replica_of(request.app)
    if replica is None:
        return primary
    here = _path_campaign(request)
    if named is not None and here is not None and named[0] != here:
        named = None  # a write to another campaign: this read does not depend on it
    target = named or ((here, 1) if here is not None else None)
    if target is None:
        return replica
    cid, version = target
    loop = asyncio.get_running_loop()
    deadline = loop.time() + request.app.state.settings.replica_wait_ms / 1000
    pause = 0.002
    while True:
        try:
            # One indexed query on the replica, off the event loop (a round trip there stalls every request of
            # the worker); the route's state of the campaign reuses it rather than asking again (api/deps.py).
            head = await run_in_threadpool(replica.recorder.head_version, cid)  # type: ignore[attr-defined]
            if head >= version:
                if cid == here:
                    request.state.replica_head = head
                return replica
        except Exception as e:  # unreachable, restarting, conflicting with recovery: the primary answers
            logger.warning("replica unavailable, read served by the primary: %s", e)
            return primary
        now = loop.time()
        if named is None or now >= deadline:
            # Unknown to the replica yet (just created), or still behind the named write after the wait.
            return primary
        await asyncio.sleep(min(pause, deadline - now))
        pause = min(pause * 2, 0.02)


class Positions:
    """ASGI middleware: a write's position in its response (``Ledger-Position``; and the ``ledger_position``
    cookie after a web form), and on reads of an app with a replica, which store served them."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with positions.watching() as written:
            async def sending(message: dict) -> None:
                if message["type"] == "http.response.start":
                    headers = MutableHeaders(scope=message)
                    if written:
                        value = positions.text(written[-1])
                        headers.append(HEADER, value)
                        if scope.get("path", "").startswith("/ui/"):
                            secure = "; Secure" if scope.get("scheme") == "https" else ""
                            headers.append("set-cookie", f"{COOKIE}={value}; Max-Age={COOKIE_SECONDS}; Path=/; "
                                                         f"HttpOnly; SameSite=Strict{secure}")
                    source = scope.get("state", {}).get("read_source")
                    if source is not None:
                        headers.append(SOURCE_HEADER, source)
                await send(message)

            await self.app(scope, receive, sending)

