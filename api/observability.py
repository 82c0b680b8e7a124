"""Request ids, structured JSON access logs and Prometheus metrics.

One pure-ASGI middleware (cheaper than BaseHTTPMiddleware on the hot path):
- ``X-Request-ID``: taken from the request when it is a sane token (1-128 of
  ``[A-Za-z0-9._-]``), otherwise generated; echoed on the response and put in
  every log line of the request;
- one JSON log line per request on the ``ledger.access`` logger: method, route
  template, path, status, duration, request id, actor id and role;
- ``ledger_http_request_duration_seconds{method,route,status}`` histogram (the
  route template, so cardinality stays bounded) and
  ``ledger_events_appended_total{type}`` (incremented by ``count_appended``).
"""

from __future__ import annotations

import itertools
import logging
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


def count_appended(events: Any) -> None:
    for e in events:
        EVENTS_APPENDED.labels(type=e["type"]).inc()


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
    def __init__(self, app: Any):
        self.app = app

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

        async def send_with_id(message: dict) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), header]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
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
