"""One error shape everywhere: ``{"error": {"code": "...", "message": "..."}}``.

Raise ``AppError`` from services and dependencies; the handlers installed by
``install_error_handlers`` turn it, HTTP errors (404, 405, ...), validation errors and
unexpected exceptions into that shape.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as DatabasePoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.core.headers import error_headers

log = logging.getLogger("app.errors")


class AppError(Exception):
    """An error a client may see: a stable code, a readable message and an HTTP status."""

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 400,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.headers = dict(headers or {})


class FieldError(BaseModel):
    field: str
    message: str


class ErrorDetail(BaseModel):
    code: str
    message: str
    fields: list[FieldError] | None = None


class ErrorResponse(BaseModel):
    error: ErrorDetail


def _described(description: str) -> dict[str, Any]:
    return {"model": ErrorResponse, "description": description}


# Put on routers (``APIRouter(responses=ERROR_RESPONSES)``) so OpenAPI shows the shape.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _described("Refused by a rule of the game or the economy (see the error code)"),
    401: _described("Not authenticated, or the session expired or was revoked"),
    403: _described("Not allowed for this player (not invited, not seated, blocked...)"),
    404: _described("No such table, game, player or item"),
    409: _described("Conflicts with the current state (taken, already done, not waiting...)"),
    422: _described("Malformed input; `fields` names each offending field"),
    429: _described("Too many attempts; see the Retry-After header"),
    503: _described("A store is not answering right now (server_busy); retry shortly"),
}

_STATUS_CODES = {
    400: "bad_request",
    401: "not_authenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}


def error_body(
    code: str, message: str, fields: Sequence[FieldError] | None = None
) -> dict[str, Any]:
    detail = ErrorDetail(code=code, message=message, fields=list(fields) if fields else None)
    return {"error": detail.model_dump(exclude_none=True)}


def error_response(
    status: int,
    code: str,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    fields: Sequence[FieldError] | None = None,
) -> JSONResponse:
    return JSONResponse(error_body(code, message, fields), status_code=status, headers=headers)


def _field_name(loc: Sequence[int | str]) -> str:
    # ("body", "username") -> "username"; ("query", "page") -> "page"; ("body",) -> "body"
    parts = [str(p) for p in loc[1:]] if len(loc) > 1 else [str(p) for p in loc]
    return ".".join(parts)


def validation_fields(exc: RequestValidationError) -> list[FieldError]:
    fields = []
    for err in exc.errors():
        message = str(err.get("msg", "invalid value"))
        # pydantic prefixes messages from custom validators; players need not see that.
        message = message.removeprefix("Value error, ")
        fields.append(FieldError(field=_field_name(err.get("loc", ())), message=message))
    return fields


async def _app_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, AppError)
    return error_response(exc.status, exc.code, exc.message, headers=exc.headers)


async def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _STATUS_CODES.get(exc.status_code, "http_error")
    message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
    return error_response(exc.status_code, code, message, headers=exc.headers)


async def _validation_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    fields = validation_fields(exc)
    message = "; ".join(f"{f.field}: {f.message}" for f in fields) or "invalid request"
    return error_response(422, "validation_error", message, fields=fields)


def _busy() -> JSONResponse:
    """503 ``server_busy`` with Retry-After: the request changed nothing; retry shortly."""
    return error_response(
        503,
        "server_busy",
        "The server is busy right now; try again in a moment.",
        headers={"Retry-After": "1"},
    )


async def _pool_exhausted(request: Request, exc: Exception) -> JSONResponse:
    """Every pooled database connection stayed busy for ``db_pool_timeout_seconds``:
    answer at once that the client may retry, rather than queue or fail with a 500."""
    log.warning("database pool exhausted on %s %s", request.method, request.url.path)
    return _busy()


def database_unreachable(exc: BaseException) -> bool:
    """The database was lost, not the query wrong: the connection ended under the request
    (a restart, a failover, an administrator ending it, the network) or could not be
    made. The transaction was never committed, so the request changed nothing and may
    simply be retried."""
    if isinstance(exc, DBAPIError):
        return bool(exc.connection_invalidated) or isinstance(
            exc, (OperationalError, InterfaceError)
        )
    return isinstance(exc, ConnectionError)  # refused or reset before any DBAPI call


async def _database_error(request: Request, exc: Exception) -> JSONResponse:
    """A database that is not answering is answered as an exhausted pool is (503, retry);
    any other database error is a fault of ours (500, logged whole)."""
    if not database_unreachable(exc):
        return await _unexpected_error(request, exc)
    log.warning("database not answering on %s %s: %s", request.method, request.url.path, exc)
    return _busy()


async def _unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(
        500, "internal_error", "Something went wrong on our side.", headers=error_headers()
    )


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(AppError, _app_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(DatabasePoolTimeout, _pool_exhausted)
    app.add_exception_handler(DBAPIError, _database_error)
    app.add_exception_handler(ConnectionError, _database_error)
    app.add_exception_handler(Exception, _unexpected_error)
