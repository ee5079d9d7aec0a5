"""Every migration upgrades and downgrades on SQLite and on PostgreSQL, and the models
match what the migrations build."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from tests.support import (
    alembic_config,
    drop_pg_database,
    in_thread,
    recreate_pg_database,
    run_alembic,
)

APP_TABLES = {"users", "sessions"}


async def _tables(url: str) -> set[str]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            names = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
    finally:
        await engine.dispose()
    return names - {"alembic_version"}


def tables(url: str) -> set[str]:
    return in_thread(asyncio.run, _tables(url))


def _walk_every_revision(url: str) -> None:
    script = ScriptDirectory.from_config(alembic_config(url))
    revisions = list(reversed(list(script.walk_revisions())))  # base -> head
    assert revisions, "no migrations found"
    for rev in revisions:
        run_alembic(url, "upgrade", rev.revision)
        down_to = rev.down_revision if isinstance(rev.down_revision, str) else "base"
        run_alembic(url, "downgrade", down_to)
        run_alembic(url, "upgrade", rev.revision)


def _up_down_up(url: str) -> None:
    _walk_every_revision(url)
    assert tables(url) >= APP_TABLES
    run_alembic(url, "check")  # models and migrations agree
    run_alembic(url, "downgrade", "base")
    assert tables(url) == set()
    run_alembic(url, "upgrade", "head")
    assert tables(url) >= APP_TABLES
    run_alembic(url, "check")


def test_migrations_up_down_up_on_sqlite(tmp_path: Path) -> None:
    _up_down_up(f"sqlite+aiosqlite:///{tmp_path}/migrations.db")


def test_migrations_up_down_up_on_postgres(pg_url: str) -> None:
    # A database of its own: the shared test database stays migrated for other tests.
    url = make_url(pg_url).set(database=f"{make_url(pg_url).database}_migrations")
    own = url.render_as_string(hide_password=False)
    in_thread(asyncio.run, recreate_pg_database(own))
    try:
        _up_down_up(own)
    finally:
        in_thread(asyncio.run, drop_pg_database(own))


async def _requests_after_pair_index(url: str) -> list[tuple[int, int, str]]:
    """Duplicate pending requests stored before 0012 (three one way, one back, and an
    answered one), then 0012: the oldest pending of the pair is kept, the rest
    cancelled, and the index then refuses another pending between the two."""
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError

    run_alembic(url, "upgrade", "0011_tournaments")
    engine = create_async_engine(url)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    try:
        async with engine.begin() as conn:
            for n in (1, 2):
                await conn.execute(
                    text(
                        "INSERT INTO users (id, nickname, is_guest, created_at, updated_at)"
                        " VALUES (:id, :nick, false, :now, :now)"
                    ),
                    {"id": n, "nick": f"p{n}", "now": now},
                )
            for sender, recipient, state in [
                (1, 2, "declined"),
                (1, 2, "pending"),
                (1, 2, "pending"),
                (2, 1, "pending"),
                (1, 2, "pending"),
            ]:
                await conn.execute(
                    text(
                        "INSERT INTO friend_requests (sender_id, recipient_id, state, created_at)"
                        " VALUES (:s, :r, :state, :now)"
                    ),
                    {"s": sender, "r": recipient, "state": state, "now": now},
                )
        run_alembic(url, "upgrade", "0012_friend_request_pending_pair")
        async with engine.connect() as conn:
            rows = (
                await conn.execute(
                    text("SELECT sender_id, recipient_id, state FROM friend_requests ORDER BY id")
                )
            ).all()
            await conn.rollback()
            refused = False
            try:
                async with conn.begin():
                    await conn.execute(
                        text(
                            "INSERT INTO friend_requests (sender_id, recipient_id, state,"
                            " created_at) VALUES (2, 1, 'pending', :now)"
                        ),
                        {"now": now},
                    )
            except IntegrityError:
                refused = True
            assert refused, "a second pending request between the pair was stored"
    finally:
        await engine.dispose()
    return [tuple(r) for r in rows]  # type: ignore[misc]


KEPT = [
    (1, 2, "declined"),
    (1, 2, "pending"),
    (1, 2, "cancelled"),
    (2, 1, "cancelled"),
    (1, 2, "cancelled"),
]


def test_pending_pair_migration_keeps_the_oldest_on_sqlite(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/pairs.db"
    assert in_thread(asyncio.run, _requests_after_pair_index(url)) == KEPT


def test_pending_pair_migration_keeps_the_oldest_on_postgres(pg_url: str) -> None:
    url = make_url(pg_url).set(database=f"{make_url(pg_url).database}_pairs")
    own = url.render_as_string(hide_password=False)
    in_thread(asyncio.run, recreate_pg_database(own))
    try:
        assert in_thread(asyncio.run, _requests_after_pair_index(own)) == KEPT
    finally:
        in_thread(asyncio.run, drop_pg_database(own))
