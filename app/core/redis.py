"""Redis client factory.

* ``memory://``: an in-process fakeredis with Lua (the embedded default).
* ``redis://`` / ``rediss://``: one server, through a blocking pool.
* ``redis+cluster://HOST:PORT[,HOST:PORT...]`` (or ``rediss+cluster://``): a Redis
  Cluster through redis-py's asyncio ``RedisCluster`` (the nodes given are only where it
  starts; it discovers the rest). Every key of a table shares its ``{t:ID}`` hash tag,
  so its scripts run on one shard (app/tables/storage/store.py).

With hiredis installed (a dependency) redis-py parses replies and pub/sub messages in C.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast
from urllib.parse import unquote, urlsplit

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")


class BlockingRedisCluster(RedisCluster):
    """A cluster client that waits for a free connection under bursts, as the blocking
    pool does on one server: redis-py's cluster pools raise MaxConnectionsError instead.
    At most ``max_connections`` commands are in flight, so no node's pool exceeds it."""

    def __init__(self, *args: Any, pool_timeout: float = 5.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._gate = asyncio.Semaphore(kwargs.get("max_connections", 100))
        self._pool_timeout = pool_timeout

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        try:
            async with asyncio.timeout(self._pool_timeout):
                await self._gate.acquire()
        except TimeoutError:
            raise RedisConnectionError("No connection available.") from None
        try:
            return await super().execute_command(*args, **kwargs)
        finally:
            self._gate.release()


def as_text(value: Any) -> str:
    """A reply as text: clients may be built with or without ``decode_responses``."""
    return value.decode() if isinstance(value, bytes) else str(value)


def is_cluster_url(url: str) -> bool:
    return url.split("://", 1)[0] in CLUSTER_SCHEMES


def cluster_client(url: str, max_connections: int, timeout: float) -> BlockingRedisCluster:
    parts = urlsplit(url)
    nodes = []
    for hostport in parts.netloc.rsplit("@", 1)[-1].split(","):
        host, _, port = hostport.rpartition(":")
        nodes.append(ClusterNode(host or "127.0.0.1", int(port or 6379)))
    return BlockingRedisCluster(
        startup_nodes=nodes,
        decode_responses=True,
        max_connections=max_connections,
        pool_timeout=timeout,
        ssl=parts.scheme.startswith("rediss"),
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


def create_redis(url: str, *, max_connections: int = 64, timeout: float = 5.0) -> Redis:
    if url.startswith("memory://"):
        import fakeredis  # imported lazily: production never needs it loaded

        # A private server per client: two apps in one process (tests) never share data.
        fake: Redis = fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer(), decode_responses=True)
        return fake
    if is_cluster_url(url):
        # Typed as Redis: the app calls only commands both clients share.
        cluster: Redis = cast(Redis, cluster_client(url, max_connections, timeout))
        return cluster
    # A blocking pool waits for a free connection under bursts instead of raising
    # MaxConnectionsError as the default pool does.
    pool = BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=timeout, decode_responses=True
    )
    return Redis(connection_pool=pool)


async def close_redis(client: Redis) -> None:
    lines = client.__dict__.get("_buraco_lines")  # app/core/redisline.py
    if lines is not None:
        await lines.close()
    await client.aclose()
