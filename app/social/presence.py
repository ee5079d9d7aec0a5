"""Who is online (kept by the WebSocket layer) and who may see whose chat.

``presence:online`` is a sorted set: member = user id, score = last-seen unix time,
split into hash-tagged buckets by user (``app/core/buckets.py``: one key on a single
server by default, 16 on a cluster, ``redis_buckets`` to choose), so that on a cluster
the writes of every socket's hello and ping do not all land on one shard. Members
older than the online window are pruned when the list is read, so the set does not
keep every player who was ever online.
``chat:hidden:{user_id}`` is a set of the ids whose chat ``user_id`` must not receive
(both directions of every block); the chat relay checks it per viewer with
``may_see`` so blocked players never reach each other live either.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.buckets import bucket_count, bucket_key, bucket_keys
from app.social.friends import hidden_ids

PRESENCE_KEY = "presence:online"
ONLINE_WINDOW_SECONDS = 120


def hidden_key(user_id: int) -> str:
    return f"chat:hidden:{user_id}"


def presence_key(redis: Redis, user_id: int, buckets: int = 0) -> str:
    """The key of the bucket that holds ``user_id``."""
    return bucket_key(PRESENCE_KEY, str(user_id), bucket_count(redis, buckets))


async def mark_online(redis: Redis, user_id: int, buckets: int = 0) -> None:
    """The user's socket said hello or pinged: seen now."""
    await redis.zadd(presence_key(redis, user_id, buckets), {str(user_id): time.time()})


async def online_ids(redis: Redis, buckets: int = 0, now: float | None = None) -> list[int]:
    since = (now or time.time()) - ONLINE_WINDOW_SECONDS

    async def read(key: str) -> list[Any]:
        # one round trip per bucket: prune the members gone for good, read the rest
        async with redis.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(key, "-inf", f"({since}")
            pipe.zrangebyscore(key, since, "+inf")
            _, members = await pipe.execute()
        return list(members)

    keys = bucket_keys(PRESENCE_KEY, bucket_count(redis, buckets))
    found = await asyncio.gather(*(read(k) for k in keys))  # the buckets at once
    return [int(str(m)) for members in found for m in members if str(m).isdigit()]


async def is_online(redis: Redis, user_id: int, buckets: int = 0, now: float | None = None) -> bool:
    score = await redis.zscore(presence_key(redis, user_id, buckets), str(user_id))
    return score is not None and score >= (now or time.time()) - ONLINE_WINDOW_SECONDS


async def may_see(redis: Redis, viewer_id: int, author_id: int) -> bool:
    return not await redis.sismember(hidden_key(viewer_id), str(author_id))


async def sync_hidden(db: AsyncSession, redis: Redis, *user_ids: int) -> None:
    """Rewrite the hidden sets of these users from Postgres (after a block changed)."""
    try:
        for user_id in user_ids:
            hidden = await hidden_ids(db, user_id)
            async with redis.pipeline(transaction=True) as pipe:
                pipe.delete(hidden_key(user_id))
                if hidden:
                    pipe.sadd(hidden_key(user_id), *[str(h) for h in hidden])
                await pipe.execute()
    except RedisError:
        pass  # the REST history still filters from Postgres
