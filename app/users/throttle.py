"""Login limits that slow guessing without letting a stranger lock the owner out.

* per client address: ``login_limit_per_ip`` attempts per window, whatever the username;
* per (username, address): ``login_limit_per_user_ip`` attempts per window (tight);
* per username, from addresses this account has never signed in from:
  ``login_limit_per_username`` attempts per window (loose). Each time it trips, that
  username is closed to unknown addresses for window × 2^(trips − 1), capped at
  ``login_backoff_max_seconds`` (the backoff). Addresses the owner has signed in from
  (kept 30 days) are never held by it.

Attempts are counted before the password is checked (atomic in Redis, so parallel
guesses cannot all slip under a limit); a success clears the (username, address)
counter and remembers the address. Numbers: docs/security.md.
"""

from __future__ import annotations

from redis.asyncio import Redis

from app.core import ratelimit
from app.core.config import Settings
from app.core.errors import AppError

KNOWN_DAYS = 30
TRIPS_TTL = 86_400  # trips of the username limit remembered for a day


def _keys(username: str, ip: str) -> dict[str, str]:
    user = username.lower()
    return {
        "ip": f"rl:login:ip:{ip}",
        "user_ip": f"rl:login:uip:{user}:{ip}",
        "user": f"rl:login:user:{user}",
        "block": f"rl:login:block:{user}",
        "trips": f"rl:login:trips:{user}",
        "known": f"login:known:{user}",
    }


def refused(what: str, retry_after: int) -> AppError:
    return AppError(
        "rate_limited",
        f"Too many {what}. Try again in {retry_after} seconds.",
        429,
        headers={"Retry-After": str(retry_after)},
    )


async def check_login(redis: Redis, settings: Settings, username: str, ip: str) -> None:
    """Count one attempt; raise 429 when one of the limits is over."""
    keys = _keys(username, ip)
    window = settings.login_window_seconds
    for key, limit in (
        (keys["ip"], settings.login_limit_per_ip),
        (keys["user_ip"], settings.login_limit_per_user_ip),
    ):
        verdict = await ratelimit.hit(redis, key, limit, window)
        if not verdict.allowed:
            raise refused("login attempts", verdict.retry_after)
    if await redis.sismember(keys["known"], ip):
        return
    blocked_ms = int(await redis.pttl(keys["block"]))
    if blocked_ms > 0:
        raise refused("login attempts for this account", max(1, blocked_ms // 1000))
    verdict = await ratelimit.hit(redis, keys["user"], settings.login_limit_per_username, window)
    if not verdict.allowed:
        trips = int(await redis.incr(keys["trips"]))
        await redis.expire(keys["trips"], TRIPS_TTL)
        block = min(window * 2 ** (trips - 1), settings.login_backoff_max_seconds)
        await redis.set(keys["block"], "1", ex=block)
        await redis.delete(keys["user"])
        raise refused("login attempts for this account", block)


async def login_succeeded(redis: Redis, username: str, ip: str) -> None:
    keys = _keys(username, ip)
    await redis.delete(keys["user_ip"])
    if await redis.sadd(keys["known"], ip) and int(await redis.get(keys["user"]) or 0) > 0:
        await redis.decr(keys["user"])  # the owner's own attempt was counted: take it back
    await redis.expire(keys["known"], KNOWN_DAYS * 86_400)
