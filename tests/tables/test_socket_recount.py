"""Counting a process's sockets again after Redis lost them (sockets.recount), on the
test Redis: the oldest beyond the cap are dropped and told to close, closed and
not-yet-counted sockets are left out, and counting again only tells a socket that has
not closed yet once more."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from types import SimpleNamespace

import orjson
import pytest
import redis.asyncio

from app.tables.live import sockets
from app.tables.storage.store import user_channel


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[redis.asyncio.Redis]:
    r = redis.asyncio.Redis.from_url(redis_url)
    await r.flushdb()
    yield r
    await r.flushdb()
    await r.aclose()


def _conn(user: int, n: int, cap: int = 2, **kw: object) -> SimpleNamespace:
    fields = {"closed": False, "opened_at": 1000.0 + n, "user_id": user, "socket_id": f"s{n}"}
    fields.update(kw)
    return SimpleNamespace(session=SimpleNamespace(max_sockets=cap), **fields)


async def test_recount_keeps_the_newest_within_the_cap_and_evicts_the_rest(
    client: redis.asyncio.Redis,
) -> None:
    pubsub = client.pubsub()
    await pubsub.subscribe(user_channel(7))
    await pubsub.get_message(timeout=1)  # the subscription's own answer
    conns = [_conn(7, n) for n in range(3)]
    conns += [_conn(7, 9, closed=True), _conn(7, 8, opened_at=None), _conn(8, 0, cap=5)]
    evict_s0 = {"type": sockets.CONTROL, "evict": ["s0"]}
    assert await sockets.recount(client, conns) == 2
    assert await client.zrange(sockets.sockets_key(7), 0, -1) == [b"s1", b"s2"]
    assert await client.zrange(sockets.sockets_key(8), 0, -1) == [b"s0"]
    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=2)
    assert message is not None and orjson.loads(message["data"]) == evict_s0
    # Counted again before it closed: told again (closing is idempotent), nothing else.
    assert await sockets.recount(client, conns) == 2
    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=2)
    assert message is not None and orjson.loads(message["data"]) == evict_s0
    conns[0].closed = True
    assert await sockets.recount(client, conns) == 2
    await asyncio.sleep(0.1)
    assert await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.2) is None
    assert await client.zrange(sockets.sockets_key(7), 0, -1) == [b"s1", b"s2"]
    await pubsub.aclose()
