"""The commit's own pipelined Redis connection (app/core/redisline.py), on a real Redis
and on small servers that misbehave on purpose."""

from __future__ import annotations

import asyncio
import os
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.core.redis import close_redis, create_redis
from app.core.redisline import RedisLine, lines_for, redirected

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[Redis]:
    c = create_redis(redis_url)
    yield c
    await close_redis(c)


@pytest.fixture
async def line(client: Redis) -> RedisLine:
    lines = lines_for(client)
    found = lines.for_key("any") if lines is not None else None
    assert found is not None
    return found


async def fake_server(handler: Handler) -> tuple[asyncio.Server, int]:
    """A TCP server calling ``handler(reader, writer, n)`` for its n-th connection."""
    count = 0

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal count
        count += 1
        await handler(reader, writer, count)

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def answer_a_ping(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"PING\r\n")
    writer.write(b"+PONG\r\n")
    await writer.drain()
    await asyncio.sleep(30)


async def test_concurrent_commands_share_one_connection_and_get_their_own_answers(
    line: RedisLine, client: Redis
) -> None:
    key = f"line:{secrets.token_hex(4)}"
    values = await asyncio.gather(*(line.execute("INCR", key) for _ in range(200)))
    assert sorted(values) == list(range(1, 201))  # each answer went to one caller
    names = await asyncio.gather(*(line.execute("ECHO", f"n{i}") for i in range(50)))
    assert names == [f"n{i}" for i in range(50)]  # and in the order asked
    clients = await client.client_list()
    assert sum(1 for c in clients if c.get("cmd") in ("incr", "echo")) == 1
    await client.delete(key)


async def test_an_error_reply_raises_and_the_line_goes_on(line: RedisLine, client: Redis) -> None:
    key = f"line:{secrets.token_hex(4)}"
    await line.execute("SET", key, "not a number")
    with pytest.raises(ResponseError):
        await line.execute("INCR", key)
    assert await line.execute("GET", key) == "not a number"
    await client.delete(key)


async def test_a_script_the_server_forgot_is_sent_whole(line: RedisLine, client: Redis) -> None:
    script = "return tonumber(ARGV[1]) + 1"
    assert await line.evalsha("0" * 40, script, [], [41]) == 42  # a sha it never saw
    await client.script_flush()
    real = await client.script_load(script)
    await client.script_flush()  # known once, forgotten by a flush: sent whole again
    assert await line.evalsha(real, script, [], [1]) == 2
    assert await line.evalsha(real, script, [], [2]) == 3  # kept by EVAL: EVALSHA works


async def test_an_unanswered_command_times_out_and_the_next_connects_again() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        if n == 1:
            await reader.read(1000)  # never answers
            await asyncio.sleep(30)
        else:
            await answer_a_ping(reader, writer)

    server, port = await fake_server(silent)
    line = RedisLine("127.0.0.1", port, timeout=0.4)
    started = time.monotonic()
    results = await asyncio.gather(
        line.execute("GET", "a"), line.execute("GET", "b"), return_exceptions=True
    )
    assert all(isinstance(r, RedisTimeoutError) for r in results), results
    assert time.monotonic() - started < 2.0
    assert await line.execute("PING") == "PONG"  # a new connection, which answers
    await line.close()
    server.close()


async def test_a_lost_connection_fails_what_is_in_flight_and_is_made_again() -> None:
    async def drops_first(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
    ) -> None:
        await reader.readuntil(b"\r\n")
        if n == 1:
            writer.transport.abort()
            return
        await answer_a_ping(reader, writer)

    server, port = await fake_server(drops_first)
    line = RedisLine("127.0.0.1", port, timeout=5)
    with pytest.raises(RedisConnectionError):
        await line.execute("GET", "a")
    assert await line.execute("PING") == "PONG"
    await line.close()
    server.close()


async def test_nothing_listening_is_a_connection_error() -> None:
    server, port = await fake_server(lambda r, w, n: asyncio.sleep(0))
    server.close()
    await server.wait_closed()
    line = RedisLine("127.0.0.1", port, timeout=1)
    with pytest.raises(RedisConnectionError):
        await line.execute("PING")
    await line.close()
    with pytest.raises(RedisConnectionError):  # closed for good
        await line.execute("PING")


async def test_only_plain_servers_get_a_line_and_each_client_one(client: Redis) -> None:
    lines = lines_for(client)
    assert lines is not None and lines is lines_for(client)
    assert lines.for_key("a") is lines.for_key("b")  # one server, one line
    assert lines_for(create_redis("memory://")) is None  # the embedded fakeredis
    tls = create_redis("rediss://127.0.0.1:6390/0")
    assert lines_for(tls) is None
    await close_redis(tls)


def test_a_redirection_is_told_from_a_real_error() -> None:
    assert redirected(ResponseError("MOVED 3999 127.0.0.1:7102"))
    assert redirected(ResponseError("ASK 3999 127.0.0.1:7102"))
    assert not redirected(ResponseError("ERR wrong number of arguments"))


CLUSTER_URL = os.environ.get("BURACO_TEST_REDIS_CLUSTER_URL", "")


@pytest.mark.skipif(not CLUSTER_URL, reason="runs on the local cluster .ci/run starts")
async def test_on_a_cluster_each_key_goes_to_its_node_and_a_stale_map_falls_back() -> None:
    from app.tables.storage.store import TableStore, k_hash

    client = create_redis(CLUSTER_URL)
    try:
        await client.initialize()  # type: ignore[attr-defined]
        lines = lines_for(client)
        assert lines is not None
        keys = [f"{{t:{i}}}:x" for i in range(40)]
        nodes = {lines.for_key(k) for k in keys}
        assert len(nodes) == 3  # three masters, a line each
        for key in keys:  # every key written through its node's line is where it belongs
            assert await lines.for_key(key).execute("SET", key, "1") == "OK"  # type: ignore[union-attr]
            assert await client.get(key) == "1"
        # A stale map: the line of another node answers MOVED; redis-py then commits.
        store = TableStore(client)
        table = f"line{secrets.token_hex(3)}"
        here = lines.for_key(k_hash(table))
        wrong = next(line for line in nodes if line is not here)
        real_for_key = lines.for_key
        lines.for_key = lambda key: wrong  # type: ignore[method-assign]
        try:
            v = await store.commit(table, 0, [{"v": 1, "k": "m", "x": 1}], meta=b"{}")
        finally:
            lines.for_key = real_for_key  # type: ignore[method-assign]
        assert v == 1 and await client.hget(k_hash(table), "v") == "1"
        await client.delete(*keys)
    finally:
        await close_redis(client)
