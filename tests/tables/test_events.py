"""Events on the bus, not states (app/tables/storage/store.py, cache.py, fanout.py).

Games are played by scripted people on two real server processes; besides them, THIS
test process runs the production hub and table cache on the same Redis, as any other
server process would, so its cached state can be compared with the engine's fold of the
archived game at every version it passed through.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
import redis
from redis.asyncio import Redis

from app.core.config import Settings
from app.core.redis import create_redis
from app.rules.serialize import state_from_dict, state_to_dict
from app.tables.live.fanout import Hub
from app.tables.play.service import TableService
from app.tables.storage.store import k_hash, table_channel
from tests.tables.conftest import no_crash
from tests.tables.harness import Player, Server, archived_game, create_table, sit
from tests.tables.spy import check_viewer, truth_from_archive
from tests.tables.test_games import SHORT_2P, play_game, seat_players


class Watcher:
    """A hub and cache in this process, watching tables as a server process would."""

    def __init__(self, client: Redis, hub: Hub, svc: TableService) -> None:
        self.client, self.hub, self.svc = client, hub, svc
        self.seen: list[tuple[int, dict[str, Any] | None]] = []  # (v, state) per message

    def deliver(self, channel: str, payload: Any) -> None:
        entry = self.svc.cache.get(payload["t"])
        if entry is not None:  # the hub has already folded this message into the cache
            state = entry.state()
            self.seen.append((entry.v, state_to_dict(state) if state is not None else None))

    async def watch(self, table_id: str) -> int:
        await self.hub.add(table_channel(table_id), self.deliver)
        v, _, _ = await self.svc.load(table_id)
        return v

    async def unwatch(self, table_id: str) -> None:
        await self.hub.remove(table_channel(table_id), self.deliver)


@pytest.fixture
async def watcher(tables_redis: str) -> AsyncIterator[Watcher]:
    client = create_redis(tables_redis)
    svc = TableService(client, Settings(env="test", redis_url=tables_redis))
    hub = Hub(client, svc)
    await hub.start()
    try:
        yield Watcher(client, hub, svc)
    finally:
        await hub.stop()
        await client.aclose()


def subscribers(redis_sync: Any, channel: str) -> int:
    """Processes subscribed to a table's channel (a sharded one on a cluster)."""
    if isinstance(redis_sync, redis.RedisCluster):
        node = redis_sync.get_node_from_key(channel)
        with redis.Redis(host=node.host, port=node.port) as shard:
            reply = shard.execute_command("PUBSUB", "SHARDNUMSUB", channel)
        return int(reply[1])
    return int(dict(redis_sync.pubsub_numsub(channel))[channel.encode()])


def stored_state(redis_sync: redis.Redis, tid: str) -> dict[str, Any]:
    raw = redis_sync.hget(k_hash(tid), "state")
    assert raw is not None
    return state_to_dict(state_from_dict(orjson.loads(raw)))


async def until(pred: Any, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def test_a_full_game_through_the_event_path_equals_the_engines_fold(
    servers: list[Server], watcher: Watcher, redis_sync: redis.Redis
) -> None:
    tid, people = await seat_players(servers, "cerrado", 2, SHORT_2P)
    try:
        await watcher.watch(tid)  # before any move: the deal is the only state yet
        await play_game(tid, people, seed=7)
        game = await archived_game(people[0], people[0].tables[tid].game_id or "")
        truth = truth_from_archive(game)
        await until(
            lambda: (
                watcher.svc.cache.get(tid) is not None
                and watcher.svc.cache.get(tid).v == truth.last_v
            )
        )  # type: ignore[union-attr]
        # every version the cache passed through holds the engine's state at it
        folded = [(v, s) for v, s in watcher.seen if s is not None]
        assert len(folded) > 20
        for v, state in folded:
            assert state == state_to_dict(truth.state_at(v)), f"cache wrong at v{v}"
        assert folded[-1][1] == stored_state(redis_sync, tid)
        assert watcher.hub.reloads == 0  # nothing was lost, so it never read the state
        # the servers' messages carried no state: a game's moves are events only
        meta = watcher.svc.cache.get(tid).meta()  # type: ignore[union-attr]
        assert meta.status == "finished"
    finally:
        for p in people:
            await p.aclose()
    for s in servers:
        no_crash(s)


async def test_a_process_joining_mid_game_catches_up(
    servers: list[Server], watcher: Watcher, redis_sync: redis.Redis
) -> None:
    tid, people = await seat_players(servers, "cerrado", 2, SHORT_2P)
    late = await Player.guest(servers[1].base)
    try:
        rngs = [random.Random(30 + i) for i in range(2)]
        for _ in range(12):  # a few turns before anyone else looks
            for p, rng in zip(people, rngs, strict=True):
                if p.tables[tid].my_turn():
                    await p.play_turn_step(tid, rng)
        joined_at = await watcher.watch(tid)
        assert joined_at > 5
        await late.connect(servers[1].ws_url)  # a spectator who then resumes from the stream
        await late.watch(tid)
        seen_v = late.tables[tid].v
        await late.disconnect()
        for _ in range(6):
            for p, rng in zip(people, rngs, strict=True):
                if p.tables[tid].my_turn():
                    await p.play_turn_step(tid, rng)
        # The players' own sockets may still be delivering the last of those moves.
        await people[0].until(lambda: people[0].tables[tid].v > seen_v, timeout=10)
        await late.connect(servers[1].ws_url)
        resumed = await late.watch(tid, last_v=seen_v)
        assert resumed["type"] == "resume"
        await play_game(tid, people, seed=31)
        game = await archived_game(people[0], people[0].tables[tid].game_id or "")
        truth = truth_from_archive(game)
        await until(
            lambda: (
                watcher.svc.cache.get(tid) is not None
                and watcher.svc.cache.get(tid).v == truth.last_v
            )
        )  # type: ignore[union-attr]
        for v, state in watcher.seen:
            assert v > joined_at and state == state_to_dict(truth.state_at(v))
        assert watcher.seen and watcher.hub.reloads == 0
        await late.until(lambda: late.tables[tid].v >= truth.last_v)
        assert check_viewer(late.frames, truth, tid, None, late.conn_starts) > 0
    finally:
        for p in [*people, late]:
            await p.aclose()


async def test_a_gap_forces_a_reload(
    servers: list[Server], watcher: Watcher, redis_sync: redis.Redis
) -> None:
    host = await Player.guest(servers[0].base)
    guest = await Player.guest(servers[1].base)
    try:
        tid = (await create_table(host, name="gap"))["id"]
        v = await watcher.watch(tid)
        # A record committed with its publish lost on the way (as pub/sub may lose one)
        lost = {"k": "t", "change": "noted", "meta": {}, "v": v + 1}
        await watcher.svc.store.commit(tid, v, [lost], channel="")
        await asyncio.sleep(0.2)
        assert watcher.svc.cache.get(tid).v == v  # type: ignore[union-attr]
        assert watcher.hub.reloads == 0
        await sit(guest, tid, 1)  # the next records arrive: v + 2 and on, after v

        def in_step() -> bool:
            entry = watcher.svc.cache.get(tid)
            return entry is not None and entry.v == int(redis_sync.hget(k_hash(tid), "v"))

        await until(lambda: watcher.hub.reloads >= 1 and in_step())
        entry = watcher.svc.cache.get(tid)
        assert entry is not None and entry.v >= v + 2
        assert entry.meta().seat_of(guest.id) == 1  # the reload read Redis' meta
    finally:
        await host.aclose()
        await guest.aclose()


async def test_only_processes_watching_a_table_receive_its_messages(
    servers: list[Server], watcher: Watcher, redis_sync: redis.Redis
) -> None:
    host = await Player.guest(servers[0].base)
    other = await Player.guest(servers[0].base)
    try:
        watched = (await create_table(host, name="watched"))["id"]
        unwatched = (await create_table(other, name="unwatched"))["id"]
        await host.connect(servers[0].ws_url)
        await host.watch(unwatched)  # server 0 only; server 1 has no socket on it
        channel = table_channel(unwatched)
        assert subscribers(redis_sync, channel) == 1
        await watcher.watch(watched)
        third = await Player.guest(servers[1].base)
        fourth = await Player.guest(servers[1].base)
        await sit(third, unwatched, 1)
        await sit(fourth, watched, 1)
        await third.aclose()
        await fourth.aclose()
        await until(lambda: watcher.hub.received[table_channel(watched)] >= 1)
        await until(lambda: host.tables[unwatched].v >= 2)
        assert watcher.hub.received[channel] == 0  # never sent to this process
        await host.send({"type": "unwatch", "table": unwatched})
        await until(lambda: subscribers(redis_sync, channel) == 0)
        await watcher.unwatch(watched)
        assert watcher.svc.cache.get(watched) is None  # forgotten with the last watcher
    finally:
        await host.aclose()
        await other.aclose()
