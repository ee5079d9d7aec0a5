"""uvicorn's sans-I/O WebSocket protocol, with a socket the app may detach once accepted.

Under ASGI a socket lives exactly as long as the app's call for it: the server's task
waits in the whole stack (uvicorn's ``run_asgi``, the proxy-headers middleware, the app,
the request log, the endpoint) for as long as the socket is open, and closes the socket
when the call returns. Thousands of sockets each keep those frames for hours, about
1.5 KiB a socket, for layers that have nothing left to do once the handshake is done.

``DetachableProtocol`` is uvicorn's own protocol but for one thing: an endpoint that has
accepted the socket may hand it to a task of its own (``detach``) and return; the
layers' frames are then let go, every middleware having seen the accept, and the
socket stays open until that task closes it or the client leaves. The task is counted
among the server's tasks, so a graceful shutdown waits for it as for any request.
Everything else (framing, the close handshake, the server's shutdown) is uvicorn's, and
so are the keep-alive pings but for when they are sent: uvicorn sets a timer per socket
for its next ping, kept for the socket's whole life (about 0.3 KiB each); here one timer
per process sends the pings that are due, every tenth of a second
(``KeepaliveSweep``). A ping then goes out up to a tenth of a second late; the wait for
its pong is uvicorn's own timer, which lives only while a ping is in flight. A ping is
sent only to a socket whose client has been silent for the whole interval: bytes from
the client (a command, the browser's own ``ping`` every 20 s, a pong) show that it is
there as well as a pong would, so a player's socket is not pinged while they play, and
the ping's write, the pong's read and the timer between them are spared (at 4,000
tables, 800 pings a second on 16,000 sockets, one for every five moves).
A client that vanishes is found as late as before: ``ping_interval`` of silence, then
``ping_timeout`` without its pong.

A detached socket's common frames skip the websockets library's parser
(``data_received``): what a client sends nearly always arrives as whole, final, masked
text frames of a few hundred bytes, or as the pong to a keep-alive ping, and for those
the library runs a generator coroutine, builds a ``Frame``, checks it, queues it as an
event and hands it to uvicorn, which wraps it again; what that leaves behind is young
when the collector runs (decision 0007). Here such frames are read straight from the
bytes received (RFC 6455, section 5.2), unmasked with the library's own C
``apply_mask``, decoded as UTF-8, and given to the app as uvicorn gives them (a
``websocket.receive`` message with the text; a pong to uvicorn's own ``handle_pong``).
The keep-alive ping goes out the same way, straight to the transport. The first byte
that is anything else (a partial frame, a fragment, a client's ping or close, binary,
unmasked, reserved bits, a payload past the size limit or not UTF-8) and everything
after it go to the library, which is then exactly where it would be had it read the
frames before them itself: between two frames, with nothing buffered. Every protocol
error is the library's.

The protocol's attributes are slots (``UVICORN_ATTRIBUTES``): uvicorn sets about 40 on
each socket, past the size Python shares between the instances of a class, so each
socket would keep a dict of its own for them (0.8 KiB even rebuilt at its size) where
slots take 8 bytes each. An attribute uvicorn adds in another version still works; it
goes to a dict made for it, which a test (tests/tables/test_detach.py) notices.

Servers run it with ``--ws app.tables.live.detach:DetachableProtocol`` (``WS_PROTOCOL``:
the Makefile, the Dockerfile, the tests' and the benchmarks' servers); under another
protocol or server ``detach`` declines and the endpoint serves the socket in its own
call, as before."""

from __future__ import annotations

import asyncio
import logging
import math
import random
import weakref
from collections.abc import Callable, Coroutine
from typing import Any

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State

try:
    from websockets.speedups import apply_mask
except ImportError:  # the library built without its C extension
    from websockets.utils import apply_mask

WS_PROTOCOL = "app.tables.live.detach:DetachableProtocol"

Serve = Callable[[], Coroutine[Any, Any, None]]

log = logging.getLogger("app.ws")

TICK_SECONDS = 0.1


class KeepaliveSweep:
    """The keep-alive pings of one event loop's sockets, by when each is due: one timer
    that sends, every tenth of a second, the pings due by then (running only while some
    are). Pings are kept in buckets of a tick, so a tick touches only its own sockets,
    and the pings of a second go out in ten small batches rather than one."""

    def __init__(self, loop: asyncio.AbstractEventLoop, every: float = TICK_SECONDS) -> None:
        self.loop = loop
        self.every = every
        self.buckets: dict[int, set[DetachableProtocol]] = {}
        self.slot: dict[DetachableProtocol, int] = {}
        self._timer: asyncio.TimerHandle | None = None

    def __contains__(self, proto: object) -> bool:
        return proto in self.slot

    def add(self, proto: DetachableProtocol, at: float) -> None:
        self.discard(proto)
        tick = math.ceil(at / self.every)
        self.buckets.setdefault(tick, set()).add(proto)
        self.slot[proto] = tick
        if self._timer is None:
            self._timer = self.loop.call_later(self.every, self._tick)

    def discard(self, proto: DetachableProtocol) -> None:
        tick = self.slot.pop(proto, None)
        if tick is None:
            return
        bucket = self.buckets.get(tick)
        if bucket is not None:
            bucket.discard(proto)
            if not bucket:
                del self.buckets[tick]

    def _tick(self) -> None:
        now = math.floor(self.loop.time() / self.every)
        for tick in [tick for tick in self.buckets if tick <= now]:
            for proto in self.buckets.pop(tick):
                del self.slot[proto]
                try:
                    proto.send_keepalive_ping()
                except Exception:  # one socket failing must not stop the others' pings
                    log.exception("sending a keep-alive ping")
        self._timer = self.loop.call_later(self.every, self._tick) if self.buckets else None


_SWEEPS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, KeepaliveSweep] = (
    weakref.WeakKeyDictionary()
)


def keepalive_sweep(loop: asyncio.AbstractEventLoop) -> KeepaliveSweep:
    sweep = _SWEEPS.get(loop)
    if sweep is None:
        sweep = _SWEEPS[loop] = KeepaliveSweep(loop)
    return sweep


# Every attribute uvicorn's sans-I/O protocol sets on a socket (its __init__, the
# handshake, the close and the keep-alive), as the pinned uvicorn spells them.
UVICORN_ATTRIBUTES = (
    "app",
    "app_state",
    "asgi_version",
    "client",
    "close_sent",
    "close_timeout",
    "close_timer",
    "config",
    "conn",
    "connections",
    "curr_msg_data_type",
    "default_headers",
    "disconnected",
    "frames",
    "handshake_complete",
    "handshake_initiated",
    "initial_response",
    "last_ping_rtt",
    "logger",
    "loop",
    "pending_ping_payload",
    "ping_interval",
    "ping_sent_at",
    "ping_timeout",
    "ping_timer",
    "pong_timer",
    "queue",
    "read_paused",
    "request",
    "response",
    "root_path",
    "scheme",
    "scope",
    "server",
    "tasks",
    "transport",
    "writable",
)


# A final text frame and a pong (FIN, no reserved bits, the opcode), the mask bit.
TEXT_FINAL = 0x81
PONG_FINAL = 0x8A
MASKED = 0x80
PING_HEAD = b"\x89\x04"  # a final ping from the server (unmasked), 4 bytes of payload


def read_frames(data: bytes, max_size: int | None) -> tuple[list[str | bytes], int]:
    """The whole, final, masked text frames (decoded: ``str``) and pongs (their payload:
    ``bytes``) at the start of ``data``, what a client sends, in order; and where the
    first byte of anything else starts: ``len(data)`` when they were all such frames."""
    found: list[str | bytes] = []
    pos, end = 0, len(data)
    while end - pos >= 6:
        first, second = data[pos], data[pos + 1]
        if (first != TEXT_FINAL and first != PONG_FINAL) or not second & MASKED:
            break
        length = second & 0x7F
        head = pos + 2
        if length == 126:
            if first == PONG_FINAL or end - pos < 8:
                break  # a control frame's payload is at most 125 bytes
            length = (data[head] << 8) | data[head + 1]
            head += 2
        elif length == 127:
            break  # 64 KiB or more: far past what a client may send here
        if max_size is not None and length > max_size:
            break
        start = head + 4
        stop = start + length
        if stop > end:
            break
        payload = apply_mask(data[start:stop], data[head:start])
        if first == PONG_FINAL:
            found.append(payload)
        else:
            try:
                found.append(payload.decode())
            except UnicodeDecodeError:
                break
        pos = stop
    return found, pos


class DetachableProtocol(WebSocketsSansIOProtocol):
    __slots__ = (*UVICORN_ATTRIBUTES, "detached", "heard")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.detached = False  # set by ``detach``
        self.heard = 0.0  # the loop's time when the client's last bytes arrived
        super().__init__(*args, **kwargs)

    def detach(self, serve: Serve) -> asyncio.Task[None] | None:
        """Run ``serve()`` as the socket's task from now on, and leave the socket open
        when the app's call returns. Only once, and only for an accepted socket still
        open; otherwise None, ``serve`` is not called, and the caller serves the socket
        in its own call."""
        if self.detached or not self.handshake_complete or self.close_sent or self.disconnected:
            return None
        self.detached = True
        task = self.loop.create_task(serve())
        self.tasks.add(task)  # a graceful shutdown waits for it, as for the app's call
        task.add_done_callback(self.tasks.discard)
        return task

    def data_received(self, data: bytes) -> None:
        """Whole text frames and pongs of a detached socket read here; the rest, from
        the first byte that is neither, by the library (the module's docstring)."""
        self.heard = self.loop.time()
        if not self.detached:
            super().data_received(data)
            return
        conn = self.conn
        if (
            conn.state is not State.OPEN
            or conn.current_size is not None
            or conn.extensions
            or conn.reader.buffer
            or conn.parser_exc is not None
            or self.close_sent
        ):
            super().data_received(data)
            return
        limit, fragment = conn.max_message_size, conn.max_fragment_size
        if fragment is not None:
            limit = fragment if limit is None else min(limit, fragment)
        found, used = read_frames(data, limit)
        queue, received = self.queue, False
        for item in found:
            if isinstance(item, str):
                queue.put_nowait({"type": "websocket.receive", "text": item})
                received = True
            else:  # uvicorn's own handling of a pong; the Frame lives only for the call
                self.handle_pong(Frame(Opcode.PONG, item))
        if received and not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()
        if used < len(data):
            super().data_received(data[used:])

    def send_keepalive_ping(self) -> None:
        """uvicorn's keep-alive ping, its 4-byte payload written straight to the
        transport as a final, unmasked ping frame while the connection is open with
        nothing of the library's waiting (RFC 6455, section 5.5.2), rather than through
        the library's buffer, which leaves a new list behind each time; otherwise,
        uvicorn's own. Nothing is sent while the client was heard from within the
        interval: the ping is then due an interval after it was last heard."""
        interval = self.ping_interval or 0.0
        quiet_until = self.heard + interval
        now = self.loop.time()
        if quiet_until > now and not self.close_sent and not self.transport.is_closing():
            self.ping_timer = None
            keepalive_sweep(self.loop).add(self, max(quiet_until, now + TICK_SECONDS))
            return
        conn = self.conn
        if (
            not self.detached
            or self.close_sent
            or self.transport.is_closing()
            or conn.state is not State.OPEN
            or conn.writes
        ):
            super().send_keepalive_ping()
            return
        self.ping_timer = None
        payload = random.getrandbits(32).to_bytes(4, "big")
        self.pending_ping_payload = payload
        self.ping_sent_at = self.loop.time()
        self.transport.write(PING_HEAD + payload)
        if self.ping_timeout is not None:
            self.pong_timer = self.loop.call_later(self.ping_timeout, self.keepalive_timeout)
        else:
            self.schedule_ping()

    def schedule_ping(self) -> None:
        """The next ping, due in uvicorn's interval less the last round trip (as its own
        timer would be), sent by the loop's sweep."""
        interval = self.ping_interval or 0.0
        delay = max(0.0, interval - self.last_ping_rtt)
        keepalive_sweep(self.loop).add(self, self.loop.time() + delay)

    def stop_keepalive(self) -> None:
        super().stop_keepalive()
        sweep = _SWEEPS.get(self.loop)
        if sweep is not None:
            sweep.discard(self)

    async def run_asgi(self) -> None:
        """uvicorn's ``run_asgi``, but a detached socket is not closed when the app's
        call returns: its task closes it."""
        try:
            result = await self.app(self.scope, self.receive, self.send)
        except ClientDisconnected:
            pass
        except BaseException:
            self.logger.exception("Exception in ASGI application\n")
            self.send_500_response()
        else:
            if not self.handshake_complete:
                self.logger.error("ASGI callable returned without completing handshake.")
                self.send_500_response()
            elif result is not None:
                self.logger.error("ASGI callable should return None, but returned '%s'.", result)
        if self.close_timer is None and not self.detached:
            self.transport.close()


def detach(raw_send: Any, serve: Serve) -> asyncio.Task[None] | None:
    """``DetachableProtocol.detach`` of the server's protocol behind ``raw_send`` (the
    server's own ASGI send), or None when the server is not running it."""
    proto = getattr(raw_send, "__self__", None)
    if isinstance(proto, DetachableProtocol):
        return proto.detach(serve)
    return None
