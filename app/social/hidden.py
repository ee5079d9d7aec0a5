"""The live chat filter survives a Redis flush or an empty restart.

``chat:hidden:{viewer}`` (app/social/presence.py) is what the socket relay checks before
it passes a chat message or an emote to a viewer. It is a copy of Postgres's blocks, and
Redis may lose it: a blocked player's chat and emotes would reach the other again. Two
things restore it from Postgres:

* ``before_publish``: a chat message's or an emote's author is put back into the set of
  everyone they block or are blocked by, before it is published, so neither can pass a
  block whenever Redis lost the sets.
* ``HiddenKeeper``: every process checks the marker ``chat:hidden:ready`` every
  ``hidden_check_seconds`` (one EXISTS); when it is gone (flushed, or a fresh Redis)
  every block is read from Postgres and put back, then the marker. That covers any
  other message on a chat channel.

Restoring only adds (SADD): a restore that read Postgres just before a new block was
made cannot drop the block's entries, which ``sync_hidden`` wrote; at worst an entry of
a block just undone stays until that pair's next change (hiding, never leaking).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from redis.asyncio import Redis
from redis.exceptions import RedisError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.tasks import cancel_and_wait
from app.social.friends import hidden_ids
from app.social.models import Block
from app.social.presence import hidden_key

log = logging.getLogger("app.social.hidden")

READY_KEY = "chat:hidden:ready"
BATCH = 5_000  # block pairs per Redis round trip


async def before_publish(db: AsyncSession, redis: Redis, author_id: int) -> None:
    """Put the author back into the hidden set of each player on the other side of one
    of their blocks (a no-op when nothing was lost)."""
    partners = await hidden_ids(db, author_id)
    if not partners:
        return
    try:
        async with redis.pipeline(transaction=False) as pipe:
            for partner in sorted(partners):
                pipe.sadd(hidden_key(partner), str(author_id))
            await pipe.execute()
    except RedisError:
        pass  # then the publish fails too: nothing reaches anyone


async def restore_all(maker: async_sessionmaker[AsyncSession], redis: Redis) -> int:
    """Every block back into both players' sets, then the marker. Returns the pairs."""
    async with maker() as db:
        pairs = (await db.execute(select(Block.blocker_id, Block.blocked_id))).all()
    for start in range(0, len(pairs), BATCH):
        async with redis.pipeline(transaction=False) as pipe:
            for blocker, blocked in pairs[start : start + BATCH]:
                pipe.sadd(hidden_key(blocker), str(blocked))
                pipe.sadd(hidden_key(blocked), str(blocker))
            await pipe.execute()
    await redis.set(READY_KEY, "1")
    return len(pairs)


async def restore_if_lost(maker: async_sessionmaker[AsyncSession], redis: Redis) -> bool:
    """One check: True when the marker was gone and the sets were restored."""
    if await redis.exists(READY_KEY):
        return False
    pairs = await restore_all(maker, redis)
    log.warning("chat filter restored from Postgres after Redis lost it: %d blocks", pairs)
    return True


class HiddenKeeper:
    def __init__(
        self, maker: async_sessionmaker[AsyncSession], redis: Redis, interval: float
    ) -> None:
        self.maker, self.redis, self.interval = maker, redis, interval
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        with contextlib.suppress(Exception):  # Redis or Postgres down: the loop retries
            await restore_if_lost(self.maker, self.redis)
        self.task = asyncio.create_task(self._loop(), name="hidden-keeper")

    async def stop(self) -> None:
        await cancel_and_wait(self.task)

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await restore_if_lost(self.maker, self.redis)
            except Exception:  # a store not answering: try again next time
                log.warning("chat filter check failed", exc_info=True)
