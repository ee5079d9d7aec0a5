"""Alembic environment (async).

The URL comes from, in order: the ``sqlalchemy.url`` main option (set by tests and
tools), else the app settings (``BURACO_DATABASE_URL``). SQLite runs in batch mode so
every migration can also be downgraded there. On Postgres an advisory lock keeps two
replicas starting at once from migrating at the same time.
"""

from __future__ import annotations

import asyncio
import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy import pool, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from app.core.config import Settings
from app.core.db import Base, ensure_sqlite_dir
from app.core.logging import configure_logging
from app.economy import models as _economy_models  # noqa: F401  (registers the tables)
from app.ratings import models as _ratings_models  # noqa: F401
from app.social import models as _social_models  # noqa: F401
from app.tables.storage import models as _tables_models  # noqa: F401
from app.tournaments import models as _tournament_models  # noqa: F401
from app.users import models as _users_models  # noqa: F401

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    if os.environ.get("BURACO_ENV") == "production":  # the app's JSON lines, one format
        configure_logging(json=True, level=os.environ.get("BURACO_LOG_LEVEL", "INFO"))
    else:
        fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata

# Any constant works; it only has to be the same for every replica of this app.
MIGRATION_LOCK_ID = 7_240_311


# Indexes over expressions, which autogenerate cannot compare (the database gives back
# its own spelling of the expression): migrations make them, `alembic check` skips them.
EXPRESSION_INDEXES = {"uq_friend_requests_pending_pair"}


def include_object(
    obj: object, name: str | None, type_: str, reflected: bool, other: object
) -> bool:
    return not (type_ == "index" and name in EXPRESSION_INDEXES)


def database_url() -> str:
    return config.get_main_option("sqlalchemy.url") or Settings().database_url


def run_migrations_offline() -> None:
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    is_pg = connection.dialect.name == "postgresql"
    if is_pg:
        connection.execute(text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATION_LOCK_ID})
        connection.commit()
    try:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
            include_object=include_object,
        )
        with context.begin_transaction():
            context.run_migrations()
    finally:
        if is_pg:
            connection.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATION_LOCK_ID})
            connection.commit()


async def run_async_migrations() -> None:
    url = database_url()
    ensure_sqlite_dir(url)
    engine = create_async_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run_migrations)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(run_async_migrations())
