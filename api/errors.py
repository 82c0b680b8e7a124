"""One registry mapping errors to HTTP responses: status, field, reason, rule.

Every error body is ``{"error": {"type", "message", "field", "rule"}}``: domain
errors (``LedgerError`` subclasses, each with its status), rules errors (422),
request validation (422, naming the field), Starlette's own (404 unknown path,
405 method), and a request body over ``LEDGER_MAX_REQUEST_BYTES`` (413).
"""

from __future__ import annotations

import re

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from api.guards import RETRY_AFTER
from eventsourcing.persistence import InterfaceError as PersistenceInterfaceError
from eventsourcing.persistence import OperationalError as PersistenceOperationalError
from ledger.domain.errors import ConcurrencyExhausted, LedgerError, plain
from ledger.rules.core import RulesError


class ErrorDetail(BaseModel):
    type: str = Field(examples=["Forbidden"])
    message: str = Field(examples=["a observer may not record ruling in this campaign"])
    field: str | None = Field(default=None, examples=["Authorization"])
    rule: str | None = Field(default=None, examples=["access.record_ruling"])


class ErrorBody(BaseModel):
    error: ErrorDetail


def _doc(description: str) -> dict[str, Any]:
    return {"model": ErrorBody, "description": description}


# The error responses every route may give, for ``responses=`` in the routers (OpenAPI).
ERRORS: dict[int | str, dict[str, Any]] = {
    401: _doc("No token, a malformed header, or an unknown or revoked token"),
    403: _doc("The token's role may not do this, or it belongs to another campaign"),
    404: _doc("Unknown campaign, event or token (or an event hidden from this caller)"),
    409: _doc("The command does not fit the campaign's state, or an Idempotency-Key was reused with another body"),
    413: _doc("The request body is larger than LEDGER_MAX_REQUEST_BYTES"),
    431: _doc("The request's head (its address and headers) is larger than LEDGER_MAX_HEADER_BYTES"),
    422: _doc("Invalid input: the field and the reason are named"),
}


class RequestTooLarge(LedgerError):
    status = 413


def _body(kind: str, message: str, field: str | None = None, rule: str | None = None) -> dict:
    return {"error": {"type": kind, "message": message, "field": field, "rule": rule}}


async def ledger_error(_: Request, exc: LedgerError) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
    if isinstance(exc, ConcurrencyExhausted):  # contention, not a conflict of state: the retry will fit
        headers = {"Retry-After": RETRY_AFTER}
    return JSONResponse(_body(type(exc).__name__, exc.message, exc.field, exc.rule), status_code=exc.status,
                        headers=headers)


async def rules_error(_: Request, exc: RulesError) -> JSONResponse:
    return JSONResponse(_body("RulesError", str(exc), exc.field, exc.rule), status_code=422)


async def validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
    first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
    loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path", "header")]
    field = ".".join(loc) or None
    why = plain(str(first.get("msg")))  # a validator's words, without pydantic's "Value error, "
    message = f"{field}: {why}" if field else why
    return JSONResponse(_body("InvalidInput", message, field), status_code=422)


async def overflow_error(_: Request, exc: OverflowError) -> JSONResponse:
    # Defence in depth: a path or query integer a route left unbounded reaches the store beyond 64 bits.
    return JSONResponse(_body("InvalidInput", f"a number in the request is out of range: {exc}"), status_code=422)


#: FastAPI's own answer to a JSON body it cannot decode (not UTF-8, truncated): a 400 of no field.
_UNPARSED_BODY = "There was an error parsing the body"


async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    if exc.status_code == 400 and exc.detail == _UNPARSED_BODY:
        # Bad input is a 422 naming the field, whatever layer found it (the schema documents no 400).
        return JSONResponse(_body("InvalidInput", "the body is not JSON in UTF-8", "body"), status_code=422)
    kind = {404: "NotFound", 405: "MethodNotAllowed"}.get(exc.status_code, "HTTPError")
    headers = exc.headers
    if exc.status_code == 405 and request is not None:
        # Starlette names the methods of the one route it matched; a path served by several routes (GET and
        # POST /campaigns are two) supports them all, and Allow says so (RFC 9110 §15.5.6).
        headers = {**(headers or {}), "Allow": ", ".join(_allowed(request))}
    return JSONResponse(_body(kind, str(exc.detail)), status_code=exc.status_code, headers=headers)


def _allowed(request: Request) -> list[str]:
    """The methods the published schema gives the request's path (what a client was told it may send)."""
    paths = getattr(request.app.state, "allowed_methods", None)
    if paths is None:
        paths = request.app.state.allowed_methods = [
            (re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)) + "$"),
             sorted(m.upper() for m in ops if m in ("get", "post", "put", "patch", "delete")))
            for path, ops in request.app.openapi().get("paths", {}).items()]
    return sorted({m for pattern, methods in paths if pattern.match(request.url.path) for m in methods})


async def store_unavailable(request: Request, exc: Exception) -> JSONResponse:
    # The store did not answer (connection refused or lost, lock timeout, disk full, read-only): nothing was
    # appended; retry later. The log and /ready say why (api/observability.py StoreHealth).
    if request is not None:
        request.app.state.store_health.refused(exc)
    return JSONResponse(_body("StoreUnavailable", f"the store is unavailable: {type(exc).__name__}"),
                        status_code=503, headers={"Retry-After": RETRY_AFTER})


class BodyLimit:
    """ASGI middleware: 413 for a body over ``max_bytes``, declared (Content-Length) or streamed."""

    def __init__(self, app: Any, max_bytes: int):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > limit:
                    response = JSONResponse(_body("RequestTooLarge", f"the request body is over {limit} bytes",
                                                  "body"), status_code=413)
                    await response(scope, receive, send)
                    return
        received, exceeded = 0, False

        async def limited() -> dict:
            nonlocal received, exceeded
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    exceeded = True
                    raise RequestTooLarge(f"the request body is over {limit} bytes", field="body")
            return message

        async def guarded(message: dict) -> None:
            if not exceeded:  # FastAPI answers a body that failed to stream with its own 400: ours replaces it
                await send(message)

        try:
            await self.app(scope, limited, guarded)
        except RequestTooLarge:
            pass
        if exceeded:
            response = JSONResponse(_body("RequestTooLarge", f"the request body is over {limit} bytes", "body"),
                                    status_code=413)
            await response(scope, receive, send)


def _document_errors(app: FastAPI) -> None:
    """Every campaign route documents the error responses, routers that forgot ``responses=ERRORS`` too."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = build()
        ref = {"$ref": "#/components/schemas/ErrorBody"}
        schema.setdefault("components", {}).setdefault("schemas", {}).setdefault(
            "ErrorBody", ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}"))
        schema["components"]["schemas"].update(ErrorBody.model_json_schema(
            ref_template="#/components/schemas/{model}").get("$defs", {}))
        for path, operations in schema.get("paths", {}).items():
            if not path.startswith("/campaigns"):
                continue
            for op in operations.values():
                responses = op.setdefault("responses", {})
                for code, doc in ERRORS.items():
                    # An error is JSON whatever the route answers on success (a checkpoint is text/plain).
                    json_doc = "application/json" in responses.get(str(code), {}).get("content", {})
                    if str(code) == "422" or not json_doc:
                        responses[str(code)] = {"description": doc["description"],
                                                "content": {"application/json": {"schema": ref}}}
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def register(app: FastAPI) -> None:
    _document_errors(app)
    app.add_exception_handler(LedgerError, ledger_error)  # type: ignore[arg-type]
    app.add_exception_handler(RulesError, rules_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, http_error)  # type: ignore[arg-type]
    app.add_exception_handler(OverflowError, overflow_error)  # type: ignore[arg-type]
    app.add_exception_handler(PersistenceOperationalError, store_unavailable)
    app.add_exception_handler(PersistenceInterfaceError, store_unavailable)
