"""The commit script (app/tables/storage/store.py) on one real Redis and on the embedded one: a
move's new turn timers are saved by the same script call as the move, and only when the
move is committed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
from typing import Any

import orjson
import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from app.core.redis import close_redis, create_redis
from app.core.redisline import lines_for
from app.tables.storage.store import (
    RESUME_MAX_RECORDS,
    TIMERS_KEY,
    Conflict,
    Duplicate,
    TableStore,
    k_log,
)


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


async def test_one_commit_saves_every_field_record_and_timer_it_carries(
    store: TableStore,
) -> None:
    """The script writes the table hash in one HSET, the records in one RPUSH and the
    timers in one ZADD: every field, record and timer of a commit is there afterwards,
    a field left out keeps its old value, and the publish carries the records in order."""
    tid = secrets.token_hex(6)
    timers = [(f"turn|{tid}|1:{i}:{i}.5", i + 0.5) for i in range(3)]
    channel = f"test-commit:{tid}"
    pubsub = store.redis.pubsub()
    await pubsub.subscribe(channel)
    try:
        v = await store.commit(
            tid,
            0,
            [record(1), record(2), record(3)],
            meta=b'{"m":1}',
            state=b'{"s":1}',
            cid="c1",
            timers=timers,
            clock=7.25,
            publish_state=True,
            channel=channel,
        )
        assert v == 3
        loaded = await store.load(tid, "c1")
        assert loaded is not None
        assert (loaded.v, loaded.meta, loaded.state, loaded.seen, loaded.clock) == (
            3,
            b'{"m":1}',
            b'{"s":1}',
            3,
            7.25,
        )
        assert [r["v"] for r in await store.full_log(tid)] == [1, 2, 3]
        for member, at in timers:
            assert await store.redis.zscore(TIMERS_KEY, member) == at
        # Only the state changes: meta and clock stay as they were.
        assert await store.commit(tid, 3, [record(4)], state=b'{"s":2}', channel="") == 4
        loaded = await store.load(tid)
        assert loaded is not None
        assert (loaded.v, loaded.meta, loaded.state, loaded.clock) == (
            4,
            b'{"m":1}',
            b'{"s":2}',
            7.25,
        )
        message = None
        for _ in range(50):
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
            if message is not None:
                break
        assert message is not None
        head, meta, state = str(message["data"]).split("\n")
        assert [r["v"] for r in orjson.loads(head)["records"]] == [1, 2, 3]
        assert (meta, state) == ('{"m":1}', '{"s":1}')
    finally:
        await pubsub.aclose()
        await store.redis.zrem(TIMERS_KEY, *(m for m, _ in timers))


async def test_a_load_reads_the_saved_state_and_the_records_logged_after_it(
    store: TableStore,
) -> None:
    """A commit without a state leaves the saved one and its version (``sv``) alone; a
    load returns that state with every record after it, and none once a commit saves
    the state again."""
    tid = secrets.token_hex(6)
    assert await store.commit(tid, 0, [record(1)], meta=b'{"m":1}', state=b'{"s":1}') == 1
    assert await store.commit(tid, 1, [record(2), record(3)], channel="") == 3
    assert await store.commit(tid, 3, [record(4)], channel="") == 4
    loaded = await store.load(tid)
    assert loaded is not None and (loaded.v, loaded.state) == (4, b'{"s":1}')
    assert [orjson.loads(r)["v"] for r in loaded.after] == [2, 3, 4]
    assert await store.commit(tid, 4, [record(5)], state=b'{"s":5}', channel="") == 5
    loaded = await store.load(tid)
    assert loaded is not None and (loaded.v, loaded.state, loaded.after) == (5, b'{"s":5}', [])
    assert await store.redis.hget(f"{{t:{tid}}}:h", "sv") in ("5", b"5")


async def test_a_gap_is_read_back_from_the_log_by_version(store: TableStore) -> None:
    """Version v is the log's entry v - 1, however the records were grouped into
    commits; a gap longer than RESUME_MAX_RECORDS is not replayed (a snapshot is sent)."""
    tid = secrets.token_hex(6)
    v = 0
    for size in (1, 3, 1, 2, RESUME_MAX_RECORDS):
        v = await store.commit(tid, v, [record(v + 1 + i) for i in range(size)], state=b"{}")
    assert v == 7 + RESUME_MAX_RECORDS
    assert await store.records_since(tid, v, v) == []
    got = await store.records_since(tid, 1, 5)
    assert got is not None and [r["v"] for r in got] == [2, 3, 4, 5]
    assert got[0] == record(2)
    longest = await store.records_since(tid, v - RESUME_MAX_RECORDS, v)
    assert longest is not None
    assert [r["v"] for r in longest] == list(range(v - RESUME_MAX_RECORDS + 1, v + 1))
    assert await store.records_since(tid, v - RESUME_MAX_RECORDS - 1, v) is None
    assert await store.records_since(tid, 0, 7) is not None
    # A gap reaching past the log's end (a version Redis has not got) is not filled.
    assert await store.records_since(tid, v - 1, v + 1) is None


async def test_a_log_that_was_lost_and_began_again_is_never_served_as_the_gap(
    store: TableStore,
) -> None:
    """A table whose log was lost (a Redis restored from an older copy) has entries at
    the wrong positions for their versions: the gap is answered with None (a snapshot),
    never with other records."""
    tid = secrets.token_hex(6)
    v = await store.commit(tid, 0, [record(1), record(2), record(3)], state=b"{}")
    await store.redis.delete(k_log(tid))
    assert await store.records_since(tid, 0, v) is None
    v = await store.commit(tid, v, [record(4), record(5)])
    assert [r["v"] for r in await store.full_log(tid)] == [4, 5]
    assert await store.records_since(tid, 0, 2) is None
    assert await store.records_since(tid, 3, 5) is None


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


async def test_twenty_copies_of_one_commit_at_once_apply_once(store: TableStore) -> None:
    """The same command 20 times at once (a client's retries, a replayed frame): on the
    commit's own pipelined connection as on redis-py, one applies and the others are
    refused (the version moved on; the service then finds the command id and answers
    with the version it made); 20 different commands at one version: one wins."""
    tid = secrets.token_hex(6)
    results = await asyncio.gather(
        *(store.commit(tid, 0, [record(1)], cid="same") for _ in range(20)),
        return_exceptions=True,
    )
    assert results.count(1) == 1
    assert sum(isinstance(r, Conflict | Duplicate) for r in results) == 19, results
    assert await store.seen(tid, "same") == 1
    results = await asyncio.gather(
        *(store.commit(tid, 1, [record(2)], cid=f"c{i}") for i in range(20)),
        return_exceptions=True,
    )
    assert results.count(2) == 1
    assert sum(isinstance(r, Conflict) for r in results) == 19, results
    assert [r["v"] for r in await store.full_log(tid)] == [1, 2]


async def test_a_commit_whose_connection_dies_half_way_is_applied_at_most_once(
    redis_url: str,
) -> None:
    """The connection is cut while the commit is in flight: it fails as a connection
    error (whether Redis ran it is unknown); the retry with the same command id either
    applies it or is refused, and the command id says which version it made: one record
    either way."""
    client = create_redis(redis_url)
    store = TableStore(client)
    lines = lines_for(client)
    line = lines.for_key("x") if lines is not None else None
    assert line is not None
    tid = secrets.token_hex(6)
    try:
        await line.execute("PING")  # connected
        wire = line._wire
        assert wire is not None and wire.transport is not None
        pending = asyncio.ensure_future(store.commit(tid, 0, [record(1)], cid="once"))
        await asyncio.sleep(0)  # written, not answered yet
        wire.transport.abort()
        with pytest.raises(RedisConnectionError):
            await pending
        with contextlib.suppress(Conflict, Duplicate):  # Redis ran it before the cut
            assert await store.commit(tid, 0, [record(1)], cid="once") == 1
        assert await store.seen(tid, "once") == 1
        assert [r["v"] for r in await store.full_log(tid)] == [1]
    finally:
        await close_redis(client)


CLUSTER_URL = os.environ.get("BURACO_TEST_REDIS_CLUSTER_URL", "")


@pytest.mark.skipif(not CLUSTER_URL, reason="runs on the local cluster .ci/run starts")
async def test_on_a_cluster_the_timers_beside_a_commit_go_on_the_lean_lines() -> None:
    """The timers set is another slot than the table's, so on a cluster its ZADDs go
    beside the commit: on the lean line of each bucket's node, not redis-py's cluster
    client; a stale map of slots (MOVED) sends them through redis-py, which follows."""
    client: Any = create_redis(CLUSTER_URL)
    try:
        await client.initialize()
        store = TableStore(client, buckets=8)
        lines = lines_for(client)
        assert lines is not None
        keys: set[str] = set()
        while len({lines.for_key(k) for k in keys}) < 2:  # timers on two nodes
            tid = secrets.token_hex(6)
            members = [f"turn|{tid}|1:0:1.5", f"finish|{secrets.token_hex(4)}|0"]
            keys = {store.bucket(TIMERS_KEY, m) for m in members}
        real_zadd, through_redis_py = client.zadd, []

        def zadd(key: str, mapping: dict[str, float]) -> Any:
            through_redis_py.append(key)
            return real_zadd(key, mapping)

        client.zadd = zadd
        # Due an hour and two from now: the shared servers of the game tests, on this same
        # cluster, claim every timer that is due, this test's bogus ones too.
        soon, later_at = time.time() + 3600, time.time() + 7200
        assert await store.commit(tid, 0, [record(1)], timers=[(m, soon) for m in members]) == 1
        assert through_redis_py == []
        for m in members:
            assert await client.zscore(store.bucket(TIMERS_KEY, m), m) == soon
        # a stale map: every key's line is a node that does not hold it
        later = [(m, later_at) for m in members]
        real_for_key, nodes = lines.for_key, list(lines.by_node.values())

        def wrong(key: str) -> Any:
            right = real_for_key(key)
            return next(line for line in nodes if line is not right)

        lines.for_key = wrong  # type: ignore[method-assign]
        try:
            assert await store.commit(tid, 1, [record(2)], timers=later) == 2
        finally:
            lines.for_key = real_for_key  # type: ignore[method-assign]
        assert sorted(through_redis_py) == sorted(keys)
        for m in members:
            assert await client.zscore(store.bucket(TIMERS_KEY, m), m) == later_at
        for key, m in zip([store.bucket(TIMERS_KEY, m) for m in members], members, strict=True):
            await client.zrem(key, m)
    finally:
        await close_redis(client)
