"""The reader's language for each request: ``?lang=`` (the switch on every page, remembered in a cookie), else the
``ledger_lang`` cookie, else the browser's ``Accept-Language``, else English (``ledger/i18n.py``).

ASGI middleware: the language is set (a context variable) around the whole request, the exception handlers and
the thread pool's work included, and every answer says which it is (``Content-Language``) and what chose it
(``Vary: Accept-Language, Cookie``), so no cache in between hands one reader's language to another. The response
caches of this process key their bytes by it (``api/readpath.py request_key``).
"""

from __future__ import annotations

from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlencode

from ledger import i18n

COOKIE = "ledger_lang"
PARAM = "lang"
YEAR = 365 * 24 * 3600


def chosen(query: str, cookie: str | None, accept: str | None) -> tuple[str, bool]:
    """The language of a request and whether the query chose it (then the cookie remembers it)."""
    asked = i18n.known((parse_qs(query).get(PARAM) or [""])[0])
    if asked is not None:
        return asked, True
    return i18n.known(cookie) or i18n.negotiate(accept), False


class Language:
    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", ())}
        cookie = None
        if "cookie" in headers:
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(headers["cookie"])
            except Exception:  # noqa: BLE001 - a malformed Cookie header chooses nothing; the routes answer it
                jar = SimpleCookie()
            cookie = jar[COOKIE].value if COOKIE in jar else None
        lang, asked = chosen(scope.get("query_string", b"").decode("latin-1"), cookie, headers.get("accept-language"))

        async def said(message: dict) -> None:
            if message["type"] == "http.response.start":
                out = list(message.get("headers", ()))
                vary = [v for k, v in out if k.lower() == b"vary"]
                words = {w.strip().lower() for v in vary for w in v.decode("latin-1").split(",")}
                if "*" not in words:
                    extra = [w for w in ("Accept-Language", "Cookie") if w.lower() not in words]
                    if extra:
                        out = [(k, v) for k, v in out if k.lower() != b"vary"]
                        out.append((b"vary", ", ".join([*(v.decode("latin-1") for v in vary), *extra]).encode()))
                out.append((b"content-language", lang.encode()))
                if asked and lang != cookie:
                    out.append((b"set-cookie", f"{COOKIE}={lang}; Max-Age={YEAR}; Path=/; SameSite=Lax".encode()))
                message["headers"] = out
            await send(message)

        with i18n.language(lang):
            await self.app(scope, receive, said)


def switch_url(request: Any, lang: str) -> str:
    """This page in ``lang``: its path and query, with ``lang=`` replaced (the switch on every page)."""
    query = [(k, v) for k, vs in parse_qs(request.url.query, keep_blank_values=True).items() if k != PARAM
             for v in vs]
    return request.url.path + "?" + urlencode([*query, (PARAM, lang)])
