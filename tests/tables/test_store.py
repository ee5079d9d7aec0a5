"""The commit script (app/tables/store.py) on one real Redis and on the embedded one: a
move's new turn timers are saved by the same script call as the move, and only when the
move is committed."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from app.core.redis import close_redis, create_redis
from app.tables.store import TIMERS_KEY, Conflict, Duplicate, TableStore


@pytest.fixture(params=["real", "embedded"])
async def store(request: pytest.FixtureRequest) -> Any:
    url = "memory://" if request.param == "embedded" else request.getfixturevalue("redis_url")
    client = create_redis(url)
    yield TableStore(client)
    await close_redis(client)


def record(v: int) -> dict[str, Any]:
    return {"k": "c", "seat": 0, "deadline": 1.5, "v": v}


async def test_timers_go_in_with_the_commit_and_only_when_it_commits(store: TableStore) -> None:
    tid = secrets.token_hex(6)
    first, second = f"turn|{tid}|1:0:1.5", f"turn|{tid}|1:1:2.5"
    v = await store.commit(tid, 0, [record(1)], state=b"{}", timers=[(first, 1.5)], cid="c1")
    assert v == 1
    assert await store.redis.zscore(TIMERS_KEY, first) == 1.5
    with pytest.raises(Conflict):  # a stale version: nothing saved, no stray timer
        await store.commit(tid, 0, [record(1)], timers=[(second, 2.5)])
    with pytest.raises(Duplicate):  # a repeated command id: answered, not applied
        await store.commit(tid, 1, [record(2)], timers=[(second, 2.5)], cid="c1")
    assert await store.redis.zscore(TIMERS_KEY, second) is None
    assert await store.commit(tid, 1, [record(2), record(3)], timers=[(second, 2.5)]) == 3
    assert await store.redis.zscore(TIMERS_KEY, second) == 2.5
    loaded = await store.load(tid)
    assert loaded is not None and loaded.v == 3
    assert [r["v"] for r in await store.full_log(tid)] == [1, 2, 3]
    await store.redis.zrem(TIMERS_KEY, first, second)


async def test_timers_in_several_buckets_still_go_in_with_the_commit(
    redis_url: str,
) -> None:
    client = create_redis(redis_url)
    store = TableStore(client, buckets=4)
    keys: set[str] = set()
    while len(keys) < 2:  # two owners whose timers fall in two buckets
        tid = secrets.token_hex(6)
        members = [f"turn|{tid}|1:0:1.5", "finish|other-table|0"]
        keys = {store.bucket(TIMERS_KEY, m) for m in members}
    try:
        assert await store.commit(tid, 0, [record(1)], timers=[(m, 1.5) for m in members]) == 1
        for m in members:
            assert await client.zscore(store.bucket(TIMERS_KEY, m), m) == 1.5
    finally:
        await client.delete(*keys)
        await close_redis(client)
