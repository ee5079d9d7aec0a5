"""Logging: one line per request carrying a request id; JSON in production.

The request id comes from the client's ``X-Request-ID`` header when it looks sane,
otherwise it is generated; it is echoed in the response and attached to every log
record written while the request runs.
"""

from __future__ import annotations

import logging
import re
import sys
import time
import uuid
from contextvars import ContextVar
from typing import Any

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID_HEADER = "x-request-id"
_SAFE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")

request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)
access_log = logging.getLogger("app.access")

_STD_ATTRS = set(vars(logging.LogRecord("", 0, "", 0, "", None, None)))


class _RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get() or "-"
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
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


def configure_logging(*, json: bool, level: str = "INFO") -> None:
    """Install one stderr handler on the root logger (idempotent)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(_RequestIdFilter())
    if json:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)-5s [%(request_id)s] %(name)s: %(message)s")
        )
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_buraco", False)]:
        root.removeHandler(old)
    handler._buraco = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level.upper())


def _incoming_request_id(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            text = value.decode("latin-1")
            if _SAFE_ID.match(text):
                return text
            break
    return uuid.uuid4().hex


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

        try:
            await self.app(scope, receive, send_wrapper)
        except Exception:
            status = status or 500
            raise
        finally:
            elapsed_ms = (time.perf_counter() - started) * 1000
            client = scope.get("client")
            access_log.info(
                "%s %s %s %.1fms",
                scope.get("method", "WS"),
                scope.get("path", ""),
                status,
                elapsed_ms,
                extra={
                    "request_id": request_id,
                    "method": scope.get("method", "WS"),
                    "path": scope.get("path", ""),
                    "status": status,
                    "duration_ms": round(elapsed_ms, 2),
                    "client": client[0] if client else None,
                },
            )
            request_id_var.reset(token)
