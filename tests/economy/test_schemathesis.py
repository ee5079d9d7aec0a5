"""Schemathesis against the OpenAPI schema of the economy and social endpoints: no
generated request, valid or not, gets a 500; every refusal has the one error shape.

The app runs in a real uvicorn server on 127.0.0.1 (its own thread) over the real
Postgres and Redis; requests carry the session cookie of a player who has a friend,
some coins, a gift waiting and notifications, so the happy paths are reachable too.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis

from app.core.config import Settings
from app.core.db import create_engine, create_sessionmaker
from app.core.ids import UserId
from app.main import create_app
from app.social.models import Friendship
from app.users.service import start_session
from app.users.tokens import SESSION_COOKIE
from tests.economy.helpers import new_users, seed_shop
from tests.support import fuzz, in_thread, serve_in_thread, truncate_pg_tables

MINE = (
    r"^/api/(wallet|shop|me/|gifts|leaderboards|players|profiles|friends|blocks"
    r"|notifications|chat)"
)
EXAMPLES = 30


async def _prepare(url: str) -> tuple[str, list[int]]:
    await truncate_pg_tables(url)
    engine = create_engine(url)
    maker = create_sessionmaker(engine)
    try:
        await seed_shop(maker)
        a, b, c = await new_users(maker, 3)
        async with maker() as db:
            db.add_all([Friendship(user_id=a, friend_id=b), Friendship(user_id=b, friend_id=a)])
            token = await start_session(db, UserId(a), 1)
            await db.commit()
        return token, [a, b, c]
    finally:
        await engine.dispose()


@contextlib.contextmanager
def prepared_server(
    pg_url: str, redis_url: str, tmp_path: Path, **settings: Any
) -> Iterator[tuple[str, str]]:
    """The app in a real uvicorn server on the prepared data; yields (base URL, token)."""
    token, _ = in_thread(asyncio.run, _prepare(pg_url))
    # The server runs in a thread of this process and shares its GIL with the fuzzer, so
    # the overload probe (app/tables/live/overload.py) would measure the fuzzer's own work as
    # event-loop lag and refuse tables with 503 server_busy; that refusal has tests of its
    # own (tests/tables/test_overload.py). Here it stays out of the way.
    settings.setdefault("max_loop_lag_ms", 60_000)
    app = create_app(
        Settings(
            env="test",
            database_url=pg_url,
            redis_url=redis_url,
            var_dir=tmp_path,
            frontend_dir=tmp_path / "none",
            log_level="WARNING",
            **settings,
        )
    )
    with serve_in_thread(app) as base:
        yield base, token


@pytest.fixture
def server(pg_url: str, redis_url: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    with prepared_server(pg_url, redis_url, tmp_path) as served:
        yield served


def test_no_500_for_any_generated_request(server: tuple[str, str]) -> None:
    base, token = server
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json").include(path_regex=MINE)
    operations = [r.ok() for r in schema.get_all_operations()]
    assert len(operations) >= 25, [op.label for op in operations]
    failures: list[str] = []

    def check(case: schemathesis.Case) -> None:
        response = case.call(base_url=base, cookies={SESSION_COOKIE: token})
        if response.status_code >= 500:
            failures.append(
                f"{case.method} {case.path} {case.path_parameters} "
                f"{case.query} "
                f"{case.body!r}: {response.status_code}"
            )
        elif response.status_code >= 400:
            assert "error" in response.json(), response.text

    fuzz(operations, EXAMPLES, check)
    assert not failures, failures[:10]
