"""Sockets that must close: a foreign Origin, an ended session (on every process), a user
or address over its cap. Real uvicorn processes on the test Postgres and Redis."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import asyncpg
import httpx
import pytest
import websockets

from tests.support import asyncpg_dsn
from tests.tables.harness import Player, Server, close_all, start_servers

SESSION_ENDED = (4001, "session_ended")


async def _closed(p: Player, timeout: float) -> tuple[int | None, str | None]:
    """Wait for the server to close ``p``'s socket; its close code and reason."""
    assert p.reader is not None and p.ws is not None
    await asyncio.wait_for(asyncio.shield(p.reader), timeout)
    return p.ws.close_code, p.ws.close_reason


async def _alive(p: Player) -> None:
    mark = await p.send({"type": "ping"})
    await p.wait_frame(lambda f: f["type"] == "pong", since=mark, timeout=5)


async def _registered(base: str, name: str) -> Player:
    return await Player.registered(base, f"{name}{time.monotonic_ns() % 10**8}")


async def _second_session(p: Player, base: str) -> Player:
    """The same account signed in again elsewhere: its own cookie, its own session."""
    http = httpx.AsyncClient(base_url=base, timeout=20)
    r = await http.post(
        "/api/auth/login", json={"username": p.me["username"], "password": "secret-pass-1"}
    )
    assert r.status_code == 200, r.text
    return Player(base, r.json(), http)


async def test_foreign_origin_socket_is_closed_4003_and_own_origin_on_any_port_works(
    servers: list[Server],
) -> None:
    a = servers[0]
    p = await Player.guest(a.base)
    try:
        async with websockets.connect(
            a.ws_url,
            additional_headers={
                "Cookie": f"buraco_session={p.cookie}",
                "Origin": "http://evil.example",
            },
        ) as ws:
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 5)
            assert (ws.close_code, ws.close_reason) == (4003, "bad_origin")
        assert "WARNING" in a.log() and "'http://evil.example'" in a.log()
        # The site's own origin, on a port that is not 8000 and is in no list.
        await p.connect(a.ws_url, origin=a.base)
        await _alive(p)
    finally:
        await p.aclose()


async def test_logout_closes_that_sessions_sockets_on_both_processes(servers: list[Server]) -> None:
    a, b = servers
    p = await _registered(a.base, "out")
    tab = p.tab()
    other = await _second_session(p, b.base)
    try:
        await p.connect(a.ws_url)
        await tab.connect(b.ws_url)
        await other.connect(b.ws_url)
        started = time.monotonic()
        assert (await p.http.post("/api/auth/logout")).status_code == 204
        assert await _closed(p, 1.5) == SESSION_ENDED
        assert await _closed(tab, 1.5) == SESSION_ENDED
        took = time.monotonic() - started
        print(f"\nlogout to both sockets closed (2 processes): {took * 1000:.0f} ms")
        assert took < 1.5
        await _alive(other)  # another session of the same account is untouched
    finally:
        for x in (p, tab, other):
            await x.disconnect()
        await p.http.aclose()
        await other.http.aclose()


async def test_password_change_ends_the_other_sessions_sockets(servers: list[Server]) -> None:
    a, b = servers
    p = await _registered(a.base, "pw")
    other = await _second_session(p, b.base)
    try:
        await p.connect(a.ws_url)
        await other.connect(b.ws_url)
        r = await p.http.post(
            "/api/auth/password",
            json={"current_password": "secret-pass-1", "new_password": "another-pass-2"},
        )
        assert r.status_code == 204, r.text
        assert await _closed(other, 1.5) == SESSION_ENDED
        await _alive(p)
        assert (await other.http.get("/api/me")).status_code == 401
    finally:
        await p.aclose()
        await other.aclose()


async def test_claiming_a_guest_ends_the_guest_sessions_sockets(servers: list[Server]) -> None:
    a, b = servers
    p = await Player.guest(a.base)
    tab = p.tab()
    try:
        await p.connect(a.ws_url)
        await tab.connect(b.ws_url)
        r = await p.http.post(
            "/api/auth/claim",
            json={"username": f"claimed{time.monotonic_ns() % 10**8}", "password": "secret-pass-1"},
        )
        assert r.status_code == 200, r.text
        assert await _closed(p, 1.5) == SESSION_ENDED
        assert await _closed(tab, 1.5) == SESSION_ENDED
        await p.connect(a.ws_url)  # the new session's cookie opens a socket again
    finally:
        await tab.disconnect()
        await p.aclose()


async def test_an_expiring_session_closes_its_socket(servers: list[Server], pg_url: str) -> None:
    p = await Player.guest(servers[0].base)
    conn = await asyncpg.connect(asyncpg_dsn(pg_url))
    try:
        await conn.execute(
            "UPDATE sessions SET expires_at = $1 WHERE user_id = $2",
            datetime.now(UTC) + timedelta(seconds=3),
            p.id,
        )
        await p.connect(servers[1].ws_url)
        await _alive(p)
        assert await _closed(p, 6) == SESSION_ENDED
    finally:
        await conn.close()
        await p.aclose()


async def test_at_most_8_sockets_per_user_the_oldest_closed_4008(servers: list[Server]) -> None:
    p = await Player.guest(servers[0].base)
    tabs = [p.tab() for _ in range(12)]
    try:
        for i, tab in enumerate(tabs):
            await tab.connect(servers[i % 2].ws_url)
        for old in tabs[:4]:
            code = await _closed(old, 3)
            assert code == (4008, "too_many_sockets")
        for tab in tabs[4:]:
            await _alive(tab)
    finally:
        for tab in tabs:
            await tab.disconnect()
        await p.http.aclose()


@pytest.fixture(scope="module")
def capped(
    pg_url: str,
    own_redis: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Server]:
    procs = start_servers(
        1,
        pg_url,
        own_redis,
        tmp_path_factory.mktemp("capped"),
        ws_max_sockets_per_ip=3,
        economy_enabled="false",
    )
    yield procs[0]
    procs[0].stop()


async def test_sockets_per_client_address_are_capped(capped: Server) -> None:
    people = [await Player.guest(capped.base) for _ in range(4)]
    try:
        for p in people[:3]:
            await p.connect(capped.ws_url)
        async with websockets.connect(
            capped.ws_url,
            additional_headers={
                "Cookie": f"buraco_session={people[3].cookie}",
                "Origin": capped.base,
            },
        ) as ws:
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 5)
            assert (ws.close_code, ws.close_reason) == (4008, "too_many_sockets")
        await people[0].disconnect()
        await people[3].connect(capped.ws_url)  # a freed place is taken again
    finally:
        await close_all(people, [])
