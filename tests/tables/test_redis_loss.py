"""Redis flushed mid-game, with two real uvicorn processes (issue 11, item 6): the tables
are gone (404), and within the documented time (the reconciler's grace period plus one
interval, docs/economy.md) every stake is back in its wallet, the game is void and both
players were told. Then the ledger's conservation check."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import redis
from sqlalchemy import select

from app.core.db import create_engine, create_sessionmaker
from app.economy.models import GameBet
from app.tables.storage.meta import MIN_BET
from tests.economy.helpers import assert_conserved, coins
from tests.tables.harness import Player, start_servers

GRACE, INTERVAL = 2.0, 1.0
SLACK = 10.0  # a loaded 2-core machine


async def test_a_game_lost_with_redis_is_refunded_and_void(
    pg_url: str, own_redis: str, tmp_path: Path
) -> None:
    servers = start_servers(
        2,
        pg_url,
        own_redis,
        tmp_path,
        turn_seconds=300,
        reconcile_grace_seconds=GRACE,
        reconcile_interval_seconds=INTERVAL,
    )
    engine = create_engine(pg_url)
    maker = create_sessionmaker(engine)
    people: list[Player] = []
    try:
        host, guest = people = [await Player.guest(s.base) for s in servers]
        start = await coins(maker, host.id) or (await host.http.get("/api/wallet")).json()["coins"]
        assert (await guest.http.get("/api/wallet")).json()["coins"] == start
        r = await host.http.post("/api/tables", json={"players": 2, "bet": MIN_BET})
        assert r.status_code == 201, r.text
        table = r.json()["id"]
        r = await guest.http.post(f"/api/tables/{table}/sit", json={})
        assert r.status_code == 200, r.text
        meta = (await host.http.get(f"/api/tables/{table}")).json()
        assert meta["status"] == "playing"
        game = meta["game_id"]
        for p in people:
            assert await coins(maker, p.id) == start - MIN_BET
        client = redis.Redis.from_url(own_redis)
        client.flushdb()
        client.close()
        flushed = time.monotonic()
        assert (await host.http.get(f"/api/tables/{table}")).status_code == 404
        deadline = flushed + GRACE + INTERVAL + SLACK
        state = "escrowed"
        while time.monotonic() < deadline:
            async with maker() as db:
                bet = await db.get(GameBet, game)
                state = bet.state if bet else "missing"
            if state == "void":
                break
            await asyncio.sleep(0.25)
        took = time.monotonic() - flushed
        assert state == "void", f"still {state} {took:.1f} s after the flush"
        for p in people:
            assert await coins(maker, p.id) == start
            notes = (await p.http.get("/api/notifications")).json()["items"]
            voided = [n for n in notes if n["kind"] == "game_voided"]
            assert len(voided) == 1 and voided[0]["payload"]["game_id"] == game
            assert voided[0]["payload"]["amount"] == MIN_BET
        async with maker() as db:
            stakes = (
                await db.execute(select(GameBet.stakes).where(GameBet.game_id == game))
            ).scalar_one()
        assert set(map(int, stakes)) == {host.id, guest.id}
        print(f"refunded {took:.1f} s after the flush")  # noqa: T201
        await assert_conserved(maker)
    finally:
        for p in people:
            await p.aclose()
        for s in servers:
            s.stop()
        await engine.dispose()
