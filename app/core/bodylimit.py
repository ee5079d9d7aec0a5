"""Every HTTP request body is capped before anything reads it.

A body declared larger than ``max_body_bytes`` (Content-Length) is answered 413
``body_too_large`` at once, without reading a byte of it. A body sent without a length
(chunked) is counted while it streams in, and reading stops with the same 413 at the
first chunk past the cap, so no layer behind this one (the NUL guard, a route's parser)
ever holds more than the cap in memory. WebSockets pass through: their frames have caps
of their own (app/api/ws.py)."""

from __future__ import annotations

import logging

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.errors import error_response

log = logging.getLogger("app.bodylimit")

CODE = "body_too_large"


def too_large_message(limit: int) -> str:
    return f"The request body is larger than the {_size(limit)} this server accepts."


def _size(limit: int) -> str:
    if limit >= 1024 * 1024 and limit % (1024 * 1024) == 0:
        return f"{limit // (1024 * 1024)} MiB"
    if limit >= 1024 and limit % 1024 == 0:
        return f"{limit // 1024} KiB"
    return f"{limit} bytes"


class BodyTooLarge(HTTPException):
    """Raised by the counting ``receive`` when a streamed body passes the cap.

    An HTTPException so that FastAPI's body parsing lets it through unchanged (it turns
    any other exception into a 400); ``body_too_large_handler`` answers it."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, too_large_message(limit))
        self.limit = limit


def too_large_response(limit: int) -> JSONResponse:
    # The unread rest of the body is not drained: the server closes the connection.
    return error_response(413, CODE, too_large_message(limit), headers={"Connection": "close"})


async def body_too_large_handler(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, BodyTooLarge)
    return too_large_response(exc.limit)


def declared_length(scope: Scope) -> int | None:
    """The Content-Length header as an int; None when absent. A malformed one never
    gets here: uvicorn's HTTP parsers refuse it with a 400."""
    for key, value in scope.get("headers", []):
        if key == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class BodyLimit:
    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.limit = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = declared_length(scope)
        if declared is not None and declared > self.limit:
            await too_large_response(self.limit)(scope, receive, send)
            return
        await self._counted(scope, receive, send)

    async def _counted(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.limit
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, watched_send)
        except BodyTooLarge:
            if started:  # a route answered before reading all of it: nothing to add
                log.info("body past the cap after the answer began on %s", scope["path"])
                return
            await too_large_response(limit)(scope, receive, send)
