"""Start-up check: can the Redis we talk to lose live tables?

Live tables exist only in Redis (coins never do). A Redis that may evict keys under
memory pressure, or that keeps nothing on disk, loses tables mid-game; the reconciler
then refunds their stakes (docs/economy.md), but the games are gone. So the server says
so at start-up, once, as a WARNING. The deployment's own Redis (docker-compose.yml) runs
with ``appendonly yes``, ``appendfsync everysec`` and ``maxmemory-policy noeviction``.
"""

from __future__ import annotations

import logging
from typing import Any

from app.core.config import Settings
from app.core.redis import as_text

log = logging.getLogger("app.redis")


async def redis_durability_problems(redis: Any) -> list[str]:
    """What could make this Redis lose keys (empty: nothing found)."""
    config = await redis.config_get("*")
    policy = as_text(config.get("maxmemory-policy", b"noeviction"))
    aof = as_text(config.get("appendonly", b"no"))
    save = as_text(config.get("save", b"")).strip()
    problems = []
    if policy != "noeviction":
        problems.append(
            f"maxmemory-policy is {policy!r}: under memory pressure Redis "
            "may evict live tables (set maxmemory-policy noeviction)"
        )
    if aof != "yes" and not save:
        problems.append(
            "neither appendonly nor RDB snapshots are on: a Redis restart "
            "loses every live table (set appendonly yes)"
        )
    elif aof != "yes":
        problems.append(
            "appendonly is off: a Redis restart loses what changed since the "
            "last RDB snapshot (set appendonly yes, appendfsync everysec)"
        )
    return problems


async def warn_if_redis_volatile(redis: Any, settings: Settings) -> list[str]:
    """Log one WARNING per problem found; never fails the start-up (an unreachable
    Redis is /readyz's to report, and managed Redis services may refuse CONFIG)."""
    if settings.uses_embedded_redis:
        return []  # in-process: lost with the process anyway, by design
    try:
        problems = await redis_durability_problems(redis)
    except Exception as exc:
        log.warning(
            "could not check Redis persistence and eviction settings (%s: %s); "
            "make sure it runs with appendonly yes and maxmemory-policy noeviction",
            type(exc).__name__,
            exc,
        )
        return []
    for problem in problems:
        log.warning("Redis may lose live tables: %s", problem)
    return problems
