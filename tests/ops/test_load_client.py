"""The load benchmark's lean WebSocket client (benchmarks/wsclient.py), against the
``websockets`` library's server (a strict RFC 6455 peer that refuses unmasked client
frames) and against raw TCP servers that send what a server must not."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import struct
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import websockets
from websockets.asyncio.server import ServerConnection, serve

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import wsclient  # noqa: E402

pytestmark = pytest.mark.asyncio


async def with_server(
    handler: Callable[[ServerConnection], Awaitable[None]],
    client: Callable[[str], Awaitable[None]],
) -> None:
    async with serve(handler, "127.0.0.1", 0, compression=None, max_size=None) as server:
        port = server.sockets[0].getsockname()[1]
        await asyncio.wait_for(client(f"ws://127.0.0.1:{port}/ws"), 10)


async def test_messages_of_every_length_go_and_come_back_masked_and_unmasked() -> None:
    async def echo(ws: ServerConnection) -> None:
        async for message in ws:
            await ws.send(message)

    async def client(url: str) -> None:
        ws = await wsclient.connect(url)
        # 7-bit, 16-bit and 64-bit lengths, at and around each boundary
        for n in (0, 1, 125, 126, 127, 65535, 65536, 300_000):
            text = ("é" + "x" * n)[:n] if n else ""
            await ws.send(text)
            assert (await ws.recv()).decode() == text
        await ws.send(b"\x00\xff binary")
        assert await ws.recv() == b"\x00\xff binary"
        await ws.close()
        assert ws.close_code == 1000

    await with_server(echo, client)


async def test_listen_hands_each_message_over_as_it_is_read_in_order() -> None:
    async def burst(ws: ServerConnection) -> None:
        await ws.recv()
        for i in range(5):
            await ws.send(f"m{i}")
        await ws.recv()  # the client listens from here
        for i in range(5, 300):
            await ws.send(f"m{i}")
        await ws.send("end")
        await ws.wait_closed()

    async def client(url: str) -> None:
        ws = await wsclient.connect(url)
        await ws.send("go")
        assert await ws.recv() == b"m0"
        await asyncio.sleep(0.2)  # m1..m4 wait in the queue
        got: list[bytes] = []
        done = asyncio.get_running_loop().create_future()

        def take(message: bytes) -> None:
            got.append(message)
            if message == b"end":
                done.set_result(None)

        ws.listen(take)
        assert got == [b"m1", b"m2", b"m3", b"m4"]  # the queued ones first, at once
        await ws.send("more")
        await asyncio.wait_for(done, 10)
        assert got == [f"m{i}".encode() for i in range(1, 300)] + [b"end"]
        assert not ws.messages  # nothing went to the queue meanwhile
        await ws.close()

    await with_server(burst, client)


async def test_headers_reach_the_server_and_a_refusal_fails_the_open() -> None:
    seen: dict[str, Any] = {}

    async def handler(ws: ServerConnection) -> None:
        assert ws.request is not None
        seen["cookie"] = ws.request.headers.get("Cookie")
        seen["origin"] = ws.request.headers.get("Origin")
        seen["path"] = ws.request.path
        await ws.send("hello")
        await ws.wait_closed()

    async def client(url: str) -> None:
        ws = await wsclient.connect(url + "?x=1", {"Cookie": "s=abc", "Origin": "http://o"})
        assert await ws.recv() == b"hello"
        await ws.close()

    await with_server(handler, client)
    assert seen == {"cookie": "s=abc", "origin": "http://o", "path": "/ws?x=1"}

    async def refuse(conn: Any, request: Any) -> Any:
        return conn.respond(403, "no\n")

    async with serve(lambda ws: ws.wait_closed(), "127.0.0.1", 0, process_request=refuse) as s:
        port = s.sockets[0].getsockname()[1]
        with pytest.raises(wsclient.ProtocolError, match="403"):
            await wsclient.connect(f"ws://127.0.0.1:{port}/")


async def test_fragmented_messages_pings_and_the_server_closing() -> None:
    async def handler(ws: ServerConnection) -> None:
        await ws.send(["ab", "cd", "ef"])  # one message in three frames
        await asyncio.wait_for(await ws.ping(b"p"), 5)  # answered with a pong
        await ws.send("after the ping")
        await ws.close(1000, "bye")

    async def client(url: str) -> None:
        ws = await wsclient.connect(url)
        got = [m async for m in ws]  # ends quietly on a normal close
        assert got == [b"abcdef", b"after the ping"]
        assert ws.close_code == 1000
        with pytest.raises(wsclient.ConnectionClosed):
            await ws.send("too late")

    await with_server(handler, client)


async def test_an_abnormal_close_ends_the_iteration_with_an_error() -> None:
    async def handler(ws: ServerConnection) -> None:
        await ws.send("one")
        await ws.close(1011, "oops")

    async def client(url: str) -> None:
        ws = await wsclient.connect(url)
        got = []
        with pytest.raises(wsclient.ConnectionClosed, match="1011"):
            async for m in ws:
                got.append(m)
        assert got == [b"one"]

    await with_server(handler, client)


async def test_the_client_closing_is_a_clean_close_for_the_server() -> None:
    codes: list[int | None] = []

    async def handler(ws: ServerConnection) -> None:
        with pytest.raises(websockets.ConnectionClosedOK):
            await ws.recv()
        codes.append(ws.close_code)

    async def client(url: str) -> None:
        ws = await wsclient.connect(url)
        await ws.close()

    await with_server(handler, client)
    await asyncio.sleep(0.1)
    assert codes == [1000]


# ------------------------------------------------------------ raw servers


async def raw_server(respond: Callable[[bytes], list[bytes]]) -> tuple[asyncio.Server, str]:
    """A TCP server that reads the opening request, then writes ``respond(key)``'s
    chunks one by one (with a pause between them, so each arrives on its own), and
    waits for the client to go."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        key = next(
            line.split(b":", 1)[1].strip()
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"sec-websocket-key:")
        )
        for chunk in respond(key):
            writer.write(chunk)
            await writer.drain()
            await asyncio.sleep(0.002)
        await reader.read()  # until the client goes
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}/"


def accept(key: bytes, extra: bytes = b"") -> bytes:
    digest = base64.b64encode(hashlib.sha1(key + wsclient.GUID).digest())
    return (
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Accept: " + digest + b"\r\n" + extra + b"\r\n"
    )


def server_frame(payload: bytes, opcode: int = 1, fin: bool = True) -> bytes:
    n = len(payload)
    first = (0x80 if fin else 0) | opcode
    if n < 126:
        return struct.pack("!BB", first, n) + payload
    if n < 65536:
        return struct.pack("!BBH", first, 126, n) + payload
    return struct.pack("!BBQ", first, 127, n) + payload


async def test_frames_split_byte_by_byte_and_packed_together_are_read_whole() -> None:
    big = b"y" * 70_000
    stream = (
        server_frame(b"first")
        + server_frame(big)
        + server_frame(b"frag", fin=False)
        + server_frame(b"g", opcode=9)  # a ping between fragments
        + server_frame(b"ment", opcode=0)
        + server_frame(b"x" * 300)
    )

    def respond(key: bytes) -> list[bytes]:
        # the handshake and the start of the first frame in one chunk; then 1-byte chunks
        # through the headers, then the rest in one go
        return [accept(key) + stream[:3], *(stream[i : i + 1] for i in range(3, 20)), stream[20:]]

    server, url = await raw_server(respond)
    async with server:
        ws = await wsclient.connect(url)
        assert [await ws.recv() for _ in range(4)] == [b"first", big, b"fragment", b"x" * 300]
        ws.transport.abort()  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("respond", "error"),
    [
        (lambda key: [accept(b"not the key")], "Accept"),
        (lambda key: [b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"], "200"),
        (lambda key: [accept(key, b"Sec-WebSocket-Extensions: x\r\n")], "extension"),
    ],
    ids=["wrong accept key", "no upgrade", "unasked extension"],
)
async def test_a_bad_handshake_is_refused(respond: Any, error: str) -> None:
    server, url = await raw_server(respond)
    async with server:
        with pytest.raises(wsclient.ProtocolError, match=error):
            await wsclient.connect(url, open_timeout=5)


@pytest.mark.parametrize(
    "bad",
    [
        b"\x81\x85abcd" + b"hello",  # masked by the server
        b"\xc1\x02hi",  # RSV1 without an extension
        b"\x80\x02hi",  # a continuation of nothing
        b"\x83\x00",  # an unknown opcode
        b"\x09\x00",  # a fragmented ping
        b"\x88\x01x",  # a close code of one byte
    ],
    ids=[
        "masked",
        "reserved bit",
        "stray continuation",
        "unknown opcode",
        "fragmented ping",
        "one-byte close code",
    ],
)
async def test_a_frame_a_server_must_not_send_drops_the_connection(bad: bytes) -> None:
    server, url = await raw_server(lambda key: [accept(key), server_frame(b"ok"), bad])
    async with server:
        ws = await wsclient.connect(url)
        assert await ws.recv() == b"ok"
        with pytest.raises(wsclient.ConnectionClosed, match="1002"):
            await ws.recv()
