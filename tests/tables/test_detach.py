"""app/tables/live/detach.py on a real uvicorn server in this process: a detached socket
outlives the app's call and is served by its task; a socket not detached closes when
the call returns, as under plain uvicorn; a shutdown ends the detached task."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
import websockets
from starlette.websockets import WebSocket

from app.tables.live.detach import DetachableProtocol, detach
from tests.support import free_port


class App:
    """Accepts, then (when ``detaching``) hands the socket to an echoing task."""

    def __init__(self) -> None:
        self.detaching = True
        self.calls_returned = 0
        self.served: list[str] = []
        self.task_ended = asyncio.Event()
        self.detached_task: asyncio.Task[None] | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        ws = WebSocket(scope, receive, send)
        await ws.accept()

        async def serve() -> None:
            try:
                while True:
                    message = await ws.receive()
                    if message["type"] == "websocket.disconnect":
                        return
                    self.served.append(message["text"])
                    await ws.send_text(f"echo {message['text']} ({self.calls_returned})")
            finally:
                self.task_ended.set()

        if self.detaching:
            self.detached_task = detach(send, serve)
            assert self.detached_task is not None
            assert detach(send, serve) is None  # only once
        self.calls_returned += 1


@pytest.fixture
async def server() -> AsyncIterator[tuple[App, uvicorn.Server, str]]:
    app = App()
    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        ws=DetachableProtocol,
        ws_per_message_deflate=False,
        log_level="warning",
        lifespan="on",
    )
    srv = uvicorn.Server(config)
    running = asyncio.create_task(srv.serve())
    while not srv.started:
        await asyncio.sleep(0.01)
    try:
        yield app, srv, f"ws://127.0.0.1:{port}/ws"
    finally:
        srv.should_exit = True
        await asyncio.wait_for(running, 10)


async def test_a_detached_socket_outlives_the_call_and_is_served_by_its_task(
    server: tuple[App, uvicorn.Server, str],
) -> None:
    app, _, url = server
    async with websockets.connect(url) as ws:
        for word in ("a", "b"):
            await ws.send(word)
            # the app's call returned before the first message was served
            assert await asyncio.wait_for(ws.recv(), 5) == f"echo {word} (1)"
        assert app.calls_returned == 1 and not app.task_ended.is_set()
    await asyncio.wait_for(app.task_ended.wait(), 5)  # the client left: its task ends
    assert app.served == ["a", "b"]


async def test_a_socket_not_detached_closes_when_the_call_returns(
    server: tuple[App, uvicorn.Server, str],
) -> None:
    app, _, url = server
    app.detaching = False
    async with websockets.connect(url) as ws:
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 5)
    assert app.calls_returned == 1 and app.served == []


async def test_a_shutdown_closes_a_detached_socket_and_waits_for_its_task(
    server: tuple[App, uvicorn.Server, str],
) -> None:
    app, srv, url = server
    async with websockets.connect(url) as ws:
        await ws.send("x")
        assert await asyncio.wait_for(ws.recv(), 5) == "echo x (1)"
        srv.should_exit = True  # the server's own shutdown: every socket is told 1012
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
    await asyncio.wait_for(app.task_ended.wait(), 5)
    assert app.detached_task is not None and app.detached_task.done()
    with contextlib.suppress(Exception):
        await app.detached_task
