"""``Connection.end`` cuts the read short from outside, and never cancels the reader
when the reader itself ends the socket (its queue full): that cancel would fall on the
clean-up that follows and leave the connection among the hub's listeners."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from app.tables.live.connection import Connection


class FakeWs:
    def __init__(self) -> None:
        self.closed: list[int] = []

    async def receive(self) -> dict[str, Any]:
        await asyncio.sleep(3600)  # a client that never sends
        return {}

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed.append(code)


def connection() -> tuple[Connection, FakeWs]:
    ws = FakeWs()
    hub = SimpleNamespace(table_cache=object())
    svc = SimpleNamespace(cache=object())
    return Connection(ws, 1, "a", hub, svc), ws  # type: ignore[arg-type]


async def test_ended_by_its_own_reader_the_task_goes_on_uncancelled() -> None:
    conn, ws = connection()

    async def read() -> None:
        conn.end(4009, "too_slow")  # as _enqueue does when the queue is full

    conn._read = read  # type: ignore[method-assign]
    await conn._read_until_ended()
    await asyncio.sleep(0.01)  # the clean-up's awaits: no cancellation lands here
    assert conn.closed and ws.closed == [4009]


async def test_ended_from_outside_the_waiting_read_stops() -> None:
    conn, ws = connection()
    reading = asyncio.ensure_future(conn._read_until_ended())
    await asyncio.sleep(0.01)
    conn.end(4001, "session_ended")
    await asyncio.wait_for(reading, 1)  # returned, not cancelled
    assert not reading.cancelled() and conn.closed
    await asyncio.sleep(0.01)
    assert ws.closed == [4001]
