"""How a socket's pump ends. ``Connection.end`` wakes the pump from outside and stops a
reading task of its own (a server without the lean receive queue), but never cancels that
task when the task itself ends the socket (its queue full): the cancel would fall on
whatever it awaits next. What the protocol's callback declines is read by the pump, in
order, and a client's close ends it."""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.websockets import WebSocketState

from app.core.lean import ReceiveQueue
from app.tables.live import connection as connection_module
from app.tables.live.connection import MAX_QUEUE, Connection


class FakeWs:
    """Starlette's WebSocket as the pump sees it, reading from a ReceiveQueue."""

    def __init__(self, queue: ReceiveQueue | None = None) -> None:
        self.closed: list[int] = []
        self.sent: list[str] = []
        self.queue = queue
        self.application_state = WebSocketState.CONNECTED
        self.client_state = WebSocketState.CONNECTED

    async def receive(self) -> dict[str, Any]:
        if self.queue is None:
            await asyncio.sleep(3600)  # a client that never sends
            return {}
        message: dict[str, Any] = await self.queue.get()
        if message["type"] == "websocket.disconnect":
            self.client_state = WebSocketState.DISCONNECTED
        return message

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed.append(code)
        self.application_state = WebSocketState.DISCONNECTED


def connection(ws: FakeWs) -> Connection:
    hub = SimpleNamespace(table_cache=object())
    svc = SimpleNamespace(cache=object())
    return Connection(ws, 1, "a", hub, svc)  # type: ignore[arg-type]


def lean_connection() -> tuple[Connection, FakeWs, ReceiveQueue]:
    """A connection whose messages come through a lean receive queue, as
    ``sockets.take_receives`` sets it up on uvicorn's sans-I/O protocol."""
    queue = ReceiveQueue(asyncio.get_running_loop())
    ws = FakeWs(queue)
    conn = connection(ws)
    conn._declined = queue
    queue.sink, queue.notify = conn._take, conn._wake_pump
    return conn, ws, queue


async def test_a_reading_task_that_ends_the_socket_itself_goes_on_uncancelled() -> None:
    ws = FakeWs()
    conn = connection(ws)
    conn.queue.extend([("frame", {})] * MAX_QUEUE)  # full: the next item ends the socket

    async def read() -> None:
        conn._on_message({"type": "websocket.receive", "text": "{}"})
        await asyncio.sleep(0.01)  # the reader's next await: no cancellation lands here

    reader = asyncio.ensure_future(read())
    conn._reader = reader
    await asyncio.wait_for(reader, 1)
    assert not reader.cancelled() and conn.closed
    await asyncio.sleep(0.01)
    assert ws.closed == [4009]


async def test_ended_from_outside_the_reading_task_stops_and_the_pump_ends() -> None:
    ws = FakeWs()
    conn = connection(ws)
    conn._reader = reader = asyncio.ensure_future(conn._read())
    pump = asyncio.ensure_future(conn._pump())
    await asyncio.sleep(0.01)
    assert conn._wake is not None and conn._wake.waiting  # the pump waits for work
    conn.end(4001, "session_ended")
    await asyncio.wait_for(pump, 1)
    await asyncio.sleep(0.01)
    assert reader.cancelled() and conn.closed and ws.closed == [4001]


async def test_the_pump_reads_what_the_callback_declined_in_order_then_the_close() -> None:
    conn, ws, queue = lean_connection()
    handled: list[str] = []

    async def handle(text: str) -> None:
        handled.append(text)

    conn._handle_text = handle  # type: ignore[method-assign]
    pump = asyncio.ensure_future(conn._pump())
    await asyncio.sleep(0)

    def arrive(message: dict[str, Any]) -> None:
        queue.put_nowait(message)

    arrive({"type": "websocket.receive", "text": '"a"'})  # taken in the callback
    assert queue.empty() and conn.queue == [("msg", '"a"')]
    arrive({"type": "websocket.receive", "bytes": b"{}"})  # declined: queued for the pump
    arrive({"type": "websocket.receive", "text": '"b"'})  # behind it: queued too
    assert queue.qsize() == 2
    await asyncio.sleep(0.01)
    assert handled == ['"a"', '"b"'] and queue.empty()
    assert [orjson_code(t) for t in ws.sent] == ["bad_message"]
    arrive({"type": "websocket.receive", "text": '"c"'})  # the queue was read empty: taken
    await asyncio.sleep(0.01)
    assert handled == ['"a"', '"b"', '"c"']
    arrive({"type": "websocket.disconnect", "code": 1001})
    await asyncio.wait_for(pump, 1)
    assert conn.closed and conn.ws_log.close_code == 1001
    assert ws.closed == []  # the client left: nothing to close


async def test_a_flood_is_refused_then_closed_after_the_refusals_are_written() -> None:
    conn, ws, queue = lean_connection()
    conn.tokens = 0
    conn.stamp += 3600  # no refill while the test runs
    pump = asyncio.ensure_future(conn._pump())
    for _ in range(200):
        queue.put_nowait({"type": "websocket.receive", "text": "{}"})
    await asyncio.wait_for(pump, 1)
    codes = [orjson_code(t) for t in ws.sent]
    assert codes == ["rate_limited"] * 99 and ws.closed == [1008]


def orjson_code(text: str) -> str:
    import orjson

    frame = orjson.loads(text)
    return str(frame.get("code", frame["type"]))


async def test_one_sweep_ends_every_open_socket_whose_session_expired() -> None:
    from app.tables.live.sockets import SESSION_ENDED, ExpirySweep, SocketSession

    ended: list[tuple[str, tuple[int, str]]] = []

    class Conn:
        def __init__(self, name: str, expires_at: float | None, closed: bool = False) -> None:
            self.name, self.closed = name, closed
            self.session = SocketSession(expires_at=expires_at)

        def end(self, code: int, reason: str) -> None:
            ended.append((self.name, (code, reason)))
            self.closed = True

    conns = {
        Conn("past", 100.0),
        Conn("now", 200.0),
        Conn("later", 201.0),
        Conn("forever", None),
        Conn("gone", 50.0, closed=True),
    }
    sweep = ExpirySweep(conns, every=0.01)
    assert sweep.sweep(200.0) == 2
    assert sorted(ended) == [("now", SESSION_ENDED), ("past", SESSION_ENDED)]
    assert sweep.sweep(200.5) == 0  # ended ones are closed now: not ended twice
    assert sweep.earliest == 201.0  # the next deadline among the open sockets
    late = Conn("late", 0.0)
    conns.add(late)
    next(c for c in conns if c.name == "later").session.expires_at = time.time() + 3600
    sweep.earliest = math.inf  # nothing due: the timer looks over no socket...
    sweep.start()
    await asyncio.sleep(0.05)
    assert not late.closed
    sweep.stop()
    sweep.note(late.session.expires_at)  # ...until a socket tells its deadline
    sweep.start()  # on its timer, by the clock
    for _ in range(100):
        await asyncio.sleep(0.01)
        if late.closed:
            break
    sweep.stop()
    assert ("late", SESSION_ENDED) in ended and not any(n == "later" for n, _ in ended)


async def test_a_flood_from_a_client_that_does_not_read_is_closed_within_the_drain(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pump is stuck writing to a client that stopped reading, so the close it owes
    after the refusals never gets its turn: the socket is closed from outside."""
    monkeypatch.setattr(connection_module, "DRAIN_SECONDS", 0.1)
    conn, ws, queue = lean_connection()
    stuck = asyncio.Event()

    async def never_written(text: str) -> None:
        stuck.set()
        await asyncio.sleep(3600)  # the transport's buffer is full

    ws.send_text = never_written  # type: ignore[method-assign]
    conn.tokens = 0
    conn.stamp += 3600
    pump = asyncio.ensure_future(conn._pump())
    for _ in range(200):
        queue.put_nowait({"type": "websocket.receive", "text": "{}"})
    await asyncio.wait_for(stuck.wait(), 1)
    for _ in range(100):
        await asyncio.sleep(0.01)
        if ws.closed:
            break
    assert conn.closed and ws.closed == [1008]
    pump.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await pump


async def test_a_reading_task_hands_each_message_to_the_pump_until_the_client_leaves() -> None:
    """Another server than uvicorn's sans-I/O one: no lean queue, a task of its own
    reads, and the pump ends when the client has left."""
    queue = ReceiveQueue(asyncio.get_running_loop())  # no sink: a plain queue
    ws = FakeWs(queue)
    conn = connection(ws)
    handled: list[str] = []

    async def handle(text: str) -> None:
        handled.append(text)

    conn._handle_text = handle  # type: ignore[method-assign]
    conn._reader = reader = asyncio.ensure_future(conn._read())
    pump = asyncio.ensure_future(conn._pump())
    for text in ('"a"', '"b"'):
        queue.put_nowait({"type": "websocket.receive", "text": text})
    queue.put_nowait({"type": "websocket.receive", "bytes": b"{}"})
    for _ in range(100):
        await asyncio.sleep(0.01)
        if len(handled) == 2 and ws.sent:
            break
    assert handled == ['"a"', '"b"'] and [orjson_code(t) for t in ws.sent] == ["bad_message"]
    assert not conn.closed
    queue.put_nowait({"type": "websocket.disconnect", "code": 1000})
    await asyncio.wait_for(pump, 1)
    await asyncio.wait_for(reader, 1)
    assert conn.closed and conn.ws_log.close_code == 1000 and ws.closed == []
