"""Nobody is locked out (docs/economy.md): a player with no coins can play at a table
without stakes, against bots and against people, and the daily bonus brings a wallet up
to at least the smallest stake; the bonus claimed 20 times at once, with Redis flushed
meanwhile, is paid once."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.core.config import Settings
from app.economy import wallets
from app.economy.hooks import EconomyTables
from app.economy.levels import xp_for
from app.economy.models import PlayerStats, Transfer
from app.tables.play.hooks import GameResult
from app.tables.storage.meta import MIN_BET
from tests.economy.helpers import client_for, coins, new_users

Make = Callable[[], httpx.AsyncClient]


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    # Broke from the start; the daily bonus (5,000) is below the smallest stake (6,000).
    return {"starting_coins": 0, "daily_bonus_coins": 5_000, "db_pool_size": 10}


def test_the_daily_bonus_reaches_the_smallest_stake() -> None:
    s = Settings(env="test", daily_bonus_coins=5_000)
    assert MIN_BET == 6_000
    assert wallets.daily_amount(s, 0) == 6_000
    assert wallets.daily_amount(s, 1_000) == 5_000
    assert wallets.daily_amount(s, 4_000) == 5_000
    assert wallets.daily_amount(s, 100_000) == 5_000
    assert wallets.daily_amount(Settings(env="test", daily_bonus_coins=0), 2_500) == 3_500
    assert wallets.daily_amount(Settings(env="test", daily_bonus_coins=0), 9_000) <= 0


async def test_a_broke_player_claims_once_and_can_sit_at_the_smallest_stake(
    app: FastAPI, make_client: Make
) -> None:
    maker = app.state.sessionmaker
    (a,) = await new_users(maker, 1)
    client = await client_for(app, make_client, a)
    assert (await client.get("/api/wallet")).json()["coins"] == 0
    claims = [client.post("/api/wallet/daily-bonus") for _ in range(20)]
    done = await asyncio.gather(*claims[:10], app.state.redis.flushdb(), *claims[10:])
    answers = [r for r in done if isinstance(r, httpx.Response)]
    codes = Counter(
        r.status_code if r.status_code == 200 else r.json()["error"]["code"] for r in answers
    )
    assert codes == Counter({200: 1, "bonus_already_claimed": 19}), codes
    assert await coins(maker, a) == MIN_BET
    async with maker() as db:
        bonuses = (
            await db.execute(
                select(func.count()).select_from(Transfer).where(Transfer.kind == "bonus")
            )
        ).scalar_one()
    assert bonuses == 1
    r = await client.post("/api/tables", json={"name": "mínima", "bet": MIN_BET})
    assert r.status_code == 201, r.text
    assert await coins(maker, a) == 0  # held for the seat


async def test_tables_without_stakes_are_open_to_players_without_coins(
    app: FastAPI, make_client: Make
) -> None:
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    ca, cb = await client_for(app, make_client, a), await client_for(app, make_client, b)
    # At the smallest stake they cannot sit; in between is no stake at all.
    r = await ca.post("/api/tables", json={"bet": MIN_BET})
    assert r.json()["error"]["code"] == "insufficient_funds", r.text
    r = await ca.post("/api/tables", json={"bet": 1_000})
    assert r.status_code == 422 and r.json()["error"]["fields"][0]["field"] == "bet", r.text
    # Against a person...
    r = await ca.post("/api/tables", json={"name": "sin apuesta", "bet": 0})
    assert r.status_code == 201, r.text
    table = r.json()["id"]
    assert r.json()["bet"] == 0
    r = await cb.post(f"/api/tables/{table}/sit", json={})
    assert r.status_code == 200, r.text
    # ...and against bots.
    (c,) = await new_users(maker, 1)
    cc = await client_for(app, make_client, c)
    r = await cc.post("/api/tables", json={"bet": 0})
    assert r.status_code == 201, r.text
    r = await cc.post(f"/api/tables/{r.json()['id']}/bots", json={})
    assert r.status_code == 200, r.text
    assert r.json()["status"] in ("playing", "starting"), r.json()
    assert [await coins(maker, u) for u in (a, b, c)] == [0, 0, 0]


async def test_a_game_without_stakes_moves_no_coins_and_gives_no_xp(
    app: FastAPI, econ: EconomyTables
) -> None:
    assert xp_for(0, True) == xp_for(0, False) == 0
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    for u in (a, b):
        await econ.reserve_seat(u, "t-free", 0)
    assert await econ.start_game("g-free", "t-free", 0, [a, b]) == []
    await econ.settle_game(
        GameResult(
            game_id="g-free",
            table_id="t-free",
            preset="abierto",
            bet=0,
            teams={a: 0, b: 1},
            abandoned=frozenset(),
            winner_team=0,
            bots=0,
        )
    )
    assert [await coins(maker, u) for u in (a, b)] == [0, 0]
    async with maker() as db:
        xp = (
            await db.execute(
                select(func.coalesce(func.sum(PlayerStats.xp), 0)).where(
                    PlayerStats.user_id.in_([a, b])
                )
            )
        ).scalar_one()
    assert xp == 0
