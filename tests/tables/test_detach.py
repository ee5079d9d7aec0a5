"""app/tables/live/detach.py on a real uvicorn server in this process: a detached socket
outlives the app's call and is served by its task; a socket not detached closes when
the call returns, as under plain uvicorn; a shutdown ends the detached task; keep-alive
pings come from one sweep per loop, go only to a client silent for the interval, and a
client that stops answering them is closed;
the protocol's attributes all live in slots; a detached socket's whole text frames are
read without the library's parser, and everything else still by the library, in order."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
import websockets
from starlette.websockets import WebSocket
from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from app.tables.live.detach import (
    DetachableProtocol,
    KeepaliveSweep,
    detach,
    keepalive_sweep,
    read_frames,
)
from tests.support import free_port


class App:
    """Accepts, then (when ``detaching``) hands the socket to an echoing task."""

    def __init__(self) -> None:
        self.detaching = True
        self.calls_returned = 0
        self.served: list[str] = []
        self.task_ended = asyncio.Event()
        self.detached_task: asyncio.Task[None] | None = None
        self.protocols: list[Any] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        ws = WebSocket(scope, receive, send)
        self.protocols.append(send.__self__)
        await ws.accept()

        async def serve() -> None:
            try:
                while True:
                    message = await ws.receive()
                    if message["type"] == "websocket.disconnect":
                        return
                    self.served.append(message["text"])
                    with contextlib.suppress(RuntimeError):  # closed by the protocol
                        await ws.send_text(f"echo {message['text']} ({self.calls_returned})")
            finally:
                self.task_ended.set()

        if self.detaching:
            self.detached_task = detach(send, serve)
            assert self.detached_task is not None
            assert detach(send, serve) is None  # only once
        self.calls_returned += 1


@contextlib.asynccontextmanager
async def serving(**options: Any) -> AsyncIterator[tuple[App, uvicorn.Server, str]]:
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
        **options,
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


@pytest.fixture
async def server() -> AsyncIterator[tuple[App, uvicorn.Server, str]]:
    async with serving() as running:
        yield running


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


async def test_keepalive_pings_come_from_the_sweep_and_are_answered() -> None:
    async with serving(ws_ping_interval=0.2, ws_ping_timeout=5.0) as (app, _, url):
        async with websockets.connect(url) as ws:  # a client that answers pings
            await ws.send("x")
            assert await asyncio.wait_for(ws.recv(), 5) == "echo x (1)"
            proto = app.protocols[0]
            conn, given = proto.conn, []
            parse = conn.receive_data

            def spy(data: bytes) -> None:
                given.append(bytes(data))
                parse(data)

            conn.receive_data = spy
            sweep = keepalive_sweep(asyncio.get_running_loop())
            for _ in range(50):  # the first ping goes out within the sweep's tick
                await asyncio.sleep(0.1)
                if proto.last_ping_rtt > 0:
                    break
            assert proto.last_ping_rtt > 0  # a ping went out and its pong came back
            assert given == []  # the pong was read without the library's parser
            assert proto.ping_timer is None  # no timer of its own between pings
            assert proto in sweep  # the next one is due in the sweep
            await ws.send("y")
            assert await asyncio.wait_for(ws.recv(), 5) == "echo y (1)"
        await asyncio.wait_for(app.task_ended.wait(), 5)
        assert proto not in sweep  # gone with its socket
    # Through the handshake, messages, a ping's round trip and the close, uvicorn set
    # every attribute in a slot: the protocol never needed a dict of its own.
    assert vars(proto) == {}


async def test_a_client_that_stops_answering_pings_is_closed_1011() -> None:
    async with serving(ws_ping_interval=0.2, ws_ping_timeout=0.5) as (app, _, url):
        host, port = url.removeprefix("ws://").split("/")[0].split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        client = ClientProtocol(parse_uri(url))
        client.send_request(client.connect())
        writer.write(b"".join(client.data_to_send()))
        closed: Close | None = None
        pinged = False
        try:
            async with asyncio.timeout(10):
                while closed is None:  # read, and never write again: no pong goes back
                    data = await reader.read(4096)
                    if not data:
                        break
                    client.receive_data(data)
                    for event in client.events_received():
                        if isinstance(event, Frame) and event.opcode is Opcode.PING:
                            pinged = True
                        if isinstance(event, Frame) and event.opcode is Opcode.CLOSE:
                            closed = Close.parse(event.data)
        finally:
            writer.close()
        assert pinged and closed is not None and closed.code == 1011
        await asyncio.wait_for(app.task_ended.wait(), 5)
        assert app.protocols[0] not in keepalive_sweep(asyncio.get_running_loop())


async def test_a_client_heard_from_within_the_interval_is_not_pinged() -> None:
    """While the client sends something more often than the ping interval, no ping goes
    out; once it falls silent, the ping follows an interval after its last message."""
    interval = 0.3
    async with serving(ws_ping_interval=interval, ws_ping_timeout=5.0) as (app, _, url):
        host, port = url.removeprefix("ws://").split("/")[0].split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        client = ClientProtocol(parse_uri(url))
        client.send_request(client.connect())
        writer.write(b"".join(client.data_to_send()))
        loop = asyncio.get_running_loop()
        pings: list[float] = []
        echoes: list[float] = []

        async def read() -> None:
            while data := await reader.read(4096):
                client.receive_data(data)
                for event in client.events_received():
                    if isinstance(event, Frame) and event.opcode is Opcode.PING:
                        pings.append(loop.time())
                    elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                        echoes.append(loop.time())
                writer.write(b"".join(client.data_to_send()))  # pongs go back

        reading = asyncio.create_task(read())
        try:
            async with asyncio.timeout(5):
                while client.state is not State.OPEN:  # the handshake's answer
                    await asyncio.sleep(0.01)
            for i in range(12):  # 1.2 s: four intervals, a message every third of one
                client.send_text(f"m{i}".encode())
                writer.write(b"".join(client.data_to_send()))
                await asyncio.sleep(interval / 3)
            last = loop.time()
            assert pings == [] and len(echoes) == 12
            for _ in range(40):  # then silence: a ping an interval (and a tick) later
                await asyncio.sleep(0.05)
                if pings:
                    break
            assert len(pings) == 1
            assert interval - 0.05 <= pings[0] - last <= interval + 0.35
            proto = app.protocols[0]
            for _ in range(40):
                await asyncio.sleep(0.05)
                if proto.last_ping_rtt > 0:
                    break
            assert proto.last_ping_rtt > 0  # its pong came back and was taken
        finally:
            reading.cancel()
            writer.close()
        await asyncio.wait_for(app.task_ended.wait(), 5)


async def test_the_sweep_sends_each_tick_only_the_pings_due_by_then() -> None:
    loop = asyncio.get_running_loop()
    sweep = KeepaliveSweep(loop, every=0.05)
    sent: list[str] = []

    class Proto:
        def __init__(self, name: str) -> None:
            self.name = name

        def send_keepalive_ping(self) -> None:
            sent.append(self.name)

    now = loop.time()
    soon, later, dropped, moved = Proto("soon"), Proto("later"), Proto("dropped"), Proto("moved")
    for proto, at in ((soon, now), (later, now + 0.3), (dropped, now), (moved, now)):
        sweep.add(proto, at)  # type: ignore[arg-type]
    sweep.discard(dropped)  # type: ignore[arg-type]
    sweep.add(moved, now + 0.3)  # type: ignore[arg-type]  # rescheduled: one slot only
    assert dropped not in sweep and len(sweep.slot) == 3
    await asyncio.sleep(0.12)
    assert sent == ["soon"] and soon not in sweep and later in sweep
    await asyncio.sleep(0.4)
    assert sorted(sent) == ["later", "moved", "soon"]
    assert not sweep.buckets and not sweep.slot and sweep._timer is None  # idle: no timer


MASK = b"\x1f\x8b\x3c\x77"


def masked(payload: bytes, first: int = 0x81, mask_bit: int = 0x80) -> bytes:
    """A client frame: ``first`` (FIN, reserved bits, opcode), the length, the mask."""
    n = len(payload)
    if n < 126:
        head = bytes([first, mask_bit | n])
    elif n < 65536:
        head = bytes([first, mask_bit | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([first, mask_bit | 127]) + n.to_bytes(8, "big")
    body = bytes(b ^ MASK[i % 4] for i, b in enumerate(payload))
    return head + (MASK + body if mask_bit else payload)


def test_read_text_frames_takes_whole_final_masked_text_frames_and_stops_at_anything_else() -> None:
    long = "ñ" * 200  # 400 bytes: the 16-bit length
    a, b, c = masked(b"a"), masked(long.encode()), masked(b"c")
    assert read_frames(a + b + c, None) == (["a", long, "c"], len(a + b + c))
    assert read_frames(a + c[:-1], None) == (["a"], len(a))  # a partial frame waits
    assert read_frames(a + b[:5], None) == (["a"], len(a))  # so does a partial head
    for other in (
        masked(b"ping", first=0x89),  # a ping
        masked(b"x", first=0x82),  # binary
        masked(b"x", first=0x01),  # the first fragment of a message
        masked(b"x", first=0xC1),  # a reserved bit (a compressed frame)
        masked(b"x", mask_bit=0),  # not masked: a protocol error, the library's
        masked(b"\xff\xfe"),  # not UTF-8
        masked(b"x" * 70_000),  # a 64-bit length
    ):
        assert read_frames(a + other + c, None) == (["a"], len(a))
    assert read_frames(a + b, 399) == (["a"], len(a))  # past the size limit
    assert read_frames(a + b, 400) == (["a", long], len(a + b))
    assert read_frames(b"", None) == ([], 0)
    pong = masked(b"\x01\x02\x03\x04", first=0x8A)
    assert read_frames(a + pong + c, None) == (["a", b"\x01\x02\x03\x04", "c"], len(a + pong + c))
    long_pong = masked(b"p" * 126, first=0x8A)  # past a control frame's 125 bytes
    assert read_frames(a + long_pong, None) == (["a"], len(a))


@contextlib.asynccontextmanager
async def raw_client(url: str) -> AsyncIterator[tuple[asyncio.StreamReader, Any, ClientProtocol]]:
    """An opened socket whose frames the test writes byte by byte."""
    host, port = url.removeprefix("ws://").split("/")[0].split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    client = ClientProtocol(parse_uri(url))
    client.send_request(client.connect())
    writer.write(b"".join(client.data_to_send()))
    try:
        while client.handshake_exc is None and not any(
            getattr(e, "status_code", None) == 101 for e in client.events_received()
        ):
            client.receive_data(await asyncio.wait_for(reader.read(4096), 5))
        yield reader, writer, client
    finally:
        writer.close()


async def frames_until(
    reader: asyncio.StreamReader, client: ClientProtocol, count: int
) -> list[Frame]:
    frames: list[Frame] = []
    async with asyncio.timeout(5):
        while len(frames) < count:
            data = await reader.read(65536)
            if not data:
                break
            client.receive_data(data)
            frames += [e for e in client.events_received() if isinstance(e, Frame)]
    return frames


async def test_whole_text_frames_skip_the_library_and_the_rest_keeps_its_order(
    server: tuple[App, uvicorn.Server, str],
) -> None:
    app, _, url = server
    async with raw_client(url) as (reader, writer, client):
        writer.write(masked(b"hello"))
        [first] = await frames_until(reader, client, 1)
        assert first.data == b"echo hello (1)"
        # Now detached: watch what reaches the library's parser.
        conn = app.protocols[0].conn
        given: list[bytes] = []
        parse = conn.receive_data

        def spy(data: bytes) -> None:
            given.append(bytes(data))
            parse(data)

        conn.receive_data = spy
        long = "ñ" * 200
        writer.write(masked(b"a") + masked(long.encode()) + masked(b"c"))
        frames = await frames_until(reader, client, 3)
        assert [f.data.decode() for f in frames] == [
            "echo a (1)",
            f"echo {long} (1)",
            "echo c (1)",
        ]
        assert given == []  # none of it went through the library
        # A ping between two messages, a message in two fragments, and a frame cut in
        # two writes: the library takes over at the ping, in order, and answers it.
        ping = masked(b"p1", first=0x89)
        tail = masked(b"f")
        writer.write(
            masked(b"b")
            + ping
            + masked(b"d")
            + masked(b"d", first=0x01)
            + masked(b"e", first=0x80)
            + tail[:4]
        )
        await asyncio.sleep(0.05)
        writer.write(tail[4:])
        frames = await frames_until(reader, client, 5)
        # The pong is written at once, the echoes by the app's task: as the library does.
        assert [bytes(f.data) for f in frames if f.opcode is Opcode.PONG] == [b"p1"]
        assert [bytes(f.data) for f in frames if f.opcode is Opcode.TEXT] == [
            b"echo b (1)",
            b"echo d (1)",
            b"echo de (1)",
            b"echo f (1)",
        ]
        assert given[0].startswith(ping)  # the library read from the ping on
        assert app.served == ["hello", "a", long, "c", "b", "d", "de", "f"]


async def test_a_frame_not_utf8_or_too_large_still_closes_as_the_library_does() -> None:
    async with serving(ws_max_size=100) as (app, _, url):
        for bad, code in ((masked(b"\xff\xfe"), 1007), (masked(b"x" * 101), 1009)):
            async with raw_client(url) as (reader, writer, client):
                writer.write(masked(b"hi"))
                [echo] = await frames_until(reader, client, 1)
                assert echo.data.startswith(b"echo hi")
                writer.write(masked(b"ok") + bad + masked(b"never"))
                # The close goes out at once; "ok", whole before the bad frame, reached
                # the app first (the library alone would drop a message read together
                # with a frame too large), and "never", after it, is not read.
                frames = await frames_until(reader, client, 1)
                closes = [Close.parse(f.data) for f in frames if f.opcode is Opcode.CLOSE]
                assert [c.code for c in closes] == [code]
            await asyncio.wait_for(app.task_ended.wait(), 5)
            app.task_ended.clear()
        assert app.served == ["hi", "ok", "hi", "ok"]
