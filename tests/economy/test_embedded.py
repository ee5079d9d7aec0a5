"""The embedded default (SQLite + in-process Redis) runs the economy too (`make run`)."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from app.economy.hooks import EconomyTables
from app.economy.notify import Notifier
from app.tables.play.hooks import GameResult
from tests.economy.helpers import assert_conserved, coins, new_users


async def test_wallet_bonus_and_shop_on_sqlite(embedded_client: httpx.AsyncClient) -> None:
    assert (await embedded_client.post("/api/auth/guest")).status_code == 201
    assert (await embedded_client.get("/api/wallet")).json()["coins"] == 50_000
    assert (await embedded_client.post("/api/wallet/daily-bonus")).json()["coins"] == 55_000
    again = await embedded_client.post("/api/wallet/daily-bonus")
    assert again.json()["error"]["code"] == "bonus_already_claimed"
    bought = await embedded_client.post("/api/shop/buy", json={"sku": "felt_verde"})
    assert bought.status_code == 200, bought.text
    assert bought.json()["wallet"]["coins"] == 45_000
    things = (await embedded_client.get("/api/me/things")).json()
    assert things["equipped"] == {"felt": "felt_verde"}
    assert (await embedded_client.post("/api/chat/lobby", json={"text": "hola"})).status_code == 201
    assert [m["text"] for m in (await embedded_client.get("/api/chat/lobby")).json()] == ["hola"]


async def test_a_bet_game_settles_on_sqlite(embedded_app: FastAPI) -> None:
    maker = embedded_app.state.sessionmaker
    econ = EconomyTables(maker, embedded_app.state.settings, Notifier(embedded_app.state.redis))
    a, b = await new_users(maker, 2)
    for u in (a, b):
        await econ.reserve_seat(u, "t", 6_000)
    assert await econ.start_game("g", "t", 6_000, [a, b]) == []
    result = GameResult(
        game_id="g",
        table_id="t",
        preset="abierto",
        bet=6_000,
        teams={a: 0, b: 1},
        abandoned=frozenset(),
        winner_team=1,
        bots=0,
    )
    await econ.settle_game(result)
    await econ.settle_game(result)
    assert (await coins(maker, a), await coins(maker, b)) == (44_000, 56_000)
    await assert_conserved(maker)
