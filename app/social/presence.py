"""Who is online (kept by the WebSocket layer) and who may see whose chat.

``presence:online`` is a sorted set: member = user id, score = last-seen unix time.
``chat:hidden:{user_id}`` is a set of the ids whose chat ``user_id`` must not receive
(both directions of every block); the chat relay checks it per viewer with
``may_see`` so blocked players never reach each other live either.
"""

from __future__ import annotations

import time

from redis.asyncio import Redis
from redis.exceptions import RedisError
from sqlalchemy.ext.asyncio import AsyncSession

from app.social.friends import hidden_ids

PRESENCE_KEY = "presence:online"
ONLINE_WINDOW_SECONDS = 120


def hidden_key(user_id: int) -> str:
    return f"chat:hidden:{user_id}"


async def online_ids(redis: Redis, now: float | None = None) -> list[int]:
    since = (now or time.time()) - ONLINE_WINDOW_SECONDS
    members = await redis.zrangebyscore(PRESENCE_KEY, since, "+inf")
    return [int(str(m)) for m in members if str(m).isdigit()]


async def is_online(redis: Redis, user_id: int, now: float | None = None) -> bool:
    score = await redis.zscore(PRESENCE_KEY, str(user_id))
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
