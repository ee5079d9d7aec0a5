"""Fixtures of the operations tests: real uvicorn processes on the test database and a
Redis database of their own (moved down by 4 from the test one, clear of the tables'
and the browser tests' databases)."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from tests.tables.conftest import tables_redis_url


@pytest.fixture
def ops_redis(redis_url: str) -> str:
    url = tables_redis_url(redis_url, 4)
    client = redis.Redis.from_url(url)
    client.flushdb()
    client.close()
    return url


@pytest.fixture
def var(tmp_path: Path) -> Path:
    path = tmp_path / "var"
    path.mkdir()
    return path
