"""The hub's subscriptions across a Redis outage (app/tables/live/fanout.py): a table left
while Redis is down is not subscribed to again when Redis comes back, while the tables
still watched are."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from app.core.redis import create_redis
from app.tables.live.fanout import Hub
from app.tables.storage.store import table_channel
from tests.support import free_port
from tests.tables.test_events import until


class RedisProcess:
    """A redis-server of this test's own that it can stop and start on one port."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed")
        self.binary, self.port = binary, free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as s, contextlib.suppress(OSError):
                s.connect(("127.0.0.1", self.port))
                return
            time.sleep(0.05)
        raise AssertionError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None

    def subscribers(self, channel: str) -> int:
        with redis.Redis(port=self.port) as r:
            return int(dict(r.pubsub_numsub(channel))[channel.encode()])


@pytest.fixture
def own_server() -> Iterator[RedisProcess]:
    server = RedisProcess()
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def test_a_table_left_while_redis_is_down_is_not_subscribed_again(
    own_server: RedisProcess,
) -> None:
    client = create_redis(own_server.url)
    hub = Hub(client)
    await hub.start()
    heard: list[str] = []

    def deliver(channel: str, payload: Any) -> None:
        heard.append(payload.get("t"))

    left, kept = table_channel("left"), table_channel("kept")
    try:
        await hub.add(left, deliver)
        await hub.add(kept, deliver)
        await until(lambda: own_server.subscribers(left) == own_server.subscribers(kept) == 1)

        own_server.stop()
        # Redis is gone: the unsubscribe is written to a dying link, or refused
        with contextlib.suppress(redis.RedisError, OSError):
            await hub.remove(left, deliver)
        assert left not in hub.listeners
        own_server.start()

        # the hub reconnects and subscribes again to what it still watches, only that
        await until(lambda: own_server.subscribers(kept) == 1)
        assert own_server.subscribers(left) == 0
        with redis.Redis(port=own_server.port) as r:
            r.publish(kept, b'{"t": "kept"}')
            r.publish(left, b'{"t": "left"}')
        await until(lambda: "kept" in heard)
        await asyncio.sleep(0.3)
        assert heard == ["kept"]
        assert hub.received[left] == 0  # nothing of the left table reached this process
    finally:
        await hub.stop()
        await client.aclose()
