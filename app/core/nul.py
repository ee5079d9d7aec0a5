"""NUL characters never reach a route (PostgreSQL refuses them in text and answered 500).

One pure ASGI guard for every request: the path, the query string and a JSON or form
body are searched, and the first field holding a NUL is named in a 422."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any
from urllib.parse import parse_qsl

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.errors import FieldError, error_response

NUL = "\x00"
MESSAGE = "must not contain the NUL character"


def nul_field(value: Any, where: str = "") -> str | None:
    """The dotted path of the first string (or key) holding a NUL, or None."""
    if isinstance(value, str):
        return (where or "body") if NUL in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            name = str(key).replace(NUL, "")  # never echo the NUL back
            path = f"{where}.{name}" if where else name
            if NUL in str(key):
                return path
            found = nul_field(item, path)
            if found:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = nul_field(item, f"{where}.{i}" if where else str(i))
            if found:
                return found
    return None


def _query_field(query: str) -> str | None:
    if "%00" not in query and NUL not in query:
        return None
    for key, value in parse_qsl(query, keep_blank_values=True):
        if NUL in key or NUL in value:
            return key.replace(NUL, "") or "query"
    return None


def _body_field(body: bytes, content_type: str) -> str | None:
    if b"\\u0000" not in body and b"\x00" not in body and b"%00" not in body:
        return None  # the common case: nothing to parse twice
    if "form-urlencoded" in content_type:
        return _query_field(body.decode("latin-1"))
    try:
        return nul_field(orjson.loads(body))
    except orjson.JSONDecodeError:
        return None  # the route's own parser answers with its 422


class NulGuard:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if scope["type"] == "websocket":
            # Nothing to read first: a plain call handing back the next layer's awaitable,
            # so no frame of this layer lives as long as the socket.
            if _url_field(scope) is None:
                return self.app(scope, receive, send)
            return send({"type": "websocket.close", "code": 1008, "reason": "NUL in request"})
        return self._guard(scope, receive, send)

    async def _guard(self, scope: Scope, receive: Receive, send: Send) -> None:
        field = None
        if scope["type"] == "http":
            field = _url_field(scope)
            if field is None:
                receive, field = await _read_body(scope, receive)
        if field is None:
            await self.app(scope, receive, send)
        else:
            response = error_response(
                422,
                "validation_error",
                f"{field}: {MESSAGE}",
                fields=[FieldError(field=field, message=MESSAGE)],
            )
            await response(scope, receive, send)


def _url_field(scope: Scope) -> str | None:
    if NUL in scope.get("path", ""):
        return "path"
    return _query_field(scope.get("query_string", b"").decode("latin-1"))


async def _read_body(scope: Scope, receive: Receive) -> tuple[Receive, str | None]:
    """Read the whole body, then hand the route a ``receive`` that replays it."""
    if scope["method"] in ("GET", "HEAD", "OPTIONS"):
        return receive, None
    chunks: list[bytes] = []
    message: Message = {"type": "http.request", "more_body": True}
    while message.get("more_body"):
        message = await receive()
        if message["type"] != "http.request":
            break  # the client went away: let the route see it
        chunks.append(message.get("body", b""))
    body = b"".join(chunks)
    content_type = next(
        (v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"content-type"), ""
    )
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            if message["type"] != "http.request":
                return message
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay, _body_field(body, content_type)
