"""Every migration upgrades and downgrades on SQLite and on PostgreSQL, and the models
match what the migrations build."""

from __future__ import annotations

import asyncio
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
