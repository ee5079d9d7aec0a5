"""Blocks that stop challenges and invitations, limits on both, the socket cap and the
special-table credit of quick play, each checked again after the Redis is flushed in
the middle. Real uvicorn processes on Postgres and a Redis database of their own."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import asyncpg
import pytest
import redis

from tests.support import asyncpg_dsn
from tests.tables.conftest import sync_client
from tests.tables.harness import Player, Server, close_all, start_servers
from tests.tables.test_friends import seated_table

CAP = 3


@pytest.fixture(scope="module")
def flushable(
    pg_url: str, own_redis: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[list[Server], str]]:
    """Two processes whose heartbeat comes every half second (so they notice a flush
    soon), a cap of 3 sockets per user, on a Redis the tests here may flush."""
    procs = start_servers(
        2,
        pg_url,
        own_redis,
        tmp_path_factory.mktemp("flushable"),
        process_dead_after_seconds=2,
        ws_max_sockets_per_user=CAP,
        turn_seconds=300,
        disconnect_grace_seconds=300,
    )
    yield procs, own_redis
    for p in procs:
        p.stop()


def _flush(url: str) -> None:
    client: redis.Redis = sync_client(url)
    client.flushdb()
    client.close()


async def _player(base: str, name: str) -> Player:
    return await Player.registered(base, f"{name}{time.monotonic_ns() % 10**8}")


async def _table(p: Player) -> str:
    r = await p.http.post("/api/tables", json={"preset": "cerrado", "players": 2})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def _code(r: Any) -> str:
    return str(r.json()["error"]["code"])


async def test_a_block_stops_challenges_and_invitations_both_ways_after_a_flush(
    flushable: tuple[list[Server], str],
) -> None:
    (s0, s1), url = flushable
    a, b = await _player(s0.base, "blk"), await _player(s1.base, "blkd")
    try:
        await b.connect(s1.ws_url)  # online: its profile would offer "Retar"
        assert (await a.http.get(f"/api/profiles/{b.id}")).json()["can_challenge"] is True
        assert (await b.http.post("/api/blocks", json={"user_id": a.id})).status_code == 204
        for flushed in (False, True):
            if flushed:
                _flush(url)
                await b.connect(s1.ws_url)
            profile = (await a.http.get(f"/api/profiles/{b.id}")).json()
            assert profile["online"] is True and profile["can_challenge"] is False
            r = await a.http.post("/api/challenges", json={"username": b.me["username"]})
            assert (r.status_code, _code(r)) == (403, "blocked"), r.text
            assert "challenge" in r.json()["error"]["message"]
            r = await b.http.post("/api/challenges", json={"username": a.me["username"]})
            assert (r.status_code, _code(r)) == (403, "blocked"), r.text
            tid = await _table(a)
            r = await a.http.post(
                f"/api/tables/{tid}/invite", json={"usernames": [b.me["username"]]}
            )
            assert (r.status_code, _code(r)) == (403, "blocked"), r.text
            assert (await a.http.get(f"/api/tables/{tid}")).json()["invited"] == []
        assert not [f for f in b.frames if f["type"] in ("challenge", "invitation")]
        assert (await b.http.delete(f"/api/blocks/{a.id}")).status_code == 204
        r = await a.http.post("/api/challenges", json={"username": b.me["username"]})
        assert r.status_code == 201, r.text
    finally:
        await close_all([a, b], [])


async def test_a_challenge_sent_before_a_block_cannot_be_accepted_after_it(
    flushable: tuple[list[Server], str],
) -> None:
    (s0, s1), _ = flushable
    a, b = await _player(s0.base, "early"), await _player(s1.base, "late")
    try:
        r = await a.http.post("/api/challenges", json={"username": b.me["username"]})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        assert (await a.http.post("/api/blocks", json={"user_id": b.id})).status_code == 204
        r = await b.http.post(f"/api/challenges/{tid}/accept")
        assert (r.status_code, _code(r)) == (403, "blocked"), r.text
        seats = (await a.http.get(f"/api/tables/{tid}")).json()["seats"]
        assert [s["user_id"] for s in seats if s] == [a.id]
        assert (await b.http.post(f"/api/challenges/{tid}/decline")).status_code == 200
    finally:
        await close_all([a, b], [])


async def test_invitation_usernames_count_once_whatever_their_case(
    flushable: tuple[list[Server], str],
) -> None:
    (s0, _), _ = flushable
    a, b = await _player(s0.base, "host"), await _player(s0.base, "Guest")
    try:
        await b.connect(s0.ws_url)
        tid = await _table(a)
        name = b.me["username"]
        r = await a.http.post(
            f"/api/tables/{tid}/invite", json={"usernames": [name, name.upper(), name.lower()]}
        )
        assert r.status_code == 200 and r.json()["invited"] == [b.id], r.text
        await b.wait_frame(lambda f: f["type"] == "invitation", timeout=5)
        await asyncio.sleep(0.5)
        assert len([f for f in b.frames if f["type"] == "invitation"]) == 1
    finally:
        await close_all([a, b], [])


async def test_challenges_and_invitations_share_a_rate_limit(
    flushable: tuple[list[Server], str],
) -> None:
    (s0, s1), _ = flushable
    a, b = await _player(s0.base, "spam"), await _player(s1.base, "tgt")
    try:
        tid = await _table(a)
        body = {"usernames": [b.me["username"]]}
        answers = await asyncio.gather(
            *(a.http.post(f"/api/tables/{tid}/invite", json=body) for _ in range(30))
        )
        codes = sorted(r.status_code for r in answers)
        assert codes == [200] * 10 + [429] * 20, codes
        refused = next(r for r in answers if r.status_code == 429)
        assert _code(refused) == "rate_limited" and int(refused.headers["Retry-After"]) >= 1
        r = await a.http.post("/api/challenges", json={"username": b.me["username"]})
        assert (r.status_code, _code(r)) == (429, "rate_limited"), r.text
        # Someone else's budget is their own.
        r = await b.http.post("/api/challenges", json={"username": a.me["username"]})
        assert r.status_code == 201, r.text
    finally:
        await close_all([a, b], [])


async def _closed(p: Player, timeout: float) -> tuple[int | None, str | None]:
    assert p.reader is not None and p.ws is not None
    await asyncio.wait_for(asyncio.shield(p.reader), timeout)
    return p.ws.close_code, p.ws.close_reason


async def _alive(p: Player) -> None:
    mark = await p.send({"type": "ping"})
    await p.wait_frame(lambda f: f["type"] == "pong", since=mark, timeout=5)


async def test_the_socket_cap_holds_after_a_redis_flush(
    flushable: tuple[list[Server], str],
) -> None:
    """The cap is counted again from the live sockets: after FLUSHDB one more socket
    still closes the oldest (4008), and a closed socket frees its place."""
    (s0, s1), url = flushable
    p = await Player.guest(s0.base)
    tabs = [p.tab() for _ in range(CAP + 2)]
    client: redis.Redis = sync_client(url)
    key = f"ws:user:{p.id}"
    try:
        for i, tab in enumerate(tabs[:CAP]):
            await tab.connect((s0, s1)[i % 2].ws_url)
        # the flush and the count in one transaction: a heartbeat between the two would
        # count its socket again before the count is read
        pipe = client.pipeline(transaction=True)
        pipe.flushdb()
        pipe.zcard(key)
        assert pipe.execute()[1] == 0
        await tabs[CAP].connect(s0.ws_url)  # one over the cap, right after the flush
        assert await _closed(tabs[0], 5) == (4008, "too_many_sockets")
        for tab in tabs[1 : CAP + 1]:
            await _alive(tab)
        assert client.zcard(key) == CAP
        await tabs[1].disconnect()  # a closed socket frees its place
        await tabs[CAP + 1].connect(s1.ws_url)
        await asyncio.sleep(1.5)  # a few heartbeats: nothing counted twice
        for tab in tabs[2:]:
            await _alive(tab)
        assert client.zcard(key) == CAP
    finally:
        client.close()
        for tab in tabs:
            await tab.disconnect()
        await p.http.aclose()


async def _special_holds(pg_url: str, user_id: int) -> dict[str, int]:
    conn = await asyncpg.connect(asyncpg_dsn(pg_url))
    try:
        rows = await conn.fetch(
            "SELECT key, balance FROM accounts WHERE kind = 'hold' AND key LIKE 'special:%'"
            " AND user_id = $1",
            user_id,
        )
    finally:
        await conn.close()
    return {r["key"]: int(r["balance"]) for r in rows}


async def test_quick_play_for_four_pays_the_credit_once_even_raced_and_flushed(
    flushable: tuple[list[Server], str], pg_url: str
) -> None:
    """Pairs is a special table however it opens: quick play for 4 holds the opener's
    credit. The same quick play 20 times at once opens one table and holds one credit;
    a flush half-way loses that table, and the next ones open (and pay for) one more."""
    (s0, s1), url = flushable
    a = await _player(s0.base, "quick")
    body = {"preset": "burraco", "players": 4}
    try:
        start = (await a.http.get("/api/wallet")).json()["credits"]
        first = await asyncio.gather(*(a.http.post("/api/quickplay", json=body) for _ in range(10)))
        assert all(r.status_code == 200 for r in first), [r.text for r in first]
        assert {r.json()["id"] for r in first} == {first[0].json()["id"]}
        assert first[0].json()["special"] is True
        assert (await a.http.get("/api/wallet")).json()["credits"] == start - 1
        _flush(url)
        second = await asyncio.gather(
            *(a.http.post("/api/quickplay", json=body) for _ in range(10))
        )
        assert all(r.status_code == 200 for r in second), [r.text for r in second]
        tables = {r.json()["id"] for r in second}
        assert len(tables) == 1 and tables != {first[0].json()["id"]}
        assert (await a.http.get("/api/wallet")).json()["credits"] == start - 2
        holds = await _special_holds(pg_url, a.id)
        assert holds == {f"special:{first[0].json()['id']}": 1, f"special:{tables.pop()}": 1}
    finally:
        await a.aclose()


async def test_a_raced_rematch_of_a_special_table_holds_its_credit_once(
    flushable: tuple[list[Server], str],
) -> None:
    """A turbo table's game played out, then both players offer and accept the rematch
    ten times each at once: one new table, and the host pays one more credit for it."""
    (s0, _), _ = flushable
    a, b = await _player(s0.base, "rema"), await _player(s0.base, "remb")
    try:
        for p in (a, b):
            await p.connect(s0.ws_url)
        start = (await a.http.get("/api/wallet")).json()["credits"]
        tid = await seated_table(a, b, turbo=True)
        assert a.tables[tid].meta["special"] is True
        for p in (a, b):
            assert (await p.http.post(f"/api/tables/{tid}/leave")).status_code == 200
        for p in (a, b):
            await p.until(lambda p=p: p.tables[tid].status == "finished", timeout=30)
        assert (await a.http.get("/api/wallet")).json()["credits"] == start - 1
        answers = await asyncio.gather(
            *(p.http.post(f"/api/tables/{tid}/rematch") for _ in range(10) for p in (a, b))
        )
        assert all(r.status_code == 200 for r in answers), [r.text for r in answers]
        final = (await a.http.get(f"/api/tables/{tid}/rematch")).json()
        assert final["state"] == "started", final
        new = final["new_table"]
        assert (await a.http.get(f"/api/tables/{new}")).json()["special"] is True
        assert (await a.http.get("/api/wallet")).json()["credits"] == start - 2
        assert (await b.http.get("/api/wallet")).json()["credits"] == start
    finally:
        await close_all([a, b], [])
