"""Small dialect helpers: the same upserts on PostgreSQL and on the embedded SQLite."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession


def table_of(model: Any) -> Table:
    """A mapped class's Table, typed as one."""
    return cast(Table, model.__table__)


def dialect(db: AsyncSession) -> str:
    return db.get_bind().dialect.name


def insert_for(db: AsyncSession, table: Table) -> Any:
    """An INSERT that knows ON CONFLICT on both backends."""
    if dialect(db) == "sqlite":
        return sqlite.insert(table)
    return postgresql.insert(table)


async def insert_ignore(
    db: AsyncSession, table: Table, rows: Sequence[dict[str, Any]], keys: Sequence[str]
) -> None:
    """Insert rows; rows whose ``keys`` already exist are left alone.

    The rows go as parameters of one constant statement (not inlined VALUES), so the
    statement is compiled once and cached; SQLAlchemy still sends them in one batch.
    """
    if rows:
        stmt = insert_for(db, table).on_conflict_do_nothing(index_elements=list(keys))
        await db.execute(stmt, list(rows))
