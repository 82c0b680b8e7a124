"""ASGI guards in front of the routes: local development's origin checks, and the in-flight bound.

``LocalOnly`` (only in open development: ``LEDGER_ENV=development`` and no admin token, what ``ops/run``
starts, where a loopback client without a token acts as admin):
- the ``Host`` must be a loopback name (``localhost``, ``127.0.0.1``, ``[::1]``, any port): a DNS-rebound
  name (``evil.example`` resolving to 127.0.0.1) reaches the socket but not the app;
- a write (any method but GET, HEAD, OPTIONS) must not be cross-site: ``Sec-Fetch-Site`` (sent by every
  current browser) must be ``same-origin`` or ``none``, and an ``Origin``, when sent, must be a loopback
  origin on the same port. Clients that send neither (curl, the CLI, scripts) are not browsers and pass.

``InFlightLimit``: more than ``limit`` requests in flight in this process get a 503 with ``Retry-After``
(uvicorn's own ``limit_concurrency`` answers a bare 503, so it is set above this one as a hard bound).

``SecurityHeaders``: every answer forbids framing, type sniffing and cross-site referrers, and carries a
Content-Security-Policy without inline script (``CSP``).

``ReadSlots``: at most ``slots`` reads (GET, HEAD) are worked on at once in this process, the others wait their
turn on the event loop; writes and probes never wait for a slot. A page costs milliseconds of Python CPU
under one GIL: with 25 reads in as many threads, an append's thread got the GIL back after each of its round
trips only behind all of them in turn (the load's appends p99 was 585 ms for a few ms of their own work).
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

from fastapi.responses import JSONResponse

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SAME_SITE = frozenset({"same-origin", "none"})
#: Seconds a client should wait before retrying a 503 (overload, store unavailable) or a 409 of contention.
RETRY_AFTER = "1"


def _refuse(status: int, kind: str, message: str, field: str | None, rule: str | None = None,
            headers: dict[str, str] | None = None) -> JSONResponse:
    body = {"error": {"type": kind, "message": message, "field": field, "rule": rule}}
    return JSONResponse(body, status_code=status, headers=headers)


def split_host(value: str) -> tuple[str, str]:
    """``host[:port]`` to (lower-case host, port text); IPv6 literals keep their brackets."""
    value = value.strip().lower()
    if value.startswith("["):
        host, _, rest = value.partition("]")
        return host + "]", rest.lstrip(":")
    host, _, port = value.partition(":")
    return host, port


class LocalOnly:
    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", ())}
        host, port = split_host(headers.get("host", ""))
        refusal = None
        if host not in LOOPBACK_NAMES:
            refusal = _refuse(403, "Forbidden", "development mode answers loopback host names only "
                              "(localhost, 127.0.0.1, [::1])", "Host", "access.host")
        elif scope["method"] not in SAFE_METHODS:
            site, origin = headers.get("sec-fetch-site"), headers.get("origin")
            if site is not None and site.lower() not in SAME_SITE:
                refusal = _refuse(403, "Forbidden", f"cross-site write refused (Sec-Fetch-Site: {site})",
                                  "Sec-Fetch-Site", "access.same_origin")
            elif origin is not None:
                parts = urlsplit(origin)
                o_host, o_port = split_host(parts.netloc)
                o_port = o_port or {"http": "80", "https": "443"}.get(parts.scheme, "")
                if o_host not in LOOPBACK_NAMES or o_port != (port or {"https": "443"}.get(scope["scheme"], "80")):
                    refusal = _refuse(403, "Forbidden", f"cross-site write refused (Origin: {origin})", "Origin",
                                      "access.same_origin")
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)


class InFlightLimit:
    EXEMPT = ("/health", "/ready", "/metrics")  # probes still answer under overload

    def __init__(self, app: Any, limit: int):
        self.app, self.limit, self.in_flight = app, limit, 0

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self.limit or scope.get("path") in self.EXEMPT:
            await self.app(scope, receive, send)
            return
        if self.in_flight >= self.limit:
            response = _refuse(503, "Overloaded", f"more than {self.limit} requests in flight: retry later",
                               None, headers={"Retry-After": RETRY_AFTER})
            await response(scope, receive, send)
            return
        self.in_flight += 1  # one event loop per process: no lock needed
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1


class ReadSlots:
    EXEMPT = InFlightLimit.EXEMPT
    READS = frozenset({"GET", "HEAD"})

    def __init__(self, app: Any, slots: int):
        self.app, self.slots = app, slots
        self._free: asyncio.Semaphore | None = None  # made on the worker's own event loop, at its first read

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if (scope["type"] != "http" or not self.slots or scope["method"] not in self.READS
                or scope.get("path") in self.EXEMPT):
            await self.app(scope, receive, send)
            return
        if self._free is None:
            self._free = asyncio.Semaphore(self.slots)
        free = self._free
        await free.acquire()
        held = True

        async def sending(message: dict) -> None:
            nonlocal held
            # The work is done once the answer starts: a slow client's download does not hold the slot.
            if held and message["type"] == "http.response.start":
                held = False
                free.release()
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            if held:
                free.release()


#: Every answer's: no page of the ledger may be framed (a game master's forms under another site's buttons), no
#: answer sniffed into another type, no address of a private page sent to another site.
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]
#: The pages' policy: scripts from the ledger's own files only, never inline (api/web/static/ledger.js); inline
#: styles stay (the drawn map's <style>, a few style attributes); images from the ledger or data: URLs.
CSP = (b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       b"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
#: The API's reference pages (/docs, /redoc) start Swagger UI with an inline script of FastAPI's: allowed there
#: alone; they show nothing of a campaign.
DOCS_CSP = (b"default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
            b"img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")


#: Every answer but the static files: nothing a reader was shown is kept by their browser or a proxy (issue 34).
NOT_KEPT = b"no-store"


class SecurityHeaders:
    """Adds ``SECURITY_HEADERS``, a Content-Security-Policy and ``Cache-Control: no-store`` (but on the static
    files) to every HTTP answer."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        csp = DOCS_CSP if path in ("/docs", "/redoc") or path.startswith("/docs/") else CSP

        # What a reader is shown is theirs (a player's sheet, a game master's page, a download): a browser or a
        # proxy keeps none of it on disk. The static files (the same for everyone) keep their own headers.
        kept = path.startswith(("/ui/static/", "/docs/static/"))

        async def with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", ()), *SECURITY_HEADERS, (b"content-security-policy", csp)]
                if not kept:
                    headers = [(k, v) for k, v in headers if k.lower() != b"cache-control"]
                    headers.append((b"cache-control", NOT_KEPT))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)
