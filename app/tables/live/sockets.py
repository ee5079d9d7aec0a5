"""Closing sockets from anywhere: a session that ended, a user over the socket cap.

Every process already subscribes to the private channel of each user it has a socket
for (``user_channel``), so one publish there reaches that user's sockets on every
process. The message is a control message (``type`` CONTROL) that a Connection acts on
and never forwards. The sockets a user has open are a sorted set in Redis (score: when
each opened) so the per-user cap holds across processes (docs/security.md); each process
counts its own sockets again when Redis lost them (``recount``).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import math
import secrets
import socket
import struct
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson
from redis.asyncio import Redis
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from app.core.lean import Flag, ReceiveQueue
from app.core.redis import as_text
from app.tables.storage.store import user_channel

log = logging.getLogger("app.ws")

CONTROL = "_sockets"
SESSION_ENDED = (4001, "session_ended")
BAD_ORIGIN = (4003, "bad_origin")
TOO_MANY_SOCKETS = (4008, "too_many_sockets")
TOO_SLOW = (4009, "too_slow")
# 64 KiB (Linux doubles it for its bookkeeping): a second of frames even for a slow phone,
# a card game never needs more in flight.
SEND_BUFFER_BYTES = 64 * 1024
SOCKETS_TTL = 86_400  # a crashed process's entries fade; the oldest are evicted first anyway

# Add these sockets (score, id pairs from ARGV[3]), then drop the oldest beyond the cap
# and return their ids. Atomic, so two tabs opening together cannot both slip under the
# cap.
_REGISTER = """
redis.call('ZADD', KEYS[1], unpack(ARGV, 3))
redis.call('EXPIRE', KEYS[1], ARGV[2])
local extra = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[1])
if extra <= 0 then return {} end
local oldest = redis.call('ZRANGE', KEYS[1], 0, extra - 1)
redis.call('ZREM', KEYS[1], unpack(oldest))
return oldest
"""


def sockets_key(user_id: int) -> str:
    return f"ws:user:{user_id}"


def new_socket_id() -> str:
    return secrets.token_hex(8)


async def register(
    redis: Redis, user_id: int, socket_id: str, cap: int, opened_at: float | None = None
) -> None:
    """Count this socket among the user's; the oldest beyond ``cap`` are told to close."""
    await _count(redis, user_id, {socket_id: time.time() if opened_at is None else opened_at}, cap)


async def recount(redis: Redis, connections: Iterable[Any]) -> int:
    """Count again every open socket of this process (each with when it opened), after
    Redis lost the sets: a flush, or a restart without its data. Every process does so
    on its next heartbeat (play/timers.py), so the cap holds again across all of them
    within a heartbeat, the oldest beyond it closed as usual. Returns the users counted.

    ``connections`` are live/connection.py's: ``user_id``, ``socket_id``, ``opened_at``
    (None before its first count), ``closed`` and ``session.max_sockets``."""
    by_user: dict[int, tuple[int, dict[str, float]]] = {}
    for conn in list(connections):
        if conn.closed or conn.opened_at is None:
            continue
        cap, entries = by_user.setdefault(conn.user_id, (conn.session.max_sockets, {}))
        entries[conn.socket_id] = conn.opened_at
    for user_id, (cap, entries) in by_user.items():
        await _count(redis, user_id, entries, cap)
    return len(by_user)


async def _count(redis: Redis, user_id: int, entries: dict[str, float], cap: int) -> None:
    pairs = [str(x) for socket_id, score in entries.items() for x in (score, socket_id)]
    raw = await redis.eval(_REGISTER, 1, sockets_key(user_id), str(cap), str(SOCKETS_TTL), *pairs)
    evicted = [as_text(v) for v in raw or []]
    if evicted:
        await redis.publish(
            user_channel(user_id), orjson.dumps({"type": CONTROL, "evict": evicted})
        )


async def unregister(redis: Redis, user_id: int, socket_id: str) -> None:
    await redis.zrem(sockets_key(user_id), socket_id)


async def end_sessions(redis: Redis, user_id: int, token_hashes: list[str]) -> None:
    """Close, on every process, the sockets opened with these sessions (logout, password
    change, a claimed guest). Call after the commit that revoked them."""
    if token_hashes:
        await redis.publish(
            user_channel(user_id), orjson.dumps({"type": CONTROL, "end": token_hashes})
        )


def verdict(payload: Any, socket_id: str, token_hash: str | None) -> tuple[int, str] | None:
    """What a control message means for one socket: a close code and reason, or None."""
    if token_hash is not None and token_hash in payload.get("end", ()):
        return SESSION_ENDED
    if socket_id in payload.get("evict", ()):
        return TOO_MANY_SOCKETS
    return None


@dataclass
class SocketSession:
    """What a Connection knows of the session that opened it."""

    token_hash: str | None = None
    expires_at: float | None = None  # epoch seconds
    max_sockets: int = 8
    raw_send: Any = None  # the server's own ASGI send (see KeepRawSend)


SWEEP_SECONDS = 1.0


class ExpirySweep:
    """Ends the sockets whose session has expired, within a second: one timer for the
    whole process rather than a timer for each socket kept for its whole life (about
    0.4 KiB each, for a deadline days away). Each second costs a comparison, until the
    earliest deadline among the sockets comes: only then are they looked over, and the
    next earliest found. A socket tells its deadline when it opens (``note``).

    ``connections`` are live/connection.py's: ``closed``, ``session.expires_at`` and
    ``end(code, reason)``."""

    def __init__(self, connections: set[Any], every: float = SWEEP_SECONDS) -> None:
        self.connections = connections
        self.every = every
        self.earliest = math.inf  # no socket's session ends before this
        self._timer: asyncio.TimerHandle | None = None

    def note(self, expires_at: float | None) -> None:
        if expires_at is not None and expires_at < self.earliest:
            self.earliest = expires_at

    def start(self) -> None:
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.every, self._tick)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _tick(self) -> None:
        self._timer = asyncio.get_running_loop().call_later(self.every, self._tick)
        now = time.time()
        if now >= self.earliest:
            self.sweep(now)

    def sweep(self, now: float) -> int:
        """End every open socket whose session expired by ``now``; returns how many. The
        earliest deadline left among the open sockets is kept for the next pass."""
        expired = []
        earliest = math.inf
        for conn in self.connections:
            expires_at = conn.session.expires_at
            if conn.closed or expires_at is None:
                continue
            if expires_at <= now:
                expired.append(conn)
            elif expires_at < earliest:
                earliest = expires_at
        self.earliest = earliest
        for conn in expired:
            try:
                conn.end(*SESSION_ENDED)
            except Exception:  # one socket failing to close must not stop the sweep
                log.exception("ending the socket of an expired session")
        return len(expired)


async def hang_up(ws: WebSocket, code: int, reason: str, wait: float, raw_send: Any) -> None:
    """Send the close frame; when the server cannot even queue it within ``wait`` seconds
    (its write buffer is full because the client stopped reading), abort the TCP
    connection so the buffer is freed instead of waiting for a reader that never comes."""
    try:
        await asyncio.wait_for(ws.close(code=code, reason=reason), wait)
        return
    except TimeoutError:
        log.warning("socket not closing (%s): dropping the connection", reason)
    except Exception:
        return  # already gone
    transport = _transport(raw_send)
    if transport is not None:
        sock = transport.get_extra_info("socket")
        if sock is not None:  # a reset, not a FIN queued behind data nobody will read
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()


def _transport(raw_send: Any) -> Any:
    """The server's transport (asyncio's or uvloop's: duck-typed), or None."""
    transport = getattr(getattr(raw_send, "__self__", None), "transport", None)
    ok = hasattr(transport, "abort") and hasattr(transport, "get_extra_info")
    return transport if ok else None


def direct_text_sender(raw_send: Any) -> Any:
    """The server's own ``send(text)`` of a WebSocket, below the ASGI layers, when the
    server is uvicorn on the websockets library (the one we ship, sans-I/O or legacy): a
    frame then goes straight to uvicorn's protocol instead of through Starlette and every
    middleware's ``send`` (five frames a move at a table). None on another server or
    WebSocket implementation: the caller then sends through ASGI as usual. Only frames
    take this way; the accept and the close keep going through ASGI, so every middleware
    still sees them."""
    proto = getattr(raw_send, "__self__", None)
    module = type(proto).__module__
    send = getattr(proto, "send", None)
    if not callable(send):
        return None
    if module == "uvicorn.protocols.websockets.websockets_impl":
        return send  # the legacy protocol's own send(text)
    if isinstance(proto, WebSocketsSansIOProtocol):  # or DetachableProtocol (detach.py)
        return SansIOSender(proto, send)
    return None


_OPEN = getattr(State, "OPEN", None)


class SansIOSender:
    """A text sender for uvicorn's sans-I/O protocol.

    While the socket is open, its transport writable and nothing else queued
    (``ready``), a frame is written at once: a final, unmasked text frame (RFC 6455,
    section 5.2: 0x81, the length in 7, 16 or 64 bits, the UTF-8 bytes) in one
    ``transport.write``. Those are the bytes the websockets library writes for it with
    no extension negotiated (and none is: the servers run with
    ``--ws-per-message-deflate false``), without the library's ``Frame`` object, its
    checks and its buffer, nor uvicorn's message dict: about 2 µs less a frame, four
    frames a move. Whenever any of that does not hold (an extension, a close under way,
    a paused transport, bytes of the library's own waiting to be written, another
    version of either library), the frame goes through the protocol's ASGI ``send``,
    which waits, frames, or raises as it always did."""

    __slots__ = ("proto", "conn", "send", "fast")

    def __init__(self, proto: Any, send: Callable[[Any], Awaitable[None]]) -> None:
        self.proto, self.send = proto, send
        self.conn: Any = getattr(proto, "conn", None)
        conn = self.conn
        self.fast = (
            _OPEN is not None
            and conn is not None
            and isinstance(getattr(conn, "writes", None), list)
            and hasattr(conn, "extensions")
            and hasattr(conn, "expect_continuation_frame")
            and hasattr(proto, "writable")
            and hasattr(proto, "close_sent")
            and hasattr(proto, "disconnected")
        )

    def ready(self) -> bool:
        """A frame written now goes straight to the transport, in order."""
        proto, conn = self.proto, self.conn
        return (
            self.fast
            and conn.state is _OPEN
            and not conn.extensions
            and not conn.writes
            and not conn.expect_continuation_frame
            and not proto.close_sent
            and not proto.disconnected
            and proto.writable.is_set()
            and not proto.transport.is_closing()
        )

    def write(self, text: str) -> None:
        """Write one frame now; only when ``ready`` said so, in the same callback."""
        self.proto.transport.write(text_frame(text.encode()))

    async def __call__(self, text: str) -> None:
        if self.ready():
            self.write(text)
        else:
            await self.send({"type": "websocket.send", "text": text})


def text_frame(data: bytes) -> bytes:
    """A server's text frame: final, unmasked, no extension (RFC 6455, section 5.2)."""
    n = len(data)
    if n < 126:
        return bytes((0x81, n)) + data
    if n < 65536:
        return struct.pack("!BBH", 0x81, 126, n) + data
    return struct.pack("!BBQ", 0x81, 127, n) + data


def drop_handshake(raw_send: Any) -> None:
    """Let go of what a socket no longer needs once it is accepted.

    uvicorn's sans-I/O protocol keeps the parsed request and the response it sent (their
    headers: about 5 KiB) for the whole life of the socket, though it reads them only
    until the accept is sent; the ASGI scope keeps its own copy of the request headers,
    which is what Starlette's ``WebSocket`` reads. Its receive queue and its "writable"
    event are swapped for the lean ones of ``app.core.lean`` (3 KiB less), and its
    attribute dict, grown past the size Python shares between instances, is rebuilt at
    the size it needs (0.7 KiB less; ``DetachableProtocol`` keeps them in slots instead)."""
    proto: Any = getattr(raw_send, "__self__", None)
    sansio = isinstance(getattr(raw_send, "__self__", None), WebSocketsSansIOProtocol)
    if (
        sansio
        and getattr(proto, "handshake_complete", False)
        and hasattr(proto, "request")
        and hasattr(proto, "response")
    ):
        for message in (proto.request, proto.response):
            # The websockets library's parser holds the request too, for as long as the
            # socket lives (a local of its generator): its headers are emptied instead.
            headers: Any = getattr(message, "headers", None)
            if hasattr(headers, "clear"):
                headers.clear()
        proto.request = None
        proto.response = None
        loop = getattr(proto, "loop", None)
        if isinstance(loop, asyncio.AbstractEventLoop):
            queue = _lean_queue(getattr(proto, "queue", None), loop)
            if queue is not None:
                proto.queue = queue
            writable = _lean_flag(getattr(proto, "writable", None), loop)
            if writable is not None:
                proto.writable = writable
        if "__slots__" not in type(proto).__dict__:  # a slotted protocol has no dict to trim
            with contextlib.suppress(AttributeError, TypeError):
                proto.__dict__ = dict(proto.__dict__)


# Messages a socket's own task has still to read (declined by its sink, queued): past
# this many, reading from the client stops until the task has caught up.
PAUSE_READING_AFTER = 16


def take_receives(
    raw_send: Any, sink: Callable[[Any], bool], notify: Callable[[], None]
) -> ReceiveQueue | None:
    """Have ``sink`` offered each message uvicorn's sans-I/O protocol receives, in the
    protocol's own callback (the lean receive queue ``drop_handshake`` put in), so that a
    socket needs no task waiting to read: a message the sink takes never climbs up
    Starlette's ``receive``. What it declines is queued, and so is everything after it
    until the queue is read empty, so the order holds; ``notify`` is called for each
    message queued, and the socket's task reads them with ``WebSocket.receive`` as
    before. Returns the queue (whose ``sink`` and ``notify`` the caller sets back to
    None when done), or None when the socket has no lean queue (another server): the
    caller then reads with a task of its own.

    uvicorn pauses reading after each message it queues, and resumes when the last one
    is read; a message the sink took is never read from the queue, so the protocol is
    told its reading is already paused and leaves it running. Its ``receive`` resumes
    reading whenever it empties the queue, so pausing here, once a few declined messages
    wait, is undone by the read that catches up."""
    proto: Any = getattr(raw_send, "__self__", None)
    queue = getattr(proto, "queue", None)
    if not isinstance(queue, ReceiveQueue) or not hasattr(proto, "read_paused"):
        return None
    taking = _Taking(proto, queue, sink, notify)
    queue.sink, queue.notify = taking.offer, taking.queued
    return queue


class _Taking:
    """``take_receives``'s side of one socket: a slotted object rather than two closures
    and their cells, as it lives as long as the socket."""

    __slots__ = ("proto", "queue", "sink", "notify")

    def __init__(
        self,
        proto: Any,
        queue: ReceiveQueue,
        sink: Callable[[Any], bool],
        notify: Callable[[], None],
    ) -> None:
        self.proto, self.queue, self.sink, self.notify = proto, queue, sink, notify

    def offer(self, message: Any) -> bool:
        if self.sink(message):
            self.proto.read_paused = True  # nothing to pause for: see take_receives
            return True
        return False

    def queued(self) -> None:
        if self.queue.qsize() >= PAUSE_READING_AFTER:
            proto = self.proto
            proto.read_paused = True
            with contextlib.suppress(Exception):
                proto.transport.pause_reading()
        self.notify()


def _lean_queue(queue: Any, loop: asyncio.AbstractEventLoop) -> ReceiveQueue | None:
    """The lean copy of an unbounded asyncio.Queue nobody waits on, or None."""
    if type(queue) is not asyncio.Queue or queue.maxsize > 0:
        return None
    parts: Any = queue  # the queue's private parts, stable since Python 3.8
    getters, items = getattr(parts, "_getters", None), getattr(parts, "_queue", None)
    if type(getters) is not collections.deque or getters or type(items) is not collections.deque:
        return None  # someone is waiting on it (nobody is, once accepted): left as it is
    return ReceiveQueue(loop, list(items))


def _lean_flag(event: Any, loop: asyncio.AbstractEventLoop) -> Flag | None:
    """The lean copy of an asyncio.Event nobody waits on, or None."""
    if type(event) is not asyncio.Event:
        return None
    waiters: Any = getattr(event, "_waiters", None)
    if type(waiters) is not collections.deque or waiters:
        return None
    return Flag(loop, event.is_set())


# What is read of a socket's scope once it is accepted: the request log's line when it
# closes (type, path, client, state's request id), the socket's raw send (state), the
# app (Starlette's ``WebSocket.app``) and the emptied headers.
SCOPE_KEPT = ("type", "path", "client", "state", "app", "headers")


def trim_scope(scope: Any) -> None:
    """Let go of what a socket's ASGI scope holds that nothing reads once the socket is
    accepted. Everything read from the request's headers (Origin, Host, the session
    cookie, the client's address) was read before the accept, yet the scope holds them,
    as byte strings, for the socket's whole life (about 1 KiB a socket for a script's
    few headers; a browser sends more): Starlette's ``WebSocket.headers`` reads the same
    list, so it is emptied in place. The rest (the ASGI version and extensions dicts, the
    raw path, query string, scheme, server address, subprotocols) goes, and the dict is
    rebuilt in place at the size its few keys need: uvicorn's protocol, Starlette's
    ``WebSocket`` and the middlewares all hold this same dict."""
    if not isinstance(scope, dict):
        return
    headers = scope.get("headers")
    if isinstance(headers, list):
        headers.clear()
    kept = {key: scope[key] for key in SCOPE_KEPT if key in scope}
    scope.clear()  # a dict only shrinks when emptied: its table is then rebuilt
    scope.update(kept)


# What Starlette's ``WebSocket`` caches of its scope the first time each is read.
CONNECTION_CACHES = ("_headers", "_cookies", "_url", "_base_url", "_query_params")


def trim_connection(ws: Any) -> None:
    """``trim_scope`` for an accepted socket's Starlette ``WebSocket``, and what it has
    cached of the scope: the parsed cookies (the session's token among them), the
    headers' view, the URL. Each is parsed again from the trimmed scope if read.

    The ``WebSocket`` also sends from now on through the server's own ``send`` (kept by
    ``KeepRawSend``) rather than through the layers' wrappers of it: once the socket is
    accepted they only pass messages on (the request log has noted its 101), and each
    is a closure with its cells that would otherwise live as long as the socket."""
    scope = getattr(ws, "scope", None)
    state = scope.get("state") if isinstance(scope, dict) else None
    raw_send = state.get("raw_send") if isinstance(state, dict) else None
    trim_scope(scope)
    attributes = getattr(ws, "__dict__", None)
    if isinstance(attributes, dict):
        for name in CONNECTION_CACHES:
            attributes.pop(name, None)
        if raw_send is not None and "_send" in attributes:
            attributes["_send"] = raw_send


def bound_send_buffer(raw_send: Any, size: int = SEND_BUFFER_BYTES) -> None:
    """Fix the kernel's send buffer of one socket. Left to autotuning, Linux lets it grow
    to 4 MiB for a peer that stops reading (kernel memory no process limit sees); fixed,
    a client that stops reading backs up into the bounded queue and is dropped soon."""
    transport = _transport(raw_send)
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)


class KeepRawSend:
    """Pure ASGI, outermost: remember the server's own ``send`` of a WebSocket so that
    ``hang_up`` can reach its transport (uvicorn's protocol keeps it as ``transport``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # A plain function handing back the next layer's awaitable: no coroutine frame of
        # its own kept for the life of every socket.
        if scope["type"] == "websocket":
            scope.setdefault("state", {})["raw_send"] = send
        return self.app(scope, receive, send)
