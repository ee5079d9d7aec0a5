"""A decision that loses its commit's race is made again (service.py, ``mutate``) on the
table as it is now, not on a cache entry that is newer than the one that lost but still
behind Redis."""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.core.config import Settings
from app.core.redis import create_redis
from app.rules.state import State
from app.tables.meta import Seat, TableMeta
from app.tables.service import Change, TableService, table_record
from app.tables.store import Conflict


def new_meta() -> TableMeta:
    return TableMeta(
        id=f"R{secrets.token_hex(6)}",
        name="n0",
        host=1,
        preset="cerrado",
        rules={},
        players=2,
        bet=6000,
        seats=[Seat(user_id=1, name="a"), None],
        created_at=time.time(),
    )


def rename(name: str) -> Any:
    def decide(v: int, meta: TableMeta, state: State | None) -> Change:
        meta = meta.edit()
        meta.name = name
        return Change(meta=meta, records=[table_record("renamed", meta)])

    return decide


@pytest.fixture
async def services(tables_redis: str) -> AsyncIterator[tuple[TableService, TableService]]:
    client = create_redis(tables_redis)
    settings = Settings(env="test", redis_url=tables_redis)
    try:
        yield TableService(client, settings), TableService(client, settings)
    finally:
        await client.aclose()


async def test_a_cache_catching_up_one_version_at_a_time_does_not_exhaust_the_retries(
    services: tuple[TableService, TableService],
) -> None:
    ours, other = services
    meta = new_meta()
    await ours.create(meta)
    await ours.load(meta.id)  # cached at version 1
    for i in range(10):  # another process commits ten changes: Redis is at version 11
        await other.mutate(meta.id, rename(f"other {i}"))

    # As on a loaded process, the other commits' messages arrive one by one: each
    # refused commit finds the cache one version further on, still behind Redis.
    real_commit = ours.store.commit
    refused: list[int] = []

    async def commit_while_messages_trickle_in(table_id: str, v: int, *a: Any, **kw: Any) -> int:
        try:
            return await real_commit(table_id, v, *a, **kw)
        except Conflict:
            refused.append(v)
            ours.cache.put(table_id, v + 1, meta, None)
            raise

    ours.store.commit = commit_while_messages_trickle_in  # type: ignore[method-assign]
    v, change = await ours.mutate(meta.id, rename("ours"))
    assert v == 12 and change.meta is not None and change.meta.name == "ours"
    assert refused == [1], "one refusal, then a decision on the table as Redis holds it"
    _, stored, _ = await other.load(meta.id)
    assert stored.name == "ours"
