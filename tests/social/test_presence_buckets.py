"""Who is online, split into hash-tagged buckets (app/social/presence.py,
app/core/buckets.py): on a cluster no shard takes every socket's hello and ping. Real
Redis; the lists and profiles read every bucket, and stale members are pruned."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis

from app.core.buckets import bucket_keys
from app.core.redis import create_redis
from app.social import presence
from tests.economy.helpers import client_for, new_users

Clients = Callable[[], httpx.AsyncClient]


async def _presence_keys(r: Redis) -> set[str]:
    return {str(k) async for k in r.scan_iter(match=f"{presence.PRESENCE_KEY}*")}


async def test_members_spread_over_the_buckets_and_are_all_listed(redis_url: str) -> None:
    r = create_redis(redis_url)
    try:
        await r.delete(*bucket_keys(presence.PRESENCE_KEY, 4), presence.PRESENCE_KEY)
        users = list(range(9001, 9041))
        for u in users:
            await presence.mark_online(r, u, buckets=4)
        keys = await _presence_keys(r)
        assert keys <= set(bucket_keys(presence.PRESENCE_KEY, 4)) and len(keys) == 4
        # each member lives in its own bucket only, and the tags differ per bucket
        assert sum([await r.zcard(k) for k in keys]) == len(users)
        assert len({k.split("{")[1] for k in keys}) == 4
        assert sorted(await presence.online_ids(r, buckets=4)) == users
        assert all([await presence.is_online(r, u, buckets=4) for u in users])
        assert not await presence.is_online(r, 9999, buckets=4)
    finally:
        await r.aclose()


async def test_one_bucket_is_the_plain_key(redis_url: str) -> None:
    r = create_redis(redis_url)
    try:
        await r.delete(presence.PRESENCE_KEY)
        await presence.mark_online(r, 77)
        assert await r.zscore(presence.PRESENCE_KEY, "77") is not None
        assert presence.presence_key(r, 77) == presence.PRESENCE_KEY
    finally:
        await r.aclose()


async def test_members_gone_for_longer_than_the_window_are_pruned(redis_url: str) -> None:
    r = create_redis(redis_url)
    try:
        await r.delete(*bucket_keys(presence.PRESENCE_KEY, 4))
        old = time.time() - presence.ONLINE_WINDOW_SECONDS - 60
        await r.zadd(presence.presence_key(r, 5, 4), {"5": old})
        await presence.mark_online(r, 6, buckets=4)
        assert await presence.online_ids(r, buckets=4) == [6]
        assert await r.zscore(presence.presence_key(r, 5, 4), "5") is None  # pruned
        assert not await presence.is_online(r, 5, buckets=4)
    finally:
        await r.aclose()


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"redis_buckets": 4}


async def test_the_online_list_and_profiles_read_every_bucket(
    app: FastAPI, make_client: Clients
) -> None:
    users = await new_users(app.state.sessionmaker, 6)
    me = await client_for(app, make_client, users[0])
    for u in users[1:]:
        await presence.mark_online(app.state.redis, u, buckets=4)
    assert len(await _presence_keys(app.state.redis)) > 1  # really spread
    listed = {p["user_id"] for p in (await me.get("/api/players/online")).json()}
    assert listed == set(users)
    for u in users[1:]:
        assert (await me.get(f"/api/profiles/{u}")).json()["online"] is True
