"""A lean pub/sub subscriber: the hub's reading of table messages without redis-py.

Every move's message reaches each process that watches the table, so reading pub/sub is
as hot as the commit itself. Through redis-py each message paid for a reader task's
wake-up, ``get_message``'s bookkeeping and, on a cluster, a timer per read (its sharded
reads need a time-out; docs/decisions/0012-hot-redis-paths-without-redis-py.md has the
measurements). Here a message is parsed by hiredis as the bytes arrive and handed to
``on_message`` in the same call, on the connection's own protocol callback, with no task
and no timer.

One connection per Redis server: one to a ``redis://`` server; on a cluster one per
primary that holds a watched channel's slot. A sharded channel (SSUBSCRIBE) lives on
its slot's node; a classic one is subscribed on its slot's node too (a classic PUBLISH
reaches every node of a cluster, so any node would do, and this spreads them).

Subscribing and unsubscribing are written at once and not waited for (as with redis-py),
except for opening a connection. Redis answers every command of a subscribed connection
in order, one reply per channel named, so the replies are matched to what was sent; a
refusal of a subscription (a cluster's MOVED while the slot map is stale) re-places the
channel after refreshing the map.

A lost connection loses the messages sent meanwhile (pub/sub is at most once): its
channels are handed to ``on_lost`` (the hub forgets those tables' cached states, which
are then loaded from Redis when next needed) and subscribed again, on a new connection to the node
their slot is on now, retrying until Redis answers. A slot moved away from a node makes
the server end its shard channels' subscriptions there (a SUNSUBSCRIBE nobody asked
for); those are placed again the same way. A connection silent for
``KEEPALIVE_SECONDS`` is pinged, and one that leaves a reply unanswered for ``timeout``
is closed as hung.

For plain TCP only; TLS, a Unix socket and the embedded fakeredis keep redis-py's
pub/sub (``Subscriber.for_client`` says None).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import hiredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.core.redisline import lines_for

log = logging.getLogger("app.core.redissub")

KEEPALIVE_SECONDS = 10.0  # a connection silent this long is pinged
WATCH_SECONDS = 1.0  # how often each connection looks for a hung reply
RETRY_SECONDS = (0.05, 1.0)  # first and longest wait between attempts to subscribe again

Node = tuple[str, int]
OnMessage = Callable[[str, str], None]  # (channel, data)
OnLost = Callable[[set[str]], None]  # channels whose messages may have been lost

# the reply each command gets, per channel named
_REPLY = {
    "SUBSCRIBE": "subscribe",
    "UNSUBSCRIBE": "unsubscribe",
    "SSUBSCRIBE": "ssubscribe",
    "SUNSUBSCRIBE": "sunsubscribe",
    "PING": "pong",
    "AUTH": "ok",
}


class _Conn(asyncio.Protocol):
    """One subscribed connection to one node; dead for good once lost."""

    def __init__(self, owner: Subscriber, node: Node) -> None:
        self.owner, self.node = owner, node
        self.reader = hiredis.Reader(replyError=ResponseError, encoding="utf-8", errors="replace")
        self.transport: asyncio.Transport | None = None
        self.loop = asyncio.get_running_loop()
        # what was sent and not answered yet: (reply kind, channel, when, future or None)
        self.sent: collections.deque[tuple[str, str, float, asyncio.Future[Any] | None]] = (
            collections.deque()
        )
        self.homed: set[str] = set()  # channels subscribed here
        self.closed = False
        self.heard = self.loop.time()
        self._watch: asyncio.TimerHandle | None = None

    # -- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self._watch = self.loop.call_later(WATCH_SECONDS, self._look)

    def data_received(self, data: bytes) -> None:
        reader, on_message = self.reader, self.owner.on_message
        self.heard = self.loop.time()
        try:
            reader.feed(data)
            while (reply := reader.gets()) is not False:
                if type(reply) is list and reply[0] in ("message", "smessage"):
                    try:
                        on_message(reply[1], reply[2])
                    except Exception:  # one listener's fault must not close the link
                        log.exception("a pub/sub message on %s failed", reply[1])
                    continue
                self._answer(reply)
        except Exception as exc:  # hiredis.ProtocolError, or replies out of step
            self.fail(RedisConnectionError(f"Redis pub/sub protocol error: {exc}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(RedisConnectionError("Connection to Redis lost."))

    # -- replies

    def _answer(self, reply: Any) -> None:
        if isinstance(reply, ResponseError):
            if not self.sent:
                raise RedisConnectionError(f"unexpected error reply: {reply}")
            kind, channel, _, future = self.sent.popleft()
            if future is not None and not future.done():
                future.set_exception(reply)
            if kind in ("subscribe", "ssubscribe"):
                self.owner._refused(self, channel, reply)
            return
        if type(reply) is list:
            kind, channel = str(reply[0]), str(reply[1]) if len(reply) > 1 else ""
            if kind == "pong":
                channel = ""
        else:  # a plain reply: +OK to AUTH, +PONG while nothing is subscribed
            kind, channel = str(reply).lower(), ""
        head = self.sent[0] if self.sent else None
        if head is not None and head[0] == kind and head[1] == channel:
            self.sent.popleft()
            if head[3] is not None and not head[3].done():
                head[3].set_result(reply)
            return
        if kind == "sunsubscribe":  # the server's own: the slot left this node
            self.owner._moved(self, channel)
            return
        raise RedisConnectionError(f"reply {kind} {channel!r} out of step")

    # -- commands

    def send(self, command: str, channel: str = "", *more: Any) -> asyncio.Future[Any] | None:
        """Write one command naming at most one channel; its reply is matched later.
        Returns a future of the reply for AUTH (the only one waited for)."""
        assert self.transport is not None
        future = self.loop.create_future() if command == "AUTH" else None
        args = (command, *more) if command in ("AUTH", "PING") else (command, channel)
        self.sent.append((_REPLY[command], channel, self.loop.time(), future))
        self.transport.write(hiredis.pack_command(args))
        return future

    def _look(self) -> None:
        self._watch = None
        if self.closed:
            return
        now = self.loop.time()
        if self.sent and now - self.sent[0][2] > self.owner.timeout:
            self.fail(RedisTimeoutError("Timeout reading from Redis pub/sub."))
            return
        if not self.sent and now - self.heard > KEEPALIVE_SECONDS:
            self.send("PING")
        self._watch = self.loop.call_later(WATCH_SECONDS, self._look)

    def fail(self, error: Exception) -> None:
        if self.closed:
            return
        self.closed = True
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        if self.transport is not None:
            self.transport.abort()
        while self.sent:
            future = self.sent.popleft()[3]
            if future is not None and not future.done():
                future.set_exception(error)
        self.owner._lost(self)


class Subscriber:
    """Channels wanted by this process, each subscribed on the node it belongs to."""

    def __init__(
        self,
        client: Any,
        on_message: OnMessage,
        on_lost: OnLost | None = None,
        *,
        single: Node | None = None,
        username: str | None = None,
        password: str | None = None,
        timeout: float = 5.0,
    ) -> None:
        self.client = client
        self.cluster = single is None
        self.single = single
        self.on_message = on_message
        self.on_lost = on_lost
        self.username, self.password = username, password
        self.timeout = timeout
        self.wanted: dict[str, bool] = {}  # channel -> sharded
        self.home: dict[str, _Conn] = {}  # channel -> the connection it is subscribed on
        self.conns: dict[Node, _Conn] = {}
        self._opening: dict[Node, asyncio.Future[_Conn]] = {}
        self._orphans: set[str] = set()  # wanted, not subscribed anywhere now
        self._recovery: asyncio.Task[None] | None = None
        self._closed = False

    @classmethod
    def for_client(
        cls, client: Any, on_message: OnMessage, on_lost: OnLost | None = None
    ) -> Subscriber | None:
        """A subscriber for ``client`` when it speaks plain TCP to a server or a
        cluster, else None (TLS, a Unix socket, the embedded fakeredis): the commit's
        lines decide that, and carry the address and credentials."""
        lines = lines_for(client)
        if lines is None:
            return None
        line = lines.single
        if line is not None:
            return cls(
                client,
                on_message,
                on_lost,
                single=(line.host, line.port),
                username=line.username,
                password=line.password,
                timeout=line.timeout,
            )
        return cls(
            client,
            on_message,
            on_lost,
            username=lines.username,
            password=lines.password,
            timeout=lines.timeout,
        )

    # -- the hub's side

    async def subscribe(self, channel: str, *, sharded: bool = False) -> None:
        """Subscribe to ``channel`` (a shard channel when ``sharded``). Returns once the
        command is written; if Redis cannot be reached it is subscribed as soon as it
        can be, in the background."""
        self.wanted[channel] = sharded
        try:
            await self._place(channel)
        except Exception as exc:
            log.warning("pub/sub cannot subscribe to %s yet (%s); retrying", channel, exc)
            self._orphan({channel})

    def unsubscribe(self, channel: str) -> None:
        sharded = self.wanted.pop(channel, None)
        self._orphans.discard(channel)
        conn = self.home.pop(channel, None)
        if conn is not None:
            conn.homed.discard(channel)
            if not conn.closed:  # a closed one's subscriptions went with it
                conn.send("SUNSUBSCRIBE" if sharded else "UNSUBSCRIBE", channel)

    def subscribed(self, channel: str) -> bool:
        conn = self.home.get(channel)
        return conn is not None and not conn.closed

    async def close(self) -> None:
        self._closed = True
        if self._recovery is not None:
            self._recovery.cancel()
            with contextlib.suppress(BaseException):
                await self._recovery
        for opening in list(self._opening.values()):
            opening.cancel()
        for conn in list(self.conns.values()):
            conn.fail(RedisConnectionError("The subscriber is closed."))

    # -- placing channels

    async def _node_for(self, channel: str) -> Node:
        if self.single is not None:
            return self.single
        await self.client.initialize()  # learns the map of slots once; then returns
        node = self.client.get_node_from_key(channel)
        if node is None:
            raise RedisConnectionError(f"No node serves {channel} yet.")
        return (str(node.host), int(node.port))

    async def _place(self, channel: str) -> None:
        node = await self._node_for(channel)
        conn = await self._conn(node)
        sharded = self.wanted.get(channel)
        if sharded is None or self._closed:
            return  # unsubscribed meanwhile
        old = self.home.get(channel)
        if old is conn and not conn.closed:
            return
        if old is not None:
            old.homed.discard(channel)
            if not old.closed:
                old.send("SUNSUBSCRIBE" if sharded else "UNSUBSCRIBE", channel)
        conn.send("SSUBSCRIBE" if sharded else "SUBSCRIBE", channel)
        self.home[channel] = conn
        conn.homed.add(channel)

    async def _conn(self, node: Node) -> _Conn:
        conn = self.conns.get(node)
        if conn is not None and not conn.closed:
            return conn
        opening = self._opening.get(node)
        if opening is None or opening.done():
            opening = self._opening[node] = asyncio.ensure_future(self._open(node))
        try:
            return await asyncio.shield(opening)
        finally:
            if opening.done() and self._opening.get(node) is opening:
                del self._opening[node]

    async def _open(self, node: Node) -> _Conn:
        if self._closed:
            raise RedisConnectionError("The subscriber is closed.")
        loop = asyncio.get_running_loop()
        try:
            _, conn = await asyncio.wait_for(
                loop.create_connection(lambda: _Conn(self, node), node[0], node[1]),
                self.timeout,
            )
        except TimeoutError as exc:
            raise RedisTimeoutError(f"Timeout connecting to {node[0]}:{node[1]}.") from exc
        except OSError as exc:
            raise RedisConnectionError(f"Error connecting to {node[0]}:{node[1]}: {exc}.") from exc
        if self.password is not None:
            auth = (self.username, self.password) if self.username else (self.password,)
            future = conn.send("AUTH", "", *auth)
            assert future is not None
            try:
                await asyncio.wait_for(future, self.timeout)
            except Exception as exc:
                conn.fail(RedisConnectionError(f"Redis refused the connection: {exc}"))
                raise RedisConnectionError(f"Redis refused the connection: {exc}") from exc
        if conn.closed:
            raise RedisConnectionError("Connection to Redis lost.")
        self.conns[node] = conn
        return conn

    # -- when things go wrong

    def _lost(self, conn: _Conn) -> None:
        if self.conns.get(conn.node) is conn:
            del self.conns[conn.node]
        channels = {ch for ch in conn.homed if self.home.get(ch) is conn}
        conn.homed.clear()
        for channel in channels:
            del self.home[channel]
        if self._closed or not channels:
            return
        if self.on_lost is not None:
            try:
                self.on_lost(channels)
            except Exception:
                log.exception("on_lost failed")
        self._orphan(channels)

    def _refused(self, conn: _Conn, channel: str, error: ResponseError) -> None:
        """A subscription refused (MOVED: the map of slots was stale)."""
        log.info("pub/sub subscription to %s refused: %s", channel, error)
        if self.home.get(channel) is conn:
            del self.home[channel]
            conn.homed.discard(channel)
            self._orphan({channel})

    def _moved(self, conn: _Conn, channel: str) -> None:
        """The server ended a shard channel's subscription: its slot left the node."""
        if self.home.get(channel) is conn:
            del self.home[channel]
            conn.homed.discard(channel)
            if self.on_lost is not None:
                with contextlib.suppress(Exception):
                    self.on_lost({channel})
            self._orphan({channel})

    def _orphan(self, channels: set[str]) -> None:
        self._orphans |= {ch for ch in channels if ch in self.wanted}
        if self._orphans and not self._closed and (self._recovery is None or self._recovery.done()):
            self._recovery = asyncio.create_task(self._recover(), name="pubsub-recover")

    async def _recover(self) -> None:
        """Subscribe the orphans again, where their slots are now, until all are."""
        wait, longest = RETRY_SECONDS
        while self._orphans and not self._closed:
            await asyncio.sleep(wait)
            if self.cluster:
                try:  # learn where the slots are now
                    await self.client.nodes_manager.initialize()
                except Exception:
                    wait = min(wait * 2, longest)
                    continue
            try:
                for channel in list(self._orphans):
                    if channel in self.wanted:
                        await self._place(channel)
                    self._orphans.discard(channel)
            except Exception:
                wait = min(wait * 2, longest)
                continue
            wait = RETRY_SECONDS[0]
