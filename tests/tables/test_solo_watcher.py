"""A commit of a table that only the committing process watches is not published: the
process hands the message to its own hub (store.COMMIT_LUA, WATCH_LUA, fanout.Hub). As
soon as a second process watches, every commit is published again; when Redis has lost
the watchers, every commit is published too. Real Redis, real hubs; a plain subscriber
on the table's channel (not a watcher) sees exactly what was published."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
from redis.asyncio import Redis

from app.core.config import Settings
from app.core.redis import create_redis
from app.rules.greedy import GreedyBot
from app.tables.live.fanout import Hub
from app.tables.play.service import TableService
from app.tables.storage.store import k_hash, k_log, k_watchers, table_channel
from tests.tables.test_retries import rename
from tests.tables.test_saved_state import dealt, move


class Process:
    """A server process's table service and hub, and what its listener was handed."""

    def __init__(self, svc: TableService, hub: Hub) -> None:
        self.svc, self.hub = svc, hub
        self.got: list[dict[str, Any]] = []

    def deliver(self, channel: str, payload: Any) -> None:
        self.got.append(payload)

    async def watch(self, table_id: str) -> None:
        await self.hub.add(table_channel(table_id), self.deliver)

    async def unwatch(self, table_id: str) -> None:
        await self.hub.remove(table_channel(table_id), self.deliver)

    def versions(self) -> list[int]:
        return [r["v"] for p in self.got for r in p["records"]]

    async def handed(self, last: int) -> list[int]:
        """The versions handed so far, once ``last`` is among them (or after a second:
        a message through pub/sub arrives within milliseconds)."""
        for _ in range(50):
            if last in self.versions():
                break
            await asyncio.sleep(0.02)
        return self.versions()


@pytest.fixture
async def procs(tables_redis: str) -> AsyncIterator[tuple[Redis, list[Process]]]:
    client = create_redis(tables_redis)
    settings = Settings(env="test", redis_url=tables_redis)
    made = []
    for _ in range(2):
        svc = TableService(client, settings)
        hub = Hub(client, svc)
        await hub.start()
        made.append(Process(svc, hub))
    try:
        yield client, made
    finally:
        for p in made:
            await p.hub.stop()
        await client.aclose()


class Published:
    """Every message published on a table's channel, read by a plain subscriber."""

    def __init__(self, client: Redis, table_id: str) -> None:
        self.pubsub = client.pubsub()
        self.channel = table_channel(table_id)
        self.bodies: list[str] = []

    async def __aenter__(self) -> Published:
        await self.pubsub.subscribe(self.channel)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.pubsub.aclose()

    async def drain(self) -> list[str]:
        """What arrived so far (a publish reaches a subscriber within milliseconds)."""
        await asyncio.sleep(0.2)
        quiet = 0
        while quiet < 3:  # a subscription's own confirmation also reads as None
            message = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=0.05)
            if message is None:
                quiet += 1
                continue
            quiet = 0
            data = message["data"]
            self.bodies.append(data.decode() if isinstance(data, bytes) else data)
        taken, self.bodies = self.bodies, []
        return taken


async def logged(client: Redis, table_id: str, v_from: int, v_to: int) -> list[Any]:
    return [orjson.loads(r) for r in await client.lrange(k_log(table_id), v_from - 1, v_to - 1)]


async def test_the_only_watcher_commits_without_a_publish_and_its_hub_gets_the_message(
    procs: tuple[Redis, list[Process]],
) -> None:
    client, (a, _) = procs
    table, v0, state = await dealt(a.svc, 11)
    await a.watch(table.id)
    assert await client.hget(k_hash(table.id), "solo") == a.svc.proc_id
    bots = [GreedyBot(), GreedyBot()]
    async with Published(client, table.id) as published:
        v = v0
        for _ in range(6):
            v, _ = await a.svc.mutate(table.id, move(bots))
        v, _ = await a.svc.mutate(table.id, rename("solo"))  # a new meta rides along
        assert await published.drain() == []  # nothing went through Redis's pub/sub
    # ...yet the hub was handed every version, in order, as the log holds them, and its
    # cache followed them.
    assert a.versions() == list(range(v0 + 1, v + 1))
    records = [{k: x for k, x in r.items() if k != "_ev"} for p in a.got for r in p["records"]]
    assert records == await logged(client, table.id, v0 + 1, v)
    assert all(p["t"] == table.id and isinstance(p["at"], float) for p in a.got)
    entry = a.svc.cache.get(table.id)
    assert entry is not None and entry.v == v and entry.meta().name == "solo"


async def test_a_second_watcher_gets_every_commit_published_and_alone_again_none(
    procs: tuple[Redis, list[Process]],
) -> None:
    client, (a, b) = procs
    table, v0, _ = await dealt(a.svc, 12)
    await a.watch(table.id)
    await b.watch(table.id)
    assert await client.hget(k_hash(table.id), "solo") is None
    async with Published(client, table.id) as published:
        v1, _ = await a.svc.mutate(table.id, rename("by a"))
        v2, _ = await b.svc.mutate(table.id, rename("by b"))
        bodies = await published.drain()
        assert [orjson.loads(body.partition("\n")[0])["records"][0]["v"] for body in bodies] == [
            v1,
            v2,
        ]
        for p in (a, b):  # each hub got both, once each
            assert await p.handed(v2) == [v1, v2]

        await b.unwatch(table.id)  # a is the only watcher again
        assert await client.hget(k_hash(table.id), "solo") == a.svc.proc_id
        v3, _ = await a.svc.mutate(table.id, rename("alone"))
        v4, _ = await b.svc.mutate(table.id, rename("from b, unwatched"))
        bodies = await published.drain()
        # b's commit is published (a watches it); a's own is not, and reaches a directly
        assert [orjson.loads(body.partition("\n")[0])["records"][0]["v"] for body in bodies] == [v4]
        assert await a.handed(v4) == [v1, v2, v3, v4]
        assert b.versions() == [v1, v2]
    await a.unwatch(table.id)
    assert await client.hget(k_hash(table.id), "solo") is None
    assert await client.scard(k_watchers(table.id)) == 0


async def test_watchers_lost_by_redis_are_counted_again_and_meanwhile_everything_publishes(
    procs: tuple[Redis, list[Process]],
) -> None:
    client, (a, b) = procs
    table, _, _ = await dealt(a.svc, 13)
    await a.watch(table.id)
    await client.delete(k_watchers(table.id))  # as after a failover that lost them
    await client.hdel(k_hash(table.id), "solo")
    async with Published(client, table.id) as published:
        # Nothing known about the watchers: every commit is published, a's own too.
        v1, _ = await a.svc.mutate(table.id, rename("unknown"))
        assert len(await published.drain()) == 1

        # b starts watching and seems to be the only watcher: its own commit is not
        # published, and a misses it (its viewers fill the gap from the log)...
        await b.watch(table.id)
        assert await client.hget(k_hash(table.id), "solo") == b.svc.proc_id
        v2, _ = await b.svc.mutate(table.id, rename("b alone"))
        assert await published.drain() == []

        # ...until a counts itself again, as its heartbeat does once it finds that Redis
        # lost its data (play/timers.py runs the rejoin hooks), or its subscriber that
        # it lost the connection: from then on b's commits are published again.
        for hook in a.svc.rejoin_hooks:
            await hook()
        assert await client.hget(k_hash(table.id), "solo") is None
        assert await client.smembers(k_watchers(table.id)) == {
            a.svc.proc_id,
            b.svc.proc_id,
        }
        v3, _ = await b.svc.mutate(table.id, rename("b with a"))
        bodies = await published.drain()
    assert [orjson.loads(x.partition("\n")[0])["records"][0]["v"] for x in bodies] == [v3]
    assert (v1, v2, v3) == (v1, v1 + 1, v1 + 2)
    assert await a.handed(v3) == [v1, v3]


async def test_a_commit_published_nowhere_is_not_handed_to_the_hub_either(
    procs: tuple[Redis, list[Process]],
) -> None:
    client, (a, _) = procs
    table, v0, _ = await dealt(a.svc, 14)
    await a.watch(table.id)
    records = [{"k": "t", "change": "renamed", "meta": {"name": "gap"}, "v": v0 + 1}]
    assert await a.svc.store.commit(table.id, v0, records, channel="") == v0 + 1
    assert a.got == []  # tests make gaps so; the hub finds it at the next message
