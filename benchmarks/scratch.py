"""What a benchmark that needs PostgreSQL makes for itself: a scratch database, created
empty and dropped after the run, through an account that may create databases.

A benchmark whose server is missing stops with one line saying what it needs, never a
traceback. Redis is not needed from outside: those benchmarks start a private
redis-server (``loadbench.servers.start_redis``).
"""

from __future__ import annotations

import asyncpg
from sqlalchemy.engine import make_url


def server_dsn(url: str, database: str = "postgres") -> str:
    """asyncpg's DSN for ``database`` on the server of the SQLAlchemy URL ``url``."""
    return (
        make_url(url)
        .set(drivername="postgresql", database=database)
        .render_as_string(hide_password=False)
    )


async def _admin(url: str, who: str) -> asyncpg.Connection:
    try:
        return await asyncpg.connect(server_dsn(url))
    except (OSError, asyncpg.PostgresError) as exc:
        where = make_url(url).set(database="postgres").render_as_string(hide_password=True)
        raise SystemExit(
            f"{who} needs PostgreSQL at {where}, with an account that may create "
            f"databases: {exc or type(exc).__name__}"
        ) from None


async def create_database(url: str, who: str) -> None:
    """The database named in ``url``, made empty (dropped first if a run left it)."""
    name = make_url(url).database
    conn = await _admin(url, who)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


async def drop_database(url: str, who: str) -> None:
    name = make_url(url).database
    conn = await _admin(url, who)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()
