"""The start-up warning about a Redis that could lose live tables (issue 11, item 7),
against the real test Redis with its settings changed for the test and put back."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest
import redis.asyncio

from app.core.config import Settings
from app.core.redis_checks import redis_durability_problems, warn_if_redis_volatile


@pytest.fixture
async def live(redis_url: str) -> AsyncIterator[redis.asyncio.Redis]:
    client = redis.asyncio.Redis.from_url(redis_url)
    saved = await client.config_get("*")
    keep = {k: saved[k] for k in ("maxmemory-policy", "save", "appendonly")}
    if keep["appendonly"] == "yes":
        pytest.skip("this test Redis persists with AOF; the test would turn it off")
    yield client
    await client.config_set("maxmemory-policy", keep["maxmemory-policy"])
    await client.config_set("save", keep["save"])
    await client.aclose()


async def test_each_way_of_losing_keys_is_named(
    live: redis.asyncio.Redis, caplog: pytest.LogCaptureFixture, tmp_path: object
) -> None:
    await live.config_set("maxmemory-policy", "allkeys-lru")
    await live.config_set("save", "")
    problems = await redis_durability_problems(live)
    assert len(problems) == 2
    assert "allkeys-lru" in problems[0] and "noeviction" in problems[0]
    assert "loses every live table" in problems[1]
    settings = Settings(env="test", redis_url="redis://127.0.0.1:1/0", var_dir=tmp_path)
    with caplog.at_level(logging.WARNING, logger="app.redis"):
        assert await warn_if_redis_volatile(live, settings) == problems
    assert [r.levelno for r in caplog.records] == [logging.WARNING] * 2

    await live.config_set("maxmemory-policy", "noeviction")
    await live.config_set("save", "3600 1")  # RDB snapshots only
    (only,) = await redis_durability_problems(live)
    assert "appendonly is off" in only


async def test_no_check_for_the_embedded_redis_and_no_crash_when_refused(
    caplog: pytest.LogCaptureFixture, tmp_path: object
) -> None:
    embedded = Settings(env="test", var_dir=tmp_path)
    assert await warn_if_redis_volatile(object(), embedded) == []
    away = redis.asyncio.Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.5)
    settings = Settings(env="test", redis_url="redis://127.0.0.1:1/0", var_dir=tmp_path)
    with caplog.at_level(logging.WARNING, logger="app.redis"):
        assert await warn_if_redis_volatile(away, settings) == []
    assert "could not check Redis" in caplog.text
    await away.aclose()
