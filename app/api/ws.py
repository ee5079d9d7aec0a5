"""``WS /ws``: thin. Check the Origin, authenticate by the session cookie, admit under
the per-address cap, then hand the socket to a ``Connection`` (app/tables/live/connection.py)
until it closes.

The endpoint is reached through ``BuracoApp.ws_stack``, not through FastAPI's own stack
and router: a socket lives for hours, and every layer between the server and the
endpoint (FastAPI's and Starlette's outer layers, the HTTP-only middlewares, the
exception middleware, exit stacks, the router and the route's dependency machinery)
keeps its frames and closures alive for all that time, about 12 KiB a socket, for
nothing a WebSocket uses. The middlewares that act on a WebSocket (raw send, request
log, NUL guard) still see it, in the same order."""

from __future__ import annotations

import functools
import logging
from collections import Counter
from collections.abc import Awaitable

from fastapi import FastAPI, WebSocket
from sqlalchemy.exc import TimeoutError as DatabasePoolTimeout
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.deps import client_ip
from app.api.restart import RESTART_FRAME, SERVICE_RESTART
from app.core.errors import database_unreachable
from app.core.origins import origin_allowed
from app.tables.live import sockets
from app.tables.live.connection import Connection
from app.tables.live.detach import detach
from app.tables.live.protocol import error_frame, server_busy
from app.users.service import session_from_token
from app.users.tokens import SESSION_COOKIE

log = logging.getLogger("app.ws")
PATH = "/ws"

POLICY_VIOLATION = 1008
TRY_AGAIN_LATER = 1013  # RFC 6455: the client reconnects with its backoff


async def _refuse(
    ws: WebSocket, close: tuple[int, str], frame: dict[str, object] | None = None
) -> None:
    """Accept, then close: a browser shows the page the code and reason only of a socket
    that was accepted (a refused handshake is an anonymous 403). ``frame`` goes first."""
    await ws.accept()
    if frame is not None:
        await ws.send_json(frame)
    await ws.close(code=close[0], reason=close[1])


def _per_ip(ws: WebSocket) -> Counter[str]:
    counts: Counter[str] | None = getattr(ws.app.state, "ws_per_ip", None)
    if counts is None:
        counts = ws.app.state.ws_per_ip = Counter()
    return counts


def endpoint_app(scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
    """``WS /ws`` as a plain ASGI app, for ``BuracoApp``'s own short stack. Like the
    layers above it that need no ``finally`` of their own, a plain function handing back
    an awaitable: a socket keeps no frame of it for its whole life."""
    return websocket_endpoint(WebSocket(scope, receive, send))


class BuracoApp(FastAPI):
    """FastAPI, with ``WS /ws`` served by a stack of its own (``ws_stack``): the
    middlewares that act on a WebSocket (raw send, request log, NUL guard), in the same
    order as in the app's stack, then the endpoint; every other request as usual."""

    ws_stack: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # A coroutine function, unlike the layers of ``ws_stack``: uvicorn tells an ASGI 3
        # app from an ASGI 2 one by that.
        stack = self.ws_stack
        if stack is not None and scope["type"] == "websocket" and scope.get("path") == PATH:
            if self.root_path:
                scope["root_path"] = self.root_path
            scope["app"] = self
            await stack(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


async def _authenticate(ws: WebSocket) -> tuple[int, str, str, float] | None:
    """(user id, display name, session token hash, expiry) of the session cookie, or None.
    Plain values: the ORM objects go with the database session, not with the socket."""
    async with ws.app.state.sessionmaker() as db:
        found = await session_from_token(db, ws.cookies.get(SESSION_COOKIE))
        if found is None:
            return None
        user, session = found
        name = user.nickname or user.username or f"#{user.id}"
        return int(user.id), str(name), str(session.token_hash), session.expires_at.timestamp()


async def websocket_endpoint(ws: WebSocket) -> None:
    app = ws.app
    settings = app.state.settings
    origin, host = ws.headers.get("origin"), ws.headers.get("host")
    if not origin_allowed(origin, host, settings):
        log.warning(
            "WebSocket refused: Origin %r is not this site (Host %r) nor in "
            "BURACO_WS_ALLOWED_ORIGINS",
            origin,
            host,
        )
        await _refuse(ws, sockets.BAD_ORIGIN)
        return
    if getattr(app.state, "draining", False):  # shutting down: go to another process
        await _refuse(ws, (SERVICE_RESTART, "server_restart"), dict(RESTART_FRAME))
        return
    try:
        found = await _authenticate(ws)
    except Exception as exc:
        # An exhausted pool, or a database lost under the handshake (a restart, a
        # failover, an administrator ending the connection): the socket is refused as
        # busy and the client retries later, as an HTTP request is answered 503
        # (app/core/errors.py). Anything else is a fault of ours and stays one.
        if isinstance(exc, DatabasePoolTimeout):
            log.warning("WebSocket refused: no database connection free in time")
        elif database_unreachable(exc):
            log.warning("WebSocket refused: the database is not answering: %s", exc)
        else:
            raise
        busy = server_busy()
        await _refuse(ws, (TRY_AGAIN_LATER, busy.code), error_frame(busy.code, busy.message))
        return
    if found is None:
        await ws.close(code=POLICY_VIOLATION, reason="not authenticated")
        return
    user_id, name, token_hash, expires_at = found
    ip, per_ip = client_ip(ws), _per_ip(ws)
    if per_ip[ip] >= settings.ws_max_sockets_per_ip:
        await _refuse(ws, sockets.TOO_MANY_SOCKETS)
        return
    per_ip[ip] += 1
    detached = False
    try:
        await ws.accept()
        raw_send = ws.scope.get("state", {}).get("raw_send")
        sockets.bound_send_buffer(raw_send)
        sockets.drop_handshake(raw_send)
        sockets.trim_connection(ws)
        link = sockets.SocketSession(
            token_hash=token_hash,
            expires_at=expires_at,
            max_sockets=settings.ws_max_sockets_per_user,
            raw_send=raw_send,
        )
        conn = Connection(ws, user_id, name, app.state.hub, app.state.tables, link)
        # On a server that lets the socket outlive this call (app/tables/live/detach.py),
        # the connection runs as a task of its own and this call returns: the layers
        # above keep no frames for the socket's life.
        task = detach(raw_send, conn.run)
        if task is not None:
            detached = True
            task.add_done_callback(functools.partial(_released, per_ip, ip))
        else:
            await conn.run()
    finally:
        if not detached:
            _release(per_ip, ip)


def _released(per_ip: Counter[str], ip: str, _: object) -> None:
    _release(per_ip, ip)


def _release(per_ip: Counter[str], ip: str) -> None:
    per_ip[ip] -= 1
    if per_ip[ip] <= 0:
        del per_ip[ip]
