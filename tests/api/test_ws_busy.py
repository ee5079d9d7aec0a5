"""The WebSocket handshake when the server cannot serve it: an exhausted database pool
answers a ``server_busy`` frame and closes 1013 (try again later), a draining process a
``server_restart`` frame and 1012; never an unhandled error.

The app is driven through the ASGI interface itself (as uvicorn drives it), so the pool
can be exhausted from the test's side of the same process."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import orjson
import pytest
from fastapi import FastAPI

from app.users.tokens import SESSION_COOKIE
from tests.economy.helpers import client_for, new_users


def ws_scope(cookie: str) -> dict[str, Any]:
    return {
        "type": "websocket",
        "asgi": {"version": "3.0"},
        "scheme": "ws",
        "path": "/ws",
        "raw_path": b"/ws",
        "query_string": b"",
        "root_path": "",
        "subprotocols": [],
        "server": ("testserver", 80),
        "client": ("127.0.0.1", 5000),
        "state": {},
        "headers": [
            (b"host", b"testserver"),
            (b"origin", b"http://testserver"),
            (b"cookie", f"{SESSION_COOKIE}={cookie}".encode()),
        ],
    }


async def handshake(app: FastAPI, cookie: str) -> list[dict[str, Any]]:
    """Open /ws on ``app`` with the session ``cookie``; what the app sent until it closed."""
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    await inbox.put({"type": "websocket.connect"})
    sent: list[dict[str, Any]] = []
    scope = ws_scope(cookie)

    async def receive() -> dict[str, Any]:
        return await inbox.get()

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "websocket.close":
            await inbox.put({"type": "websocket.disconnect", "code": message.get("code")})

    await asyncio.wait_for(app(scope, receive, send), 10)
    return sent


def frames(sent: list[dict[str, Any]]) -> list[Any]:
    return [
        orjson.loads(m.get("text") or m["bytes"]) for m in sent if m["type"] == "websocket.send"
    ]


def assert_refused_busy(sent: list[dict[str, Any]]) -> None:
    """Accepted, told ``server_busy``, closed 1013 (try again later)."""
    assert sent[0]["type"] == "websocket.accept"
    assert [f["code"] for f in frames(sent)] == ["server_busy"]
    assert (sent[-1]["type"], sent[-1]["code"], sent[-1]["reason"]) == (
        "websocket.close",
        1013,
        "server_busy",
    )


@pytest.mark.parametrize(
    "settings_overrides", [{"db_pool_size": 1, "db_pool_timeout_seconds": 0.5}]
)
async def test_an_exhausted_pool_refuses_the_socket_as_busy(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    (me,) = await new_users(app.state.sessionmaker, 1)
    cookie = (await client_for(app, make_client, me)).cookies[SESSION_COOKIE]
    taken = [await app.state.engine.connect() for _ in range(2)]  # the pool and overflow
    try:
        sent = await handshake(app, cookie)
    finally:
        for conn in taken:
            await conn.close()
    assert_refused_busy(sent)
    # A connection free again: the same cookie is served (hello), then we hang up.
    sent = await handshake_until_hello(app, cookie)
    assert frames(sent)[0]["type"] == "hello"


async def test_a_draining_process_sends_new_sockets_elsewhere(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    (me,) = await new_users(app.state.sessionmaker, 1)
    cookie = (await client_for(app, make_client, me)).cookies[SESSION_COOKIE]
    app.state.draining = True
    try:
        sent = await handshake(app, cookie)
    finally:
        app.state.draining = False
    assert frames(sent) == [{"type": "server_restart"}]
    assert (sent[-1]["type"], sent[-1]["code"]) == ("websocket.close", 1012)


async def handshake_until_hello(app: FastAPI, cookie: str) -> list[dict[str, Any]]:
    """Open /ws, wait for the first frame, then disconnect as a client would."""
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    await inbox.put({"type": "websocket.connect"})
    sent: list[dict[str, Any]] = []
    first = asyncio.Event()
    scope = ws_scope(cookie)

    async def receive() -> dict[str, Any]:
        return await inbox.get()

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "websocket.send":
            first.set()

    task = asyncio.create_task(app(scope, receive, send))
    await asyncio.wait_for(first.wait(), 10)
    await inbox.put({"type": "websocket.disconnect", "code": 1000})
    await asyncio.wait_for(task, 10)
    return sent
