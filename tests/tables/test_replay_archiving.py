"""The moment between a game's end and its archive: its replay answers 409
``game_archiving`` (asked again shortly, it is there), not ``game_live``, which stays
for a game still being played (app/tables/storage/replays.py)."""

from __future__ import annotations

import secrets
import time
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import AppError
from app.core.redis import close_redis, create_redis
from app.tables.storage.meta import Seat, TableMeta
from app.tables.storage.replays import load_for_replay
from app.tables.storage.store import TableStore


def meta(tid: str, status: Any) -> TableMeta:
    return TableMeta(
        id=tid,
        name="t",
        host=1,
        preset="cerrado",
        rules={},
        players=2,
        bet=0,
        seats=[Seat(user_id=1, name="a"), Seat(user_id=2, name="b")],
        created_at=time.time(),
        status=status,
        game_id=tid,
    )


@pytest.mark.parametrize(
    ("status", "code"),
    [("starting", "game_live"), ("playing", "game_live"), ("finished", "game_archiving")],
)
async def test_a_game_not_archived_yet_says_whether_it_is_over(
    db: AsyncSession, redis_url: str, status: str, code: str
) -> None:
    client = create_redis(redis_url)
    try:
        store = TableStore(client)
        tid = secrets.token_hex(8)
        await store.commit(tid, 0, [], meta=meta(tid, status).model_dump_json().encode())
        with pytest.raises(AppError) as refused:
            await load_for_replay(db, store, tid, 1)
        assert (refused.value.code, refused.value.status) == (code, 409)
        # A stranger to this public table is told the same.
        with pytest.raises(AppError) as refused:
            await load_for_replay(db, store, tid, 99)
        assert refused.value.code == code
    finally:
        await close_redis(client)
