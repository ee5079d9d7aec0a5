"""The lean pub/sub subscriber (app/core/redissub.py) on real Redis servers: a server of
the test's own that it stops, restarts and freezes, and the local cluster .ci/run starts,
whose slots it moves between nodes."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis

from app.core import redissub
from app.core.redis import close_redis, create_redis
from app.core.redissub import Subscriber
from tests.tables import test_hub_outage
from tests.tables.conftest import sync_client
from tests.tables.test_events import until
from tests.tables.test_hub_outage import RedisProcess


class Heard:
    """What a subscriber delivered: messages, and channels reported lost."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, str]] = []
        self.lost: list[set[str]] = []

    def message(self, channel: str, data: str) -> None:
        self.messages.append((channel, data))

    def gone(self, channels: set[str]) -> None:
        self.lost.append(set(channels))

    def data(self, channel: str) -> list[str]:
        return [d for c, d in self.messages if c == channel]


own_server = test_hub_outage.own_server  # a redis-server of the test's own


@pytest.fixture
async def client(own_server: RedisProcess) -> AsyncIterator[Any]:
    c = create_redis(own_server.url, timeout=0.5)
    yield c
    await close_redis(c)


@pytest.fixture
async def lean(client: Any) -> AsyncIterator[tuple[Subscriber, Heard]]:
    """A subscriber of the test's own server, and what it heard."""
    heard = Heard()
    sub = Subscriber.for_client(client, heard.message, heard.gone)
    assert sub is not None
    yield sub, heard
    await sub.close()


def publish(port: int, channel: str, data: str, *, sharded: bool = False) -> int:
    with redis.Redis(port=port) as r:
        return int(r.execute_command("SPUBLISH" if sharded else "PUBLISH", channel, data))


def numsub(port: int, channel: str) -> int:
    with redis.Redis(port=port) as r:
        return int(dict(r.pubsub_numsub(channel))[channel.encode()])


async def test_messages_arrive_in_order_and_stop_after_the_unsubscribe(
    own_server: RedisProcess, lean: tuple[Subscriber, Heard]
) -> None:
    sub, heard = lean
    await sub.subscribe("a")
    await sub.subscribe("b")
    await until(lambda: numsub(own_server.port, "a") == numsub(own_server.port, "b") == 1)
    for i in range(200):
        publish(own_server.port, "a" if i % 2 else "b", f'{{"n": {i}, "é": "ñ"}}')
    await until(lambda: len(heard.messages) == 200)
    assert heard.data("a") == [f'{{"n": {i}, "é": "ñ"}}' for i in range(1, 200, 2)]
    assert heard.data("b") == [f'{{"n": {i}, "é": "ñ"}}' for i in range(0, 200, 2)]

    sub.unsubscribe("a")
    await until(lambda: numsub(own_server.port, "a") == 0)
    assert publish(own_server.port, "a", "late") == 0
    publish(own_server.port, "b", "still")
    await until(lambda: heard.data("b")[-1:] == ["still"])
    assert "late" not in heard.data("a") and heard.lost == []


async def test_a_listener_that_fails_does_not_close_the_link(
    own_server: RedisProcess, client: Any
) -> None:
    heard = Heard()

    def listener(channel: str, data: str) -> None:
        if data == "boom":
            raise ValueError("a listener's bug")
        heard.message(channel, data)

    sub = Subscriber.for_client(client, listener, heard.gone)
    assert sub is not None
    try:
        await sub.subscribe("c")
        await until(lambda: numsub(own_server.port, "c") == 1)
        publish(own_server.port, "c", "boom")
        publish(own_server.port, "c", "after")
        await until(lambda: heard.data("c") == ["after"])
        assert heard.lost == [] and sub.subscribed("c")
    finally:
        await sub.close()


async def test_a_restarted_server_gets_back_only_the_channels_still_wanted(
    own_server: RedisProcess, lean: tuple[Subscriber, Heard]
) -> None:
    sub, heard = lean
    await sub.subscribe("kept")
    await sub.subscribe("left")
    await until(lambda: numsub(own_server.port, "kept") == 1)
    own_server.stop()
    await until(lambda: heard.lost == [{"kept", "left"}])  # their messages may be lost
    sub.unsubscribe("left")  # while Redis is down
    await sub.subscribe("new")  # while Redis is down: subscribed once it is back
    own_server.start()
    await until(lambda: numsub(own_server.port, "kept") == numsub(own_server.port, "new") == 1)
    assert numsub(own_server.port, "left") == 0
    for channel in ("kept", "new", "left"):
        publish(own_server.port, channel, channel)
    await until(lambda: len(heard.messages) == 2)
    assert sorted(heard.messages) == [("kept", "kept"), ("new", "new")]


async def test_a_frozen_server_is_found_hung_and_left_for_a_new_connection(
    own_server: RedisProcess, lean: tuple[Subscriber, Heard], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redissub, "KEEPALIVE_SECONDS", 0.3)  # ping a silent link soon
    monkeypatch.setattr(redissub, "WATCH_SECONDS", 0.1)
    sub, heard = lean
    assert sub.timeout == 0.5
    await sub.subscribe("f")
    await until(lambda: numsub(own_server.port, "f") == 1)
    await asyncio.sleep(1.0)
    assert heard.lost == []  # a quiet but live server answers the pings
    assert own_server.proc is not None
    os.kill(own_server.proc.pid, signal.SIGSTOP)  # the server hangs: nothing answers
    await until(lambda: heard.lost == [{"f"}], timeout=5)
    os.kill(own_server.proc.pid, signal.SIGCONT)
    await until(lambda: sub.subscribed("f") and numsub(own_server.port, "f") == 1)
    publish(own_server.port, "f", "again")
    await until(lambda: heard.data("f") == ["again"])


async def test_commands_it_cannot_use_are_left_to_redis_py() -> None:
    fake = create_redis("memory://")
    assert Subscriber.for_client(fake, print) is None
    unix = redis.asyncio.Redis(unix_socket_path="/tmp/none.sock")
    assert Subscriber.for_client(unix, print) is None
    await fake.aclose()


CLUSTER_URL = os.environ.get("BURACO_TEST_REDIS_CLUSTER_URL", "")


def move_slot(slot: int, src: redis.Redis, dst: redis.Redis) -> None:
    """Hand an empty slot from ``src`` to ``dst`` (both masters of the cluster)."""
    src_id, dst_id = (str(r.execute_command("CLUSTER MYID")) for r in (src, dst))
    dst.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", src_id)
    src.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", dst_id)
    dst.execute_command("CLUSTER SETSLOT", slot, "NODE", dst_id)
    src.execute_command("CLUSTER SETSLOT", slot, "NODE", dst_id)


def shardnumsub(port: int, channel: str) -> int:
    with redis.Redis(port=port) as r:
        return int(r.execute_command("PUBSUB", "SHARDNUMSUB", channel)[1])


@pytest.mark.skipif(not CLUSTER_URL, reason="runs on the local cluster .ci/run starts")
async def test_on_a_cluster_a_moved_slot_takes_its_channels_along() -> None:
    channel, sibling = "tch:{t:subslot}", "chat:{t:subslot}"
    setup = sync_client(CLUSTER_URL)
    slot = setup.keyslot(channel)
    home = setup.get_node_from_key(channel)
    other = next(n for n in setup.get_primaries() if n.port != home.port)
    src = redis.Redis(host=home.host, port=home.port, decode_responses=True)
    dst = redis.Redis(host=other.host, port=other.port, decode_responses=True)
    client = create_redis(CLUSTER_URL)
    stale = create_redis(CLUSTER_URL)  # learns the map before the move, then keeps it
    heard, heard_stale = Heard(), Heard()
    sub = Subscriber.for_client(client, heard.message, heard.gone)
    late = Subscriber.for_client(stale, heard_stale.message, heard_stale.gone)
    assert sub is not None and late is not None
    try:
        await stale.initialize()  # type: ignore[attr-defined]
        await sub.subscribe(channel, sharded=True)
        await sub.subscribe("lobby")  # a classic channel: any node hears every publish
        await until(lambda: shardnumsub(home.port, channel) == 1)
        publish(home.port, channel, "one", sharded=True)
        publish(other.port, "lobby", "hello")
        await until(lambda: heard.data(channel) == ["one"] and heard.data("lobby") == ["hello"])

        move_slot(slot, src, dst)
        # the old node ended the subscription; it is placed again on the new one
        await until(lambda: heard.lost == [{channel}])
        await until(lambda: shardnumsub(other.port, channel) == 1)
        assert shardnumsub(home.port, channel) == 0
        publish(other.port, channel, "two", sharded=True)
        await until(lambda: heard.data(channel) == ["one", "two"])

        # A subscriber whose map is stale is refused (MOVED), learns the map, and
        # subscribes where the slot is now.
        await late.subscribe(sibling, sharded=True)
        await until(lambda: shardnumsub(other.port, sibling) == 1)
        publish(other.port, sibling, "three", sharded=True)
        await until(lambda: heard_stale.data(sibling) == ["three"])
        assert heard.data("lobby") == ["hello"] and heard_stale.lost == []
    finally:
        await sub.close()
        await late.close()
        move_slot(slot, dst, src)
        await close_redis(client)
        await close_redis(stale)
        setup.close()
