"""A lean WebSocket client (RFC 6455) for the load benchmark's simulated players.

The benchmark's client shares the machine's two cores with the servers it measures.
With the ``websockets`` library's asyncio client it took 0.8-0.9 of a core at 2,000
tables (about 90 us per frame: a task, an assembler and a queue per socket), and every
microsecond it takes is one the servers wait for in the run queue, which the figures
then show as server latency. This client does the same protocol work on a bare asyncio
``Protocol``: it does the opening handshake and checks the server's accept key, sends
every frame masked with a fresh random key, reads unmasked frames of any length
(7-bit, 16-bit and 64-bit lengths), reassembles fragmented messages, answers pings and
the closing handshake, and fails loudly on anything a server must not send. It does not
negotiate extensions (the benchmark turns compression off on both sides) or
subprotocols.

Used like the ``websockets`` client: ``ws = await connect(url, headers)``, then
``await ws.recv()``, ``async for message in ws``, ``await ws.send(text)``,
``await ws.close()``. Messages are delivered as ``bytes`` (text frames' UTF-8, checked
by the JSON parser that reads them), which ``orjson.loads`` takes as they are.

``ws.listen(callback)`` hands each message to ``callback`` from the protocol's own
``data_received`` instead: no reader task, no future and no loop turn per message (a
task woken per frame cost the players about a third of their CPU at 4,000 tables), and
an arrival is timed when its bytes are read, not when a task gets the loop.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import os
import struct
from collections import deque
from collections.abc import Callable
from urllib.parse import urlsplit

from websockets.speedups import apply_mask  # the masking loop in C

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0, 1, 2, 8, 9, 10
MAX_HEADER = 16 * 1024


class ConnectionClosed(ConnectionError):
    """The connection is closed (an ``OSError``, as a reset socket's errors are)."""


class ProtocolError(ConnectionClosed):
    """The server broke the protocol; the connection was dropped."""


def frame(opcode: int, payload: bytes) -> bytes:
    """One final, masked client frame."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    key = os.urandom(4)
    return head + key + apply_mask(payload, key)


def accept_key(key: bytes) -> bytes:
    return base64.b64encode(hashlib.sha1(key + GUID).digest())


class Socket(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.key = base64.b64encode(os.urandom(16))
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed = asyncio.get_running_loop().create_future()
        self.buf = b""
        self.handshaking = True
        self.fragments: list[bytes] = []
        self.messages: deque[bytes] = deque()
        self.waiter: asyncio.Future[None] | None = None
        self.close_code: int | None = None
        self.close_sent = False
        self.writable: asyncio.Future[None] | None = None
        self.on_message: Callable[[bytes], None] | None = None

    # ------------------------------------------------------------ asyncio callbacks

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  (uvloop's is no subclass)

    def data_received(self, data: bytes) -> None:
        if self.close_code is not None:  # closing or failed: nothing more is read
            return
        buf = self.buf + data if self.buf else data
        if self.handshaking:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > MAX_HEADER:
                    self._fail("handshake response too long")
                else:
                    self.buf = buf
                return
            self._handshake(buf[:end])
            if self.handshaking:  # failed
                return
            buf = buf[end + 4 :]
        pos, size = 0, len(buf)
        while size - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            if b1 & 0x80:
                self._fail("the server masked a frame")
                return
            if b0 & 0x70:
                self._fail("reserved bits set (no extension was negotiated)")
                return
            n, head = b1 & 0x7F, pos + 2
            if n == 126:
                if size - pos < 4:
                    break
                n, head = (buf[pos + 2] << 8) | buf[pos + 3], pos + 4
            elif n == 127:
                if size - pos < 10:
                    break
                n, head = int.from_bytes(buf[pos + 2 : pos + 10], "big"), pos + 10
            if size - head < n:
                break
            pos = head + n
            if not self._frame(b0 & 0x80, b0 & 0x0F, buf[head:pos]):
                return
        self.buf = buf[pos:] if pos < size else b""

    def connection_lost(self, exc: Exception | None) -> None:
        if self.close_code is None:
            self.close_code = 1006
        if not self.opened.done():
            self.opened.set_exception(ConnectionClosed(f"connection lost: {exc}"))
        if not self.closed.done():
            self.closed.set_result(None)
        self._wake()
        if self.writable is not None and not self.writable.done():
            self.writable.set_result(None)

    def pause_writing(self) -> None:
        if self.writable is None or self.writable.done():
            self.writable = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self.writable is not None and not self.writable.done():
            self.writable.set_result(None)

    # ------------------------------------------------------------ protocol

    def _handshake(self, head: bytes) -> None:
        lines = head.split(b"\r\n")
        status = lines[0].split(b" ", 2)
        if len(status) < 2 or status[1] != b"101":
            return self._fail(f"handshake refused: {lines[0].decode('latin-1')}")
        fields = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            fields[name.strip().lower()] = value.strip()
        if fields.get(b"upgrade", b"").lower() != b"websocket":
            return self._fail("handshake without Upgrade: websocket")
        if fields.get(b"sec-websocket-accept") != accept_key(self.key):
            return self._fail("wrong Sec-WebSocket-Accept")
        if b"sec-websocket-extensions" in fields:
            return self._fail("the server chose an extension nobody offered")
        self.handshaking = False
        self.opened.set_result(None)

    def _frame(self, fin: int, opcode: int, payload: bytes) -> bool:
        if opcode in (OP_TEXT, OP_BINARY):
            if self.fragments:
                return self._fail("a new message inside a fragmented one")
            if fin:
                self._deliver(payload)
            else:
                self.fragments.append(payload)
        elif opcode == OP_CONT:
            if not self.fragments:
                return self._fail("a continuation with no message to continue")
            self.fragments.append(payload)
            if fin:
                message = b"".join(self.fragments)
                self.fragments = []
                self._deliver(message)
        elif opcode >= OP_CLOSE:
            if not fin or len(payload) > 125:
                return self._fail("a fragmented or oversized control frame")
            if opcode == OP_CLOSE:
                if len(payload) == 1:  # a code is two bytes or absent
                    return self._fail("a close frame with a one-byte payload")
                self.close_code = struct.unpack("!H", payload[:2])[0] if payload else 1005
                if not self.close_sent:
                    self._write(frame(OP_CLOSE, payload[:2]))
                    self.close_sent = True
                assert self.transport is not None
                self.transport.close()
                self._wake()
                return False
            if opcode == OP_PING:
                self._write(frame(OP_PONG, payload))
        else:
            return self._fail(f"unknown opcode {opcode}")
        return True

    def _deliver(self, message: bytes) -> None:
        if self.on_message is not None:
            self.on_message(message)
            return
        self.messages.append(message)
        self._wake()

    def _wake(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def _write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _fail(self, why: str) -> bool:
        self.close_code = 1002
        if not self.opened.done():
            self.opened.set_exception(ProtocolError(why))
        if self.transport is not None:
            self.transport.abort()
        self._wake()
        return False

    # ------------------------------------------------------------ the caller's side

    async def recv(self) -> bytes:
        while not self.messages:
            if self.close_code is not None:
                raise ConnectionClosed(f"closed ({self.close_code})")
            self.waiter = asyncio.get_running_loop().create_future()
            await self.waiter
            self.waiter = None
        return self.messages.popleft()

    def listen(self, callback: Callable[[bytes], None] | None) -> None:
        """Deliver every message to ``callback`` as it is read, the ones already
        received first; ``None`` goes back to ``recv``. ``callback`` must not raise."""
        self.on_message = callback
        while callback is not None and self.messages:
            callback(self.messages.popleft())

    def __aiter__(self) -> Socket:
        return self

    async def __anext__(self) -> bytes:
        try:
            return await self.recv()
        except ConnectionClosed:
            if self.close_code in (1000, 1001):
                raise StopAsyncIteration from None
            raise

    async def send(self, message: str | bytes) -> None:
        if self.close_code is not None or self.close_sent:
            raise ConnectionClosed(f"closed ({self.close_code})")
        if isinstance(message, str):
            self._write(frame(OP_TEXT, message.encode()))
        else:
            self._write(frame(OP_BINARY, message))
        if self.writable is not None and not self.writable.done():
            await self.writable

    async def close(self, code: int = 1000, timeout: float = 2.0) -> None:
        if not self.close_sent and self.close_code is None:
            self._write(frame(OP_CLOSE, struct.pack("!H", code)))
            self.close_sent = True
        with contextlib.suppress(TimeoutError):  # a server that never answers: dropped
            await asyncio.wait_for(asyncio.shield(self.closed), timeout)
        if self.transport is not None:
            self.transport.abort()


async def connect(
    url: str, headers: dict[str, str] | None = None, open_timeout: float = 60
) -> Socket:
    """Open a WebSocket to a ``ws://`` URL (no TLS: the benchmark runs on loopback)."""
    parts = urlsplit(url)
    if parts.scheme != "ws" or not parts.hostname:
        raise ValueError(f"not a ws:// URL: {url}")
    port = parts.port or 80
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    loop = asyncio.get_running_loop()

    async def open_() -> Socket:
        _, sock = await loop.create_connection(Socket, parts.hostname, port)
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {parts.hostname}:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {sock.key.decode()}",
            "Sec-WebSocket-Version: 13",
            *(f"{k}: {v}" for k, v in (headers or {}).items()),
        ]
        sock._write(("\r\n".join(lines) + "\r\n\r\n").encode())
        try:
            await sock.opened
        except BaseException:
            if sock.transport is not None:
                sock.transport.abort()
            raise
        return sock

    return await asyncio.wait_for(open_(), open_timeout)
