"""``WS /ws``: thin. Check the Origin, authenticate by the session cookie, admit under
the per-address cap, then hand the socket to a ``Connection`` (app/tables/connection.py)
until it closes."""

from __future__ import annotations

import logging
from collections import Counter

from fastapi import APIRouter, WebSocket
from sqlalchemy.exc import TimeoutError as DatabasePoolTimeout

from app.api.deps import client_ip
from app.api.restart import RESTART_FRAME, SERVICE_RESTART
from app.core.origins import origin_allowed
from app.tables import sockets
from app.tables.connection import Connection
from app.tables.protocol import error_frame, server_busy
from app.users.service import session_from_token
from app.users.tokens import SESSION_COOKIE

router = APIRouter()
log = logging.getLogger("app.ws")

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


@router.websocket("/ws")
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
        async with app.state.sessionmaker() as db:
            found = await session_from_token(db, ws.cookies.get(SESSION_COOKIE))
    except DatabasePoolTimeout:  # the pool is exhausted: say so, the client retries later
        log.warning("WebSocket refused: no database connection free in time")
        busy = server_busy()
        await _refuse(ws, (TRY_AGAIN_LATER, busy.code), error_frame(busy.code, busy.message))
        return
    if found is None:
        await ws.close(code=POLICY_VIOLATION, reason="not authenticated")
        return
    user, session = found
    ip, per_ip = client_ip(ws), _per_ip(ws)
    if per_ip[ip] >= settings.ws_max_sockets_per_ip:
        await _refuse(ws, sockets.TOO_MANY_SOCKETS)
        return
    per_ip[ip] += 1
    try:
        await ws.accept()
        name = user.nickname or user.username or f"#{user.id}"
        raw_send = ws.scope.get("state", {}).get("raw_send")
        sockets.bound_send_buffer(raw_send)
        link = sockets.SocketSession(
            token_hash=session.token_hash,
            expires_at=session.expires_at.timestamp(),
            max_sockets=settings.ws_max_sockets_per_user,
            raw_send=raw_send,
        )
        await Connection(ws, user.id, name, app.state.hub, app.state.tables, link).run()
    finally:
        per_ip[ip] -= 1
        if per_ip[ip] <= 0:
            del per_ip[ip]
