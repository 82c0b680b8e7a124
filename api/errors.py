"""One registry mapping errors to HTTP responses: status, field, reason, rule."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from ledger.domain.errors import LedgerError
from ledger.rules.core import RulesError


def _body(kind: str, message: str, field: str | None = None, rule: str | None = None) -> dict:
    return {"error": {"type": kind, "message": message, "field": field, "rule": rule}}


async def ledger_error(_: Request, exc: LedgerError) -> JSONResponse:
    return JSONResponse(_body(type(exc).__name__, exc.message, exc.field, exc.rule), status_code=exc.status)


async def rules_error(_: Request, exc: RulesError) -> JSONResponse:
    return JSONResponse(_body("RulesError", str(exc), exc.field, exc.rule), status_code=422)


async def validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
    first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
    loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path", "header")]
    field = ".".join(loc) or None
    message = f"{field}: {first.get('msg')}" if field else str(first.get("msg"))
    return JSONResponse(_body("InvalidInput", message, field), status_code=422)


def register(app: FastAPI) -> None:
    app.add_exception_handler(LedgerError, ledger_error)  # type: ignore[arg-type]
    app.add_exception_handler(RulesError, rules_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, validation_error)  # type: ignore[arg-type]
