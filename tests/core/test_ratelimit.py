from redis.asyncio import Redis

from app.core.ratelimit import hit
from app.core.redis import create_redis


async def _check_window(client: Redis) -> None:
    verdicts = [await hit(client, "rl:test", limit=3, window_seconds=60) for _ in range(5)]
    assert [v.allowed for v in verdicts] == [True, True, True, False, False]
    assert [v.count for v in verdicts] == [1, 2, 3, 4, 5]
    assert all(1 <= v.retry_after <= 60 for v in verdicts)
    # Another key has its own window.
    assert (await hit(client, "rl:other", limit=3, window_seconds=60)).allowed
    # When the window ends the counter starts over.
    await client.pexpire("rl:test", 1)
    await client.delete("rl:test")
    assert (await hit(client, "rl:test", limit=3, window_seconds=60)).count == 1


async def test_fixed_window_on_embedded_redis() -> None:
    client = create_redis("memory://")
    try:
        await _check_window(client)
    finally:
        await client.aclose()


async def test_fixed_window_on_real_redis(redis_url: str) -> None:
    client = create_redis(redis_url)
    try:
        await client.flushdb()
        await _check_window(client)
    finally:
        await client.aclose()


async def test_embedded_redis_instances_do_not_share_data() -> None:
    a, b = create_redis("memory://"), create_redis("memory://")
    try:
        await a.set("k", "1")
        assert await b.get("k") is None
    finally:
        await a.aclose()
        await b.aclose()
