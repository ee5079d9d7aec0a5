"""Shared fixtures.

Two kinds of app under test:

* ``client`` / ``app``: the real thing, on PostgreSQL and Redis from
  BURACO_TEST_DATABASE_URL and BURACO_TEST_REDIS_URL. The database is dropped, created
  and migrated once per run; every table is emptied and the Redis db flushed before each
  test. Tests using them carry the ``real_services`` marker (added automatically). When
  a server does not answer they are skipped (and listed at the end), unless CI=true,
  where that is an error.
* ``embedded_client`` / ``embedded_app``: the embedded default (SQLite file in a temp
  folder, in-process Redis), for what does not depend on the storage engines.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
import redis
import redis.asyncio
from asgi_lifespan import LifespanManager
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncSession

from app import native

# The rules engine under test: the mypyc build when one of these very sources is in
# place (``make native``), else the sources. BURACO_RULES_PURE=1 forces the sources. A
# stale build (sources edited since) would test old code, so the run stops instead.
if os.environ.get("BURACO_RULES_PURE", "") == "1":
    native.use_sources()
elif native.status() == native.STALE:
    pytest.exit(
        "the compiled rules engine is stale (app/rules changed since it was built):"
        " run `make native` (or `python -m app.native clean` to test the sources)",
        returncode=4,
    )

from app.core.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from tests.support import (  # noqa: E402
    LIFESPAN_TIMEOUTS,
    in_thread,
    per_worker_database,
    recreate_pg_database,
    run_alembic,
    start_redis_server,
    truncate_pg_tables,
)

CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
# Under pytest-xdist each worker has its own database and Redis server (tests/support.py).
TEST_DATABASE_URL = per_worker_database(
    os.environ.get(
        "BURACO_TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/buraco_test"
    )
)
TEST_REDIS_URL = os.environ.get("BURACO_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")

SKIP_PREFIX = "needs a real server:"
REAL_SERVICE_FIXTURES = {"pg_url", "redis_url"}
_skipped_for_services: list[tuple[str, str]] = []


def _unavailable(what: str, error: BaseException) -> None:
    reason = f"{SKIP_PREFIX} {what} did not answer ({type(error).__name__}: {error})"
    if CI:
        pytest.fail(f"{reason}; with CI=true a missing server is a failure", pytrace=False)
    pytest.skip(reason)


# ---------------------------------------------------------------- real services


@pytest.fixture(scope="session")
def pg_url() -> str:
    """A fresh, migrated test database on the real PostgreSQL."""
    try:
        in_thread(asyncio.run, recreate_pg_database(TEST_DATABASE_URL))
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        _unavailable(f"PostgreSQL ({TEST_DATABASE_URL})", exc)
    run_alembic(TEST_DATABASE_URL, "upgrade", "head")
    return TEST_DATABASE_URL


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    url, private = TEST_REDIS_URL, None
    if os.environ.get("PYTEST_XDIST_WORKER") and (started := start_redis_server()):
        private, url = started
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=3)
        client.ping()
        client.close()
    except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
        _unavailable(f"Redis ({url})", exc)
    yield url
    if private is not None:
        private.terminate()
        private.wait(10)


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    """Override in a test module (or parametrize) to change settings of ``app``."""
    return {}


@pytest.fixture
async def settings(
    pg_url: str, redis_url: str, tmp_path: Path, settings_overrides: dict[str, Any]
) -> Settings:
    await truncate_pg_tables(pg_url)
    client = redis.asyncio.Redis.from_url(redis_url)
    await client.flushdb()
    await client.aclose()
    return Settings(
        env="test",
        database_url=pg_url,
        redis_url=redis_url,
        var_dir=tmp_path,
        frontend_dir=tmp_path / "no-frontend",
        **settings_overrides,
    )


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[FastAPI]:
    app = create_app(settings)
    # The app keeps what its lifespan built on app.state, so the bare app is what
    # clients talk to (LifespanManager only runs startup and shutdown around it).
    async with LifespanManager(app, **LIFESPAN_TIMEOUTS):
        yield app


@pytest.fixture
async def make_client(app: FastAPI) -> AsyncIterator[Callable[[], httpx.AsyncClient]]:
    """Build more clients on the same app (each with its own cookie jar)."""
    clients: list[httpx.AsyncClient] = []

    def make() -> httpx.AsyncClient:
        client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://testserver"
        )
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


@pytest.fixture
def client(make_client: Callable[[], httpx.AsyncClient]) -> httpx.AsyncClient:
    return make_client()


@pytest.fixture
async def db(app: FastAPI) -> AsyncIterator[AsyncSession]:
    """A session on the app's database, to check what was (or was not) stored."""
    async with app.state.sessionmaker() as session:
        yield session


# ---------------------------------------------------------------- embedded default


@pytest.fixture
def embedded_settings(tmp_path: Path) -> Settings:
    url = f"sqlite+aiosqlite:///{tmp_path}/buraco.db"
    run_alembic(url, "upgrade", "head")
    return Settings(
        env="test",
        database_url=url,
        redis_url="memory://",
        var_dir=tmp_path,
        frontend_dir=tmp_path / "no-frontend",
    )


@pytest.fixture
async def embedded_app(embedded_settings: Settings) -> AsyncIterator[FastAPI]:
    app = create_app(embedded_settings)
    async with LifespanManager(app, **LIFESPAN_TIMEOUTS):
        yield app


@pytest.fixture
async def embedded_client(embedded_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=embedded_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


# ---------------------------------------------------------------- reporting


# Timing-sensitive or CPU-heavy tests (browser tests that time frames and long tasks,
# processes killed on purpose, one-second clocks): `make test` runs them last, one at a
# time, so no other worker fights them for this machine's two cores.
SERIAL_PATHS = (
    "tests/e2e/test_table_screen.py",
    "tests/e2e/test_play_hand.py",
    "tests/e2e/test_table_motion.py",
    "tests/e2e/test_reconnect.py",  # the reconnection's backoff, timed
    "tests/tables/test_failover.py",
    "tests/tables/test_clocks.py",
    "tests/ops/test_restart.py",
    "tests/ops/test_production_logs.py",
    "tests/tables/test_bots_live.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if REAL_SERVICE_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.real_services)
        if item.nodeid.startswith(SERIAL_PATHS):
            item.add_marker(pytest.mark.serial)
        elif item.nodeid.startswith("tests/e2e/"):
            # The other browser tests mostly wait (on the server, bots, clocks): a phase of
            # their own, a file per worker, more workers than cores.
            item.add_marker(pytest.mark.browser)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        if SKIP_PREFIX in reason:
            _skipped_for_services.append((report.nodeid, reason.split(SKIP_PREFIX, 1)[1]))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _skipped_for_services:
        return
    reasons = sorted({reason.strip() for _, reason in _skipped_for_services})
    terminalreporter.section("tests skipped: real PostgreSQL/Redis not available", yellow=True)
    terminalreporter.write_line(
        f"{len(_skipped_for_services)} tests need the real servers and were SKIPPED:"
    )
    for reason in reasons:
        terminalreporter.write_line(f"  - {reason}")
    for nodeid, _ in _skipped_for_services:
        terminalreporter.write_line(f"    {nodeid}")
    terminalreporter.write_line(
        "Start PostgreSQL and Redis on localhost (or set BURACO_TEST_DATABASE_URL / "
        "BURACO_TEST_REDIS_URL) to run them."
    )
