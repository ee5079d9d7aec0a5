"""Fixtures of the live-table tests: real uvicorn processes on a database and a Redis
database of their own (so the other suites' truncations and flushes never pull them from
under a running server: a table of an earlier test that settles late would otherwise
write for users another suite has just deleted, or renumbered).

* ``servers``: two processes with long clocks, shared by the tests that play games.
* ``fast_server``: one process with one-second clocks and grace period.
Tests that kill a process start their own.

With ``BURACO_TEST_REDIS_CLUSTER_URL`` (a ``redis+cluster://`` URL of a throwaway
cluster, which is flushed) every process and client here uses that Redis Cluster
instead; ``.ci/run`` runs the multi-process table and failover tests once so.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from sqlalchemy.engine import make_url

from tests.support import in_thread, recreate_pg_database, run_alembic
from tests.tables.harness import Server, start_servers

LONG = {"turn_seconds": 300, "turbo_turn_seconds": 300, "disconnect_grace_seconds": 300}


CLUSTER_URL = os.environ.get("BURACO_TEST_REDIS_CLUSTER_URL", "")


def sync_client(url: str) -> Any:
    """A blocking client of ``url`` (one server, or a cluster)."""
    if "+cluster://" in url:
        nodes = [
            redis.cluster.ClusterNode(*hp.rsplit(":", 1))
            for hp in url.split("://", 1)[1].split(",")
        ]
        return redis.RedisCluster(startup_nodes=nodes)
    return redis.Redis.from_url(url)


def tables_redis_url(redis_url: str, shift: int = 1) -> str:
    """The test Redis URL with its database number moved down by ``shift`` (15 -> 14),
    or the test cluster (one keyspace for all)."""
    if CLUSTER_URL:
        return CLUSTER_URL
    base, _, db = redis_url.rpartition("/")
    number = int(db) if db.isdigit() else 15
    return f"{base}/{(number - shift) % 16}"


def _fresh(url: str) -> str:
    client = sync_client(url)
    if CLUSTER_URL:
        client.flushall(target_nodes=redis.RedisCluster.PRIMARIES)
    else:
        client.flushdb()
    client.close()
    return url


@pytest.fixture(scope="session")
def pg_url(pg_url: str) -> str:
    """The worker's test database, with ``_tables`` added: fresh and migrated, used by
    every process and check here and truncated by nobody while they run."""
    url = make_url(pg_url)
    own = url.set(database=f"{url.database}_tables").render_as_string(hide_password=False)
    in_thread(asyncio.run, recreate_pg_database(own))
    run_alembic(own, "upgrade", "head")
    return own


@pytest.fixture(scope="session")
def tables_redis(redis_url: str) -> str:
    return _fresh(tables_redis_url(redis_url))


@pytest.fixture(scope="session")
def fast_redis(redis_url: str) -> str:
    """Processes sharing a Redis share its timers: the fast-clock process gets its own,
    or the long-clock ones would claim its deadlines and start long clocks."""
    return _fresh(tables_redis_url(redis_url, 2))


@pytest.fixture(scope="session")
def servers(
    pg_url: str,
    tables_redis: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[list[Server]]:
    procs = start_servers(2, pg_url, tables_redis, tmp_path_factory.mktemp("uvicorn"), **LONG)
    yield procs
    for p in procs:
        p.stop()


@pytest.fixture(scope="session")
def fast_server(
    pg_url: str,
    fast_redis: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Server]:
    procs = start_servers(
        1,
        pg_url,
        fast_redis,
        tmp_path_factory.mktemp("fast"),
        turn_seconds=1,
        turbo_turn_seconds=1,
        disconnect_grace_seconds=1,
        # The bare turn clock: no time bank, no first-turn bonus (test_turn_bank.py
        # times those).
        time_bank_seconds=0,
        turbo_time_bank_seconds=0,
        first_turn_bonus_seconds=0,
        turbo_first_turn_bonus_seconds=0,
    )
    yield procs[0]
    procs[0].stop()


@pytest.fixture(scope="session")
def own_redis(redis_url: str) -> str:
    """For tests that start (and kill) processes of their own, apart from the others."""
    return _fresh(tables_redis_url(redis_url, 3))


@pytest.fixture
def redis_sync(tables_redis: str) -> Iterator[redis.Redis]:
    client = sync_client(tables_redis)
    yield client
    client.close()


def no_crash(server: Server) -> None:
    """The process is up and its log holds no traceback and no 500."""
    assert server.alive(), server.log()[-3000:]
    log = server.log()
    assert "Traceback" not in log, log[-5000:]
    assert " 500 " not in log, log[-5000:]


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    return tmp_path
