"""A decision that loses its commit's race is made again (service.py, ``mutate``) on the
table as it is now, not on a cache entry that is newer than the one that lost but still
behind Redis."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.core.config import Settings
from app.core.redis import create_redis
from app.rules.state import State
from app.tables.play.service import Change, TableService, table_record
from app.tables.storage.meta import TableMeta
from app.tables.storage.store import Conflict
from tests.tables.test_cache import meta


def new_meta() -> TableMeta:
    return meta("n0").model_copy(update={"id": f"R{secrets.token_hex(6)}"})


def rename(name: str) -> Any:
    def decide(v: int, current: TableMeta, state: State | None) -> Change:
        renamed = current.edit()
        renamed.name = name
        return Change(meta=renamed, records=[table_record("renamed", renamed)])

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
    table = new_meta()
    await ours.create(table)
    await ours.load(table.id)  # cached at version 1
    for i in range(10):  # another process commits ten changes: Redis is at version 11
        await other.mutate(table.id, rename(f"other {i}"))

    # As on a loaded process, the other commits' messages arrive one by one: each
    # refused commit finds the cache one version further on, still behind Redis.
    real_commit = ours.store.commit
    refused: list[int] = []

    async def commit_while_messages_trickle_in(table_id: str, v: int, *a: Any, **kw: Any) -> int:
        try:
            return await real_commit(table_id, v, *a, **kw)
        except Conflict:
            refused.append(v)
            ours.cache.put(table_id, v + 1, table, None)
            raise

    ours.store.commit = commit_while_messages_trickle_in  # type: ignore[method-assign]
    v, change = await ours.mutate(table.id, rename("ours"))
    assert v == 12 and change.meta is not None and change.meta.name == "ours"
    assert refused == [1], "one refusal, then a decision on the table as Redis holds it"
    _, stored, _ = await other.load(table.id)
    assert stored.name == "ours"
