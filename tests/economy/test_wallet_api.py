"""Wallet endpoints: the lazy starting grant, the daily bonus, live pushes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta

import httpx
from fastapi import FastAPI

from app.core.db import utcnow
from app.economy import wallets
from app.economy.notify import Outbox
from tests.economy.helpers import Listener, client_for, coins, new_users

# coin items a new wallet (50,000 coins) can all buy: sku -> price
PRICES = {
    "emote_risa": 5_000,
    "emote_aplauso": 5_000,
    "emote_llanto": 8_000,
    "felt_verde": 10_000,
    "back_clasico": 15_000,
}
CHEAP_SKUS = list(PRICES)


async def test_wallet_is_granted_once_on_first_visit(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    (a,) = await new_users(app.state.sessionmaker, 1)
    client = await client_for(app, make_client, a)
    first = (await client.get("/api/wallet")).json()
    second = (await client.get("/api/wallet")).json()
    # v: one grant on each of the two accounts, once
    assert (
        first
        == second
        == {
            "coins": 50_000,
            "credits": 5,
            "v": 2,
            "next_bonus_at": None,
            "max_bet": None,  # an established player: no stake cap
            "held": 0,
        }
    )


async def test_guests_have_wallets_too(client: httpx.AsyncClient) -> None:
    assert (await client.post("/api/auth/guest")).status_code == 201
    r = await client.get("/api/wallet")
    assert r.status_code == 200 and r.json()["coins"] == 50_000


async def test_wallet_needs_login(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/wallet")
    assert r.status_code == 401 and r.json()["error"]["code"] == "not_authenticated"


async def test_daily_bonus_once_per_day_and_pushed_live(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    (a,) = await new_users(app.state.sessionmaker, 1)
    client = await client_for(app, make_client, a)
    async with Listener(app.state.redis, f"user:{a}") as inbox:
        r = await client.post("/api/wallet/daily-bonus")
        assert r.status_code == 200, r.text
        assert r.json()["coins"] == 55_000 and r.json()["next_bonus_at"]
        pushed = await inbox.drain()
    assert {"via": f"user:{a}", "type": "wallet", "coins": 55_000, "credits": 5, "v": 3} in pushed
    again = await client.post("/api/wallet/daily-bonus")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "bonus_already_claimed"
    assert int(again.headers["retry-after"]) > 0
    assert await coins(app.state.sessionmaker, a) == 55_000


async def test_daily_bonus_again_after_24_hours(app: FastAPI) -> None:
    (a,) = await new_users(app.state.sessionmaker, 1)
    settings = app.state.settings
    now = utcnow()
    async with app.state.sessionmaker() as db:
        first = await wallets.claim_daily_bonus(db, a, settings, Outbox(), now=now)
        later = await wallets.claim_daily_bonus(
            db, a, settings, Outbox(), now=now + timedelta(hours=24, seconds=1)
        )
        await db.commit()
    assert (first.coins, later.coins) == (55_000, 60_000)


async def test_wallet_pushes_carry_a_version_that_orders_them(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    """Concurrent purchases of one player: their pushes may be published in any order,
    but each carries the wallet's version, read in the same snapshot as its balances: a
    higher version never shows more coins (every change here spends), and the highest
    is exactly the final wallet, as the REST reply says."""
    (a,) = await new_users(app.state.sessionmaker, 1)
    client = await client_for(app, make_client, a)
    start = (await client.get("/api/wallet")).json()
    async with Listener(app.state.redis, f"user:{a}") as inbox:
        replies = await asyncio.gather(
            *(
                client.post(
                    "/api/shop/buy", json={"sku": sku}, headers={"Idempotency-Key": f"k{i}"}
                )
                for i, sku in enumerate(CHEAP_SKUS)
            )
        )
        pushed = [m for m in await inbox.drain(1.0) if m["type"] == "wallet"]
    assert all(r.status_code == 200 for r in replies), [r.text for r in replies]
    final = (await client.get("/api/wallet")).json()
    assert final["coins"] == start["coins"] - sum(PRICES[s] for s in CHEAP_SKUS)
    assert final["v"] == start["v"] + len(CHEAP_SKUS)
    assert len(pushed) == len(CHEAP_SKUS)
    by_version = sorted(pushed, key=lambda m: m["v"])
    assert [m["v"] for m in by_version] == list(range(start["v"] + 1, final["v"] + 1))
    coins_seen = [m["coins"] for m in by_version]
    assert coins_seen == sorted(coins_seen, reverse=True)
    assert (by_version[-1]["coins"], by_version[-1]["credits"]) == (
        final["coins"],
        final["credits"],
    )
