"""Logging: one line per request carrying a request id; JSON in production.

The request id comes from the client's ``X-Request-ID`` header when it looks sane,
otherwise it is generated; it is echoed in every response (a 500 too) and attached to
every log record written while the request runs, the traceback of an unhandled error
included. In production the app's, uvicorn's and alembic's lines share one JSON format
(``JsonFormatter``; deploy/logging.json gives it to uvicorn from its first line).
"""

from __future__ import annotations

import logging
import re
import sys
import time
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core import metrics, tracking
from app.core.errors import error_response

REQUEST_ID_HEADER = "x-request-id"
_SAFE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")

request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)
access_log = logging.getLogger("app.access")
error_log = logging.getLogger("app.errors")
ws_log = logging.getLogger("app.ws")

_STD_ATTRS = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"color_message"}
# Loggers that other libraries configure for themselves; in JSON mode their lines go to
# the root handler instead, in the same format.
FOREIGN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "alembic")


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get() or "-"
        return True


def iso_time(created: float) -> str:
    """ISO-8601 in UTC with milliseconds and the zone: 2026-12-01T11:20:29.123+00:00."""
    return datetime.fromtimestamp(created, tz=UTC).isoformat(timespec="milliseconds")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": iso_time(record.created),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STD_ATTRS and not key.startswith("_"):
                data[key] = value
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(data, default=str).decode()


class TextFormatter(logging.Formatter):
    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        return iso_time(record.created)


def configure_logging(*, json: bool, level: str = "INFO") -> None:
    """Install one stderr handler on the root logger (idempotent). In JSON mode it also
    replaces a JSON handler installed by uvicorn's --log-config (deploy/logging.json), so
    no line is written twice, and routes uvicorn's and alembic's loggers to it."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RequestIdFilter())
    if json:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(
            TextFormatter("%(asctime)s %(levelname)-5s [%(request_id)s] %(name)s: %(message)s")
        )
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_buraco", False) or isinstance(old.formatter, JsonFormatter):
            root.removeHandler(old)
    handler._buraco = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level.upper())
    if json:
        for name in FOREIGN_LOGGERS:
            foreign = logging.getLogger(name)
            if foreign.handlers:  # its own plain-text handler (one turned off has none)
                foreign.handlers.clear()
                foreign.propagate = True


def _incoming_request_id(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            text: str = value.decode("latin-1")
            if _SAFE_ID.match(text):
                return text
            break
    return uuid.uuid4().hex


def _route_label(scope: Scope) -> str:
    """The route's template (/api/tables/{table_id}), never the raw path: bounded labels."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if path is None:
        return "unmatched"
    return str(path) or "static"


class RequestLogMiddleware:
    """Pure ASGI middleware (no per-request task overhead, works for WebSockets too)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        request_id = _incoming_request_id(scope)
        scope.setdefault("state", {})["request_id"] = request_id
        token = request_id_var.set(request_id)
        tracking.set_request_id(request_id)
        started = time.perf_counter()
        status = 0

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode("latin-1")))
                message = {**message, "headers": headers}
            elif message["type"] == "websocket.accept":
                status = 101
            await send(message)

        failed = False
        try:
            await self.app(scope, receive, send_wrapper)
        except Exception as exc:
            # Logged here, inside the request's context, so the traceback line carries
            # the request id, and answered here, so the 500 carries x-request-id.
            failed = True
            error_log.exception(
                "unhandled error on %s %s", scope.get("method", "WS"), scope.get("path", "")
            )
            tracking.capture(exc)
            if scope["type"] != "http" or status:
                raise  # the response had started: nothing more can be said to the client
            status = 500
            response = error_response(500, "internal_error", "Something went wrong on our side.")
            await response(scope, receive, send_wrapper)
        finally:
            elapsed = time.perf_counter() - started
            self._log(scope, request_id, status, elapsed)
            if not failed:  # after a failure the server's own lines still belong to it
                request_id_var.reset(token)

    @staticmethod
    def _log(scope: Scope, request_id: str, status: int, elapsed: float) -> None:
        client = scope.get("client")
        method = scope.get("method", "WS")
        if scope["type"] == "http":
            route = _route_label(scope)
            metrics.HTTP_REQUESTS.labels(method, route, str(status)).inc()
            metrics.HTTP_SECONDS.labels(route).observe(elapsed)
        access_log.info(
            "%s %s %s %.1fms",
            method,
            scope.get("path", ""),
            status,
            elapsed * 1000,
            extra={
                "request_id": request_id,
                "method": method,
                "path": scope.get("path", ""),
                "status": status,
                "duration_ms": round(elapsed * 1000, 2),
                "client": client[0] if client else None,
            },
        )


class WsSession:
    """One WebSocket session's closing line: who, which tables, how long, how it ended.

    One per open socket, so it is kept small: slots, and the tables in a list (a socket
    watches one or a few; an empty set is 0.2 KiB)."""

    __slots__ = ("user_id", "started", "tables", "close_code")

    def __init__(self, user_id: int) -> None:
        self.user_id = user_id
        self.started = time.monotonic()
        self.tables: list[str] = []
        self.close_code: int | None = None
        metrics.OPEN_SOCKETS.inc()
        tracking.set_user(user_id)

    def watched(self, table_id: str) -> None:
        if table_id not in self.tables:
            self.tables.append(table_id)

    def closed(self, code: int | None) -> None:
        if self.close_code is None and code is not None:
            self.close_code = code

    def end(self) -> None:
        metrics.OPEN_SOCKETS.dec()
        duration = time.monotonic() - self.started
        ws_log.info(
            "ws session of user %s ended after %.1fs (close %s, %d tables)",
            self.user_id,
            duration,
            self.close_code,
            len(self.tables),
            extra={
                "user_id": self.user_id,
                "tables": sorted(self.tables),
                "duration_s": round(duration, 3),
                "close_code": self.close_code,
            },
        )
