"""Redis client factory: ``memory://`` means an in-process fakeredis with Lua."""

from __future__ import annotations

from redis.asyncio import BlockingConnectionPool, Redis


def create_redis(url: str, *, max_connections: int = 64, timeout: float = 5.0) -> Redis:
    if url.startswith("memory://"):
        import fakeredis  # imported lazily: production never needs it loaded

        # A private server per client: two apps in one process (tests) never share data.
        fake: Redis = fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer(), decode_responses=True)
        return fake
    # A blocking pool waits for a free connection under bursts instead of raising
    # MaxConnectionsError as the default pool does.
    pool = BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=timeout, decode_responses=True
    )
    return Redis(connection_pool=pool)


async def close_redis(client: Redis) -> None:
    await client.aclose()
