"""Redis unreachable or its pool exhausted: a clear ``server_busy`` (error frame on the
WebSocket, 503 over REST), never ``internal_error`` or a 500."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import orjson
from fastapi import FastAPI
from fastapi.testclient import TestClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from starlette.websockets import WebSocketState

from app.core.errors import install_error_handlers
from app.tables.live.connection import Connection
from app.tables.lobby.routes import TablesRoute


class FakeWs:
    application_state = WebSocketState.CONNECTED

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(orjson.loads(text))


class PoolExhausted:
    async def command(self, *args: Any) -> int:
        raise RedisConnectionError("No connection available.")


async def test_a_command_without_redis_gets_server_busy() -> None:
    ws = FakeWs()
    hub = SimpleNamespace(table_cache=object())
    conn = Connection(ws, 7, "seven", hub=hub, svc=PoolExhausted())  # type: ignore[arg-type]
    await conn._handle_text(
        orjson.dumps(
            {
                "type": "command",
                "table": "abc",
                "cid": "c1",
                "command": {"type": "draw"},
            }
        ).decode()
    )
    assert ws.sent == [
        {"type": "error", "code": "server_busy", "cid": "c1", "message": ws.sent[0]["message"]}
    ]
    assert "try again" in ws.sent[0]["message"]


def test_rest_answers_503_server_busy() -> None:
    app = FastAPI()
    install_error_handlers(app)

    async def slow() -> None:
        raise RedisTimeoutError("Timeout reading from socket")

    app.router.routes.append(TablesRoute("/busy", slow))
    r = TestClient(app).get("/busy")
    assert r.status_code == 503
    assert r.json()["error"]["code"] == "server_busy"
    assert r.headers["retry-after"] == "1"
