from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, select, text

from app.core.db import UTCDateTime, create_engine


async def test_sqlite_datetimes_come_back_aware_utc_and_foreign_keys_are_on(
    tmp_path: Path,
) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/sub/dir/x.db")
    meta = MetaData()
    t = Table("t", meta, Column("id", Integer, primary_key=True), Column("at", UTCDateTime))
    when = datetime(2030, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2)))
    try:
        async with engine.begin() as conn:
            assert (await conn.execute(text("PRAGMA foreign_keys"))).scalar() == 1
            await conn.run_sync(meta.create_all)
            await conn.execute(t.insert().values(id=1, at=when))
            got = (await conn.execute(select(t.c.at))).scalar_one()
    finally:
        await engine.dispose()
    assert (tmp_path / "sub" / "dir" / "x.db").exists()
    assert got == when
    assert got.tzinfo is UTC


async def test_naive_datetimes_are_refused(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/x.db")
    meta = MetaData()
    t = Table("t", meta, Column("id", Integer, primary_key=True), Column("at", UTCDateTime))
    try:
        async with engine.begin() as conn:
            await conn.run_sync(meta.create_all)
            with pytest.raises(Exception, match="naive datetime"):
                await conn.execute(t.insert().values(id=1, at=datetime(2030, 1, 1)))
    finally:
        await engine.dispose()
