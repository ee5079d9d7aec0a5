"""``WS /ws``: thin. Check the Origin, authenticate by the session cookie, then hand the
socket to a ``Connection`` (app/tables/connection.py) until it closes."""

from __future__ import annotations

from fastapi import APIRouter, WebSocket

from app.tables.connection import Connection
from app.users.service import user_from_token
from app.users.tokens import SESSION_COOKIE

router = APIRouter()

POLICY_VIOLATION = 1008


@router.websocket("/ws")
async def websocket_endpoint(ws: WebSocket) -> None:
    app = ws.app
    origin = ws.headers.get("origin")
    if origin is not None and origin not in app.state.settings.ws_allowed_origins:
        await ws.close(code=POLICY_VIOLATION, reason="origin not allowed")
        return
    async with app.state.sessionmaker() as db:
        user = await user_from_token(db, ws.cookies.get(SESSION_COOKIE))
    if user is None:
        await ws.close(code=POLICY_VIOLATION, reason="not authenticated")
        return
    await ws.accept()
    name = user.nickname or user.username or f"#{user.id}"
    await Connection(ws, user.id, name, app.state.hub, app.state.tables).run()
