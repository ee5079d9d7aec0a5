"""Database plumbing: declarative base, engine and session factories.

Engines are built by the app's lifespan (or by Alembic/tests), never at import time.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import BigInteger, DateTime, Integer, MetaData, event
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.types import TypeDecorator

# Stable constraint names: Alembic's batch mode on SQLite needs named constraints, and
# Postgres and SQLite then agree on every name.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# SQLite only auto-increments an INTEGER PRIMARY KEY, so big ids fall back to INTEGER there.
BigIntId = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend.

    SQLite has no time zones and hands back naive values; this type stores UTC and
    always returns aware datetimes so comparisons behave the same everywhere.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTCDateTime column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def ensure_sqlite_dir(url: str) -> None:
    """Create the folder of a SQLite file database so a fresh clone just works."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def create_engine(
    url: str, *, pool_size: int = 10, echo: bool = False, pool_timeout: float = 30.0
) -> AsyncEngine:
    """``pool_timeout``: how long a checkout waits for a free connection before raising
    ``sqlalchemy.exc.TimeoutError`` (answered 503 ``server_busy``, app/core/errors.py)."""
    if is_sqlite(url):
        ensure_sqlite_dir(url)
        engine = create_async_engine(url, echo=echo)
        event.listen(engine.sync_engine, "connect", _sqlite_on_connect)
        return engine
    return create_async_engine(
        url,
        echo=echo,
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_pre_ping=True,
        pool_timeout=pool_timeout,
    )


def create_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    # expire_on_commit=False: objects stay readable after the request commits.
    return async_sessionmaker(engine, expire_on_commit=False, autoflush=False)


# The session of the request or job running in this task. A request (or job) that holds
# a pooled connection and waits for a second one from the same pool deadlocks under load
# (issue 11: 20 such requests exhaust a pool of 20), so nested code joins the session
# already open instead of opening its own. Tagged with its task: a task started from a
# request copies the context but must not share its session (sessions are not safe for
# concurrent use), so it gets its own.
_current: ContextVar[tuple[asyncio.Task[Any] | None, AsyncSession] | None] = ContextVar(
    "buraco_unit_of_work", default=None
)


def current_session() -> AsyncSession | None:
    found = _current.get()
    if found is None or found[0] is not asyncio.current_task():
        return None
    return found[1]


@asynccontextmanager
async def unit_of_work(
    maker: async_sessionmaker[AsyncSession],
) -> AsyncIterator[AsyncSession]:
    """The session of the current request or job, else a new one that nested calls in
    this task then share. The owner closes it; joiners commit or roll back only their
    own work (see app/economy/hooks.py)."""
    joined = current_session()
    if joined is not None:
        yield joined
        return
    async with maker() as session:
        token = _current.set((asyncio.current_task(), session))
        try:
            yield session
        finally:
            try:
                _current.reset(token)
            except ValueError:  # closed from another context (a dependency's teardown)
                _current.set(None)
