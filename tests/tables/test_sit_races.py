"""Sits racing across two real uvicorn processes (issue 11, items 1 and 3): one account's
sits are split between the processes, each with its own database pool. Then the ledger's
conservation check."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.db import create_engine, create_sessionmaker
from tests.economy.helpers import assert_conserved, balance, coins
from tests.tables.harness import Player, Server

START = 50_000  # a guest's starting coins


@pytest.fixture
async def maker(pg_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(pg_url)
    made = create_sessionmaker(engine)
    yield made
    await assert_conserved(made)
    await engine.dispose()


async def both_processes(p: Player, servers: list[Server]) -> list[httpx.AsyncClient]:
    """The player's cookie on a client per process."""
    return [
        httpx.AsyncClient(base_url=s.base, cookies={"buraco_session": p.cookie}, timeout=20)
        for s in servers
    ]


async def table_of(host: Player, bet: int) -> str:
    r = await host.http.post("/api/tables", json={"players": 4, "bet": bet})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


async def test_fifty_sits_over_two_processes(
    servers: list[Server], maker: async_sessionmaker[AsyncSession]
) -> None:
    host, me, other = [await Player.guest(servers[i % 2].base) for i in range(3)]
    clients = await both_processes(me, servers)
    try:
        table = await table_of(host, 6_000)

        async def other_wallet() -> float:
            await asyncio.sleep(0.05)
            t0 = time.monotonic()
            r = await other.http.get("/api/wallet")
            assert r.status_code == 200, r.text
            return time.monotonic() - t0

        t0 = time.monotonic()
        *answers, other_took = await asyncio.gather(
            *(clients[i % 2].post(f"/api/tables/{table}/sit", json={}) for i in range(50)),
            other_wallet(),
        )
        took = time.monotonic() - t0
        codes = Counter(r.status_code for r in answers)
        assert took < 5.0 and codes[200] == 1 and codes[500] == 0, (took, codes)
        assert set(codes) <= {200, 409, 503}, codes
        assert other_took < 5.0
        meta = (await me.http.get(f"/api/tables/{table}")).json()
        assert [s["user_id"] for s in meta["seats"] if s].count(me.id) == 1
        assert await balance(maker, f"hold:{table}:{me.id}") == 6_000
        assert await coins(maker, me.id) == START - 6_000
        print(f"50 sits over 2 processes answered in {took:.2f} s: {dict(codes)}")  # noqa: T201
    finally:
        for c in clients:
            await c.aclose()
        for p in (host, me, other):
            await p.aclose()


async def test_racing_sits_over_two_processes_keep_the_winners_hold(
    servers: list[Server], maker: async_sessionmaker[AsyncSession]
) -> None:
    for rnd in range(6):
        host, other_host, me = [await Player.guest(servers[i % 2].base) for i in range(3)]
        clients = await both_processes(me, servers)
        try:
            table, second = await table_of(host, START), await table_of(other_host, START)
            answers = await asyncio.gather(
                *(clients[i % 2].post(f"/api/tables/{table}/sit", json={}) for i in range(6))
            )
            codes = Counter(r.status_code for r in answers)
            assert codes[200] == 1 and codes[500] == 0, (rnd, codes)
            assert await balance(maker, f"hold:{table}:{me.id}") == START, rnd
            assert await coins(maker, me.id) == 0, rnd
            again = await me.http.post(f"/api/tables/{second}/sit", json={})
            assert again.json()["error"]["code"] == "insufficient_funds", (rnd, again.text)
        finally:
            for c in clients:
                await c.aclose()
            for p in (host, other_host, me):
                await p.aclose()
