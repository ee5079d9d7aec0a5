"""A socket's messages taken in the protocol's own callback (app/tables/live/sockets.py
``take_receives``, app/core/lean.py's queue sink, ``Connection._take``): the common
message goes to the pump with no task reading the socket; anything else is queued for
the pump to read, in order. The last test runs real uvicorn processes."""

from __future__ import annotations

import asyncio
import contextlib
from types import SimpleNamespace
from typing import Any

import orjson
import websockets
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from app.core.lean import ReceiveQueue
from app.tables.live.connection import MAX_QUEUE, Connection
from app.tables.live.protocol import MAX_FRAME_BYTES, RATE_PER_SECOND
from app.tables.live.sockets import PAUSE_READING_AFTER, take_receives
from tests.tables.harness import ORIGIN, Player, Server


def test_the_sink_takes_while_nothing_is_queued_and_order_holds() -> None:
    async def check() -> None:
        queue = ReceiveQueue(asyncio.get_running_loop())
        taken: list[str] = []
        notified: list[int] = []

        def sink(item: str) -> bool:
            if item.startswith("take"):
                taken.append(item)
                return True
            return False

        queue.sink, queue.notify = sink, lambda: notified.append(queue.qsize())
        queue.put_nowait("take-1")  # nothing ahead: the sink's, nobody notified
        assert taken == ["take-1"] and queue.empty() and notified == []
        queue.put_nowait("keep-2")  # declined: queued, and whoever drains is told
        queue.put_nowait("take-3")  # something is queued ahead: not offered
        assert notified == [1, 2] and taken == ["take-1"]
        assert queue.get_nowait() == "keep-2" and await queue.get() == "take-3"
        queue.put_nowait("take-4")  # read empty again: offered again
        assert taken == ["take-1", "take-4"] and queue.empty()

        queue.sink = queue.notify = None  # no sink: a plain queue
        getter = asyncio.ensure_future(queue.get())
        await asyncio.sleep(0)
        queue.put_nowait("take-5")
        assert await getter == "take-5" and taken == ["take-1", "take-4"]

    asyncio.run(check())


class _Transport:
    def __init__(self) -> None:
        self.paused = 0
        self.resumed = 0

    def pause_reading(self) -> None:
        self.paused += 1

    def resume_reading(self) -> None:
        self.resumed += 1


def test_uvicorn_does_not_pause_reading_for_a_message_the_sink_took() -> None:
    """uvicorn's own code (``send_receive_event_to_app``) pauses reading after every
    message it queues; a message the sink took is never read from the queue, so reading
    must go on. Declined ones are queued for the socket's task, which is told of each;
    once a few wait, reading pauses until uvicorn's ``receive`` has read the queue
    empty."""

    async def check() -> None:
        proto: Any = WebSocketsSansIOProtocol.__new__(WebSocketsSansIOProtocol)
        proto.queue = queue = ReceiveQueue(asyncio.get_running_loop())
        proto.transport = transport = _Transport()
        proto.read_paused, proto.close_sent = False, False
        got: list[Any] = []
        told: list[int] = []
        assert take_receives(
            proto.send,
            lambda m: got.append(m) or m["text"] == "take",
            lambda: told.append(queue.qsize()),
        )

        def arrive(text: str) -> None:
            proto.curr_msg_data_type, proto.frames = "text", [text.encode()]
            proto.send_receive_event_to_app()

        arrive("take")
        assert [m["text"] for m in got] == ["take"] and transport.paused == 0
        assert queue.empty() and told == []
        arrive("other")  # declined: queued for the socket's task, which is told
        assert told == [1] and transport.paused == 0
        assert (await proto.receive())["text"] == "other"
        arrive("take")  # reading goes on, as after any message the sink took
        for n in range(PAUSE_READING_AFTER):
            arrive(f"other-{n}")
        assert transport.paused == 1 and queue.qsize() == PAUSE_READING_AFTER
        resumed = transport.resumed
        for n in range(PAUSE_READING_AFTER):
            assert (await proto.receive())["text"] == f"other-{n}"
        assert transport.resumed == resumed + 1 and not proto.read_paused

        # another server's queue: nothing to take
        other = SimpleNamespace(queue=asyncio.Queue(), read_paused=False)
        assert take_receives(getattr(other, "send", None), lambda m: True, lambda: None) is None

    asyncio.run(check())


def test_the_connection_takes_only_the_plain_message_and_changes_nothing_else() -> None:
    """Text within the limit, within the rate, on an open socket with room in its queue:
    queued for the pump as the reader would. Anything else is declined before the rate
    tokens or the queue change, so the reader decides it exactly as before."""
    hub = SimpleNamespace(table_cache=object())
    conn = Connection(None, 7, "x", hub, SimpleNamespace(cache=None))  # type: ignore[arg-type]

    def text(t: str) -> dict[str, Any]:
        return {"type": "websocket.receive", "text": t}

    conn.refused = 3
    assert conn._take(text('{"type":"ping"}'))
    assert conn.queue == [("msg", '{"type":"ping"}')] and conn.refused == 0
    declined = [
        {"type": "websocket.receive", "bytes": b"{}"},
        {"type": "websocket.disconnect", "code": 1000},
        text("x" * (MAX_FRAME_BYTES // 4 + 1)),  # may be too big: the reader counts
        "not a message",
    ]
    for message in declined:
        tokens = conn.tokens
        assert not conn._take(message), message
        assert len(conn.queue) == 1 and conn.tokens == tokens
    conn.tokens = 0.5  # out of rate: the reader refuses it, with its own count
    conn.stamp += 10**6  # (no refill)
    assert not conn._take(text("{}")) and len(conn.queue) == 1
    conn.tokens, conn.stamp = float(RATE_PER_SECOND), conn.stamp - 10**6
    conn.closing = True
    assert not conn._take(text("{}"))
    conn.closing = False
    conn.queue.extend([("frame", {})] * (MAX_QUEUE - 1))  # full: the reader drops it
    assert not conn._take(text("{}")) and len(conn.queue) == MAX_QUEUE
    conn.queue.clear()
    assert conn._take(text("{}")) and conn.queue == [("msg", "{}")]


async def test_taken_and_declined_messages_are_answered_in_the_order_sent(
    servers: list[Server],
) -> None:
    """On a real server: pings (taken in the callback), a binary frame and a frame past
    the size the callback takes (both left to the reader) are answered in order."""
    p = await Player.guest(servers[0].base)
    ws = await websockets.connect(
        servers[0].ws_url,
        additional_headers={"Cookie": f"buraco_session={p.cookie}", "Origin": ORIGIN},
        ping_interval=None,
    )
    try:
        assert orjson.loads(await ws.recv())["type"] == "hello"
        padded = '{"type":"ping","pad":"' + "a" * (MAX_FRAME_BYTES // 4 + 10) + '"}'
        plan: list[str | bytes] = ['{"type":"ping"}', b"{}", padded, '{"type":"ping"}', b"x"]
        plan += ['{"type":"ping"}'] * 3
        for _ in range(3):  # every interleaving of arrival and reading gets a chance
            for message in plan:
                await ws.send(message)
            replies = []
            while len(replies) < len(plan):
                reply = orjson.loads(await asyncio.wait_for(ws.recv(), 10))
                replies.append(reply.get("code", reply["type"]))
            # (the padded ping is refused by the schema: no field "pad")
            expected = ["pong", "bad_message", "bad_message", "pong", "bad_message"]
            expected += ["pong"] * 3
            assert replies == expected, replies
            await asyncio.sleep(1.0)  # the rate limit's tokens come back
    finally:
        with contextlib.suppress(Exception):
            await ws.close()
        await p.aclose()
