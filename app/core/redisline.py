"""One pipelined Redis connection for the hottest command: a move's commit.

redis-py spends about 340k instructions of client CPU on one EVALSHA round trip (its
connection pool and condition, the command's parsing, retries, the stream reader), which
was a quarter of a move's whole cost on two processes
(docs/decisions/0012-hot-redis-paths-without-redis-py.md). This line is what that round
trip needs and nothing else: one TCP connection per process, each command packed by
hiredis and written at once, the replies parsed by hiredis as they arrive and handed to
the waiting commands in order (Redis answers in order). Commands in flight together
simply pipeline; Redis runs them one by one anyway. Each is written at
once: holding a loop turn's commands for one write (a ``call_soon`` flush) saved about
a tenth of a busy process's write calls but held every commit of the turn until the
turn's other work was done, which doubled the median latency at 2,000 tables
(docs/decisions/0012-hot-redis-paths-without-redis-py.md).

Failures look like redis-py's, so callers handle them as before: a connection that
cannot be made, is lost, or leaves a command unanswered for ``timeout`` seconds fails
every command in flight with ``redis.exceptions.ConnectionError`` (or ``TimeoutError``)
and the next command connects again; an error reply raises ``ResponseError``
(``NoScriptError`` for NOSCRIPT). Whether a command that failed with the connection was
run is unknown, as with any client: the commit carries its command id, so a retry is
refused as a duplicate rather than applied twice.

For plain TCP: one line to a ``redis://`` server, or one per node of a cluster, the
commit going to the node of its table's slot as redis-py's map of slots says (a
redirection, MOVED or ASK, means the command was not run there: redis-py then serves it
and learns the new map). TLS, a Unix socket and the embedded fakeredis keep using
redis-py (``lines_for`` says None).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from typing import Any

import hiredis
from redis.asyncio import Redis, RedisCluster
from redis.asyncio.connection import Connection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

WATCH_SECONDS = 0.5  # how often a stalled reply is looked for


class _Wire(asyncio.Protocol):
    def __init__(self, line: RedisLine) -> None:
        self.line = line
        self.reader = hiredis.Reader(replyError=ResponseError, encoding="utf-8")
        self.transport: asyncio.Transport | None = None
        # (future, when it was written) of every command not answered yet, in order
        self.waiting: collections.deque[tuple[asyncio.Future[Any], float]] = collections.deque()
        self.closed = False
        # Looked up once: in Python 3.11 every get_running_loop() is a getpid() call.
        self.loop = asyncio.get_running_loop()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        reader, waiting = self.reader, self.waiting
        try:
            reader.feed(data)
            while (reply := reader.gets()) is not False:
                if not waiting:  # an answer nobody asked for: the stream is broken
                    raise RedisConnectionError("Redis sent an unexpected reply.")
                future, _ = waiting.popleft()
                if future.done():
                    continue
                if isinstance(reply, ResponseError):
                    text = str(reply)
                    future.set_exception(
                        NoScriptError(text) if text.startswith("NOSCRIPT") else reply
                    )
                else:
                    future.set_result(reply)
        except Exception as exc:  # hiredis.ProtocolError or the above
            self.fail(RedisConnectionError(f"Redis protocol error: {exc}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(RedisConnectionError("Connection to Redis lost."))

    def fail(self, error: Exception) -> None:
        """Close, and fail every command in flight with ``error``."""
        self.closed = True
        self.line.forget(self)
        if self.transport is not None:
            self.transport.abort()
        while self.waiting:
            future, _ = self.waiting.popleft()
            if not future.done():
                future.set_exception(error)


class RedisLine:
    def __init__(
        self,
        host: str,
        port: int,
        *,
        db: int = 0,
        username: str | None = None,
        password: str | None = None,
        timeout: float = 5.0,
    ) -> None:
        self.host, self.port, self.db = host, port, db
        self.username, self.password = username, password
        self.timeout = timeout
        self._wire: _Wire | None = None
        self._connecting: asyncio.Future[_Wire] | None = None
        self._watch: asyncio.TimerHandle | None = None
        self._closed = False

    async def execute(self, *args: Any) -> Any:
        wire = self._wire
        if wire is None or wire.closed:
            wire = await self._connect()
        if wire.closed or wire.transport is None:
            raise RedisConnectionError("Connection to Redis lost.")
        loop = wire.loop
        future: asyncio.Future[Any] = loop.create_future()
        wire.waiting.append((future, loop.time()))
        wire.transport.write(hiredis.pack_command(args))
        return await future

    async def evalsha(self, sha: str, script: str, keys: list[Any], args: list[Any]) -> Any:
        """EVALSHA, or EVAL when the server does not know the script yet (it then keeps
        it, so this happens once per server start)."""
        try:
            return await self.execute("EVALSHA", sha, len(keys), *keys, *args)
        except NoScriptError:
            return await self.execute("EVAL", script, len(keys), *keys, *args)

    def forget(self, wire: _Wire) -> None:
        if self._wire is wire:
            self._wire = None

    async def _connect(self) -> _Wire:
        if self._closed:
            raise RedisConnectionError("The Redis line is closed.")
        if self._connecting is not None and self._connecting.done():
            self._connecting = None  # an earlier attempt's outcome: try again
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._open())
        connecting = self._connecting
        try:
            return await asyncio.shield(connecting)
        finally:
            if connecting.done() and self._connecting is connecting:
                self._connecting = None

    async def _open(self) -> _Wire:
        loop = asyncio.get_running_loop()
        try:
            _, wire = await asyncio.wait_for(
                loop.create_connection(lambda: _Wire(self), self.host, self.port), self.timeout
            )
        except TimeoutError as exc:
            raise RedisTimeoutError(f"Timeout connecting to {self.host}:{self.port}.") from exc
        except OSError as exc:
            raise RedisConnectionError(
                f"Error connecting to {self.host}:{self.port}: {exc}."
            ) from exc
        if self.password is not None or self.db:
            self._wire = wire  # so that the hand-shake commands below can be sent
            try:
                if self.password is not None:
                    auth = (self.username, self.password) if self.username else (self.password,)
                    await self.execute("AUTH", *auth)
                if self.db:
                    await self.execute("SELECT", self.db)
            except ResponseError as exc:
                wire.fail(RedisConnectionError(f"Redis refused the connection: {exc}"))
                raise RedisConnectionError(f"Redis refused the connection: {exc}") from exc
        self._wire = wire
        if self._watch is None:
            self._watch = loop.call_later(WATCH_SECONDS, self._look)
        return wire

    def _look(self) -> None:
        """A reply overdue by ``timeout``: the server or the network hangs. Everything in
        flight fails (as a time-out) and the next command connects again."""
        self._watch = None
        wire = self._wire
        if wire is None or self._closed:
            return
        loop = asyncio.get_running_loop()
        if wire.waiting and loop.time() - wire.waiting[0][1] > self.timeout:
            wire.fail(RedisTimeoutError("Timeout reading from Redis."))
        self._watch = loop.call_later(WATCH_SECONDS, self._look)

    async def close(self) -> None:
        self._closed = True
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        if self._connecting is not None:
            self._connecting.cancel()
            with contextlib.suppress(BaseException):
                await self._connecting
        if self._wire is not None:
            self._wire.fail(RedisConnectionError("The Redis line is closed."))


class Lines:
    """The lines of one client: one to a plain server, one per node of a cluster."""

    def __init__(self, client: Any, single: RedisLine | None = None) -> None:
        self.client = client
        self.single = single
        self.by_node: dict[tuple[str, int], RedisLine] = {}
        kw = getattr(getattr(client, "nodes_manager", None), "connection_kwargs", {}) or {}
        self.username, self.password = kw.get("username"), kw.get("password")
        self.timeout = float(getattr(client, "_pool_timeout", 5.0) or 5.0)

    def for_key(self, key: str) -> RedisLine | None:
        """The line to the server holding ``key``; None when a cluster's map of slots is
        not known yet (redis-py, which learns it, then serves the command)."""
        if self.single is not None:
            return self.single
        try:
            node = self.client.get_node_from_key(key)
        except Exception:
            return None
        if node is None:
            return None
        at = (str(node.host), int(node.port))
        line = self.by_node.get(at)
        if line is None:
            line = self.by_node[at] = RedisLine(
                at[0], at[1], username=self.username, password=self.password, timeout=self.timeout
            )
        return line

    async def close(self) -> None:
        for line in [*([self.single] if self.single else []), *self.by_node.values()]:
            await line.close()


def redirected(exc: ResponseError) -> bool:
    """A cluster's answer that the command was not run here (the slot moved, is moving,
    or the cluster is not serving it): redis-py follows it and refreshes its map."""
    return str(exc).startswith(("MOVED", "ASK", "TRYAGAIN", "CLUSTERDOWN"))


def lines_for(client: Any) -> Lines | None:
    """The lines of ``client`` (one set per client, closed by
    ``app.core.redis.close_redis``) when it speaks plain TCP to a server or a cluster,
    else None (TLS, a Unix socket, the embedded fakeredis)."""
    lines: Lines | None = client.__dict__.get("_buraco_lines")
    if lines is not None:
        return lines
    if type(client) is Redis:
        pool = client.connection_pool
        if pool.connection_class is not Connection:
            return None  # TLS or a Unix socket
        kw = pool.connection_kwargs
        single = RedisLine(
            str(kw.get("host", "localhost")),
            int(kw.get("port", 6379)),
            db=int(kw.get("db", 0) or 0),
            username=kw.get("username"),
            password=kw.get("password"),
            # as long as a command may wait for a pooled connection, plus its answer
            timeout=float(kw.get("socket_timeout") or getattr(pool, "timeout", None) or 5.0),
        )
        lines = Lines(client, single)
    elif isinstance(client, RedisCluster):
        kw = client.nodes_manager.connection_kwargs
        if kw.get("connection_class", Connection) is not Connection or kw.get("ssl"):
            return None  # TLS
        lines = Lines(client)
    else:
        return None  # the embedded fakeredis
    client.__dict__["_buraco_lines"] = lines
    return lines
