"""Request ids, structured JSON access logs and Prometheus metrics.

One pure-ASGI middleware (cheaper than BaseHTTPMiddleware on the hot path):
- ``X-Request-ID``: taken from the request when it is a sane token (1-128 of
  ``[A-Za-z0-9._-]``), otherwise generated; echoed on the response and put in
  every log line of the request;
- one JSON log line per request on the ``ledger.access`` logger: method, route
  template, path, status, duration, request id, actor id and role;
- ``ledger_http_request_duration_seconds{method,route,status}`` histogram (the
  route template, so cardinality stays bounded) and
  ``ledger_events_appended_total{type}`` (incremented by ``count_appended``);
- with ``LEDGER_COUNT_STATEMENTS`` (a measurement setting, ops/load.py sets it),
  a ``Ledger-Statements`` response header: the SQL statements the request ran,
  in any thread it used (psycopg's cursors count into the request's context).
"""

from __future__ import annotations

import functools
import itertools
import logging
from contextvars import ContextVar
import os
import re
import secrets
import sys
import time
from typing import Any

import orjson
from prometheus_client import CONTENT_TYPE_LATEST, Counter, Histogram, generate_latest

LOG = logging.getLogger("ledger.access")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,128}$")

REQUEST_LATENCY = Histogram(
    "ledger_http_request_duration_seconds",
    "HTTP request latency by route template",
    ["method", "route", "status"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
#: The histogram's children by (method, route, status): ``labels()`` takes a lock and builds a key per call.
_LATENCY_BY_LABELS: dict[tuple[str, str, int], Any] = {}
EVENTS_APPENDED = Counter("ledger_events_appended_total", "Events appended to campaign histories", ["type"])


class _RequestIds:
    """32 hex digits: a random prefix per process, then a counter (uuid4 asked the OS for 16 random bytes per
    request; an id needs to be unique, not secret). The prefix is drawn again in a forked child."""

    def __init__(self) -> None:
        self.pid = -1

    def next(self) -> str:
        if self.pid != os.getpid():
            self.pid, self.prefix, self.counter = os.getpid(), secrets.token_hex(8), itertools.count()
        return f"{self.prefix}{next(self.counter):016x}"


_request_ids = _RequestIds()

#: The statements run so far by the request of this context (a thread of the pool runs in a copy of the
#: request's context: the same list), or None when nobody counts.
_STATEMENTS: ContextVar[list[int] | None] = ContextVar("ledger_statements", default=None)
STATEMENTS_HEADER = b"ledger-statements"


def count_statements() -> None:
    """Make psycopg's cursors count each statement (``execute``, ``executemany``) into the current request's
    counter: once per process, and only where the setting asks for it (a wrapper on every statement)."""
    import psycopg

    cursor = psycopg.Cursor
    if getattr(cursor, "_ledger_counted", False):
        return
    for name in ("execute", "executemany"):
        setattr(cursor, name, _counting(getattr(cursor, name)))
    cursor._ledger_counted = True  # type: ignore[attr-defined]


def _counting(plain: Any) -> Any:
    @functools.wraps(plain)
    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        found = _STATEMENTS.get()
        if found is not None:
            found[0] += 1
        return plain(self, *args, **kwargs)

    return counted


def count_appended(events: Any) -> None:
    for e in events:
        EVENTS_APPENDED.labels(type=e["type"]).inc()


def _appended_total() -> float:
    return sum(x.value for m in EVENTS_APPENDED.collect() for x in m.samples if x.name.endswith("_total"))


class StoreHealth:
    """Whether the app's writes reach the store (issue 34: a full disk answered 503 with nothing logged while
    ``/ready`` said ready). A write the store refused (disk full, read-only, connection lost) is logged with the
    store's own words and reported by ``/ready`` (degraded) until an append of this process succeeds again.
    One per app (``app.state.store_health``)."""

    def __init__(self) -> None:
        self._failure: dict[str, Any] | None = None

    def refused(self, exc: BaseException) -> None:
        cause = exc.__cause__ or exc.__context__ or exc
        reason = " ".join(str(cause).split())[:300] or type(cause).__name__
        self._failure = {"error": type(cause).__name__, "reason": reason, "appended": _appended_total()}
        logging.getLogger("ledger.store").error("the store refused a request: %s: %s", type(cause).__name__,
                                                reason)

    @property
    def failing(self) -> str | None:
        """The kind of error of the last refusal, while no append has succeeded since."""
        if self._failure is not None and _appended_total() > self._failure["appended"]:
            logging.getLogger("ledger.store").warning("the store accepts writes again")
            self._failure = None
        return None if self._failure is None else self._failure["error"]


def metrics_body() -> tuple[bytes, str]:
    return generate_latest(), CONTENT_TYPE_LATEST


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        doc = {"ts": round(record.created, 3), "level": record.levelname.lower(), "logger": record.name,
               "message": record.getMessage()}
        doc.update(getattr(record, "fields", {}))
        if record.exc_info:
            doc["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(doc, default=str).decode()


def configure_logging(level: int = logging.INFO) -> None:
    """JSON lines on stderr for the ledger's loggers (idempotent)."""
    logger = logging.getLogger("ledger")
    if not any(isinstance(h.formatter, JsonFormatter) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False


class Observability:
    def __init__(self, app: Any, statements: bool = False):
        self.app, self.statements = app, statements
        if statements:
            count_statements()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = ""
        for name, value in scope.get("headers", ()):
            if name == b"x-request-id":
                candidate = value.decode("latin-1")
                if _REQUEST_ID.match(candidate):
                    request_id = candidate
                break
        request_id = request_id or _request_ids.next()
        scope.setdefault("state", {})["request_id"] = request_id
        header = (b"x-request-id", request_id.encode("latin-1"))
        status = 500
        started = time.perf_counter()
        ran = [0] if self.statements else None
        counting = _STATEMENTS.set(ran) if ran is not None else None

        async def send_with_id(message: dict) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), header]
                if ran is not None:  # the answer starts once the work is done
                    message["headers"].append((STATEMENTS_HEADER, str(ran[0]).encode()))
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if counting is not None:
                _STATEMENTS.reset(counting)
            elapsed = time.perf_counter() - started
            route = scope.get("route")
            template = getattr(route, "path", None) or "<unmatched>"
            key = (scope["method"], template, status)
            child = _LATENCY_BY_LABELS.get(key)
            if child is None:  # bounded: methods x route templates x statuses
                child = _LATENCY_BY_LABELS[key] = REQUEST_LATENCY.labels(key[0], template, str(status))
            child.observe(elapsed)
            if LOG.isEnabledFor(logging.INFO):
                actor = scope["state"].get("actor")
                LOG.info("request", extra={"fields": {
                    "request_id": request_id, "method": scope["method"], "route": template,
                    "path": scope.get("path"), "status": status, "duration_ms": round(elapsed * 1000, 2),
                    "actor": getattr(actor, "id", None), "role": getattr(actor, "role", None),
                }})


class LagWatch:
    """Whether the views fall behind for good (issue 34: a lag growing for minutes left ``/ready`` "ready").
    Fed with each ``/ready``'s lag: the views are *stuck* once they have been behind for ``alert_seconds``
    without the lag ever coming down in that time (a busy follower that catches up now and then is not). One per
    app (``app.state.lag_watch``)."""

    def __init__(self) -> None:
        self._since: float | None = None  # when the lag last was 0 or came down
        self._last = 0

    def seen(self, lag: int, alert_seconds: float, now: float | None = None) -> float | None:
        """Seconds the views have been behind without catching up, once that is at least ``alert_seconds``."""
        now = time.monotonic() if now is None else now
        if lag <= 0 or self._since is None or lag < self._last:
            self._since = now if lag > 0 else None
        self._last = lag
        behind = 0.0 if self._since is None else now - self._since
        if behind >= alert_seconds:
            logging.getLogger("ledger.projections").warning(
                "the views are %d events behind the store and have not caught up for %.0f s", lag, behind)
            return round(behind, 1)
        return None
