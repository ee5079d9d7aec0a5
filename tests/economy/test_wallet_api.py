"""Wallet endpoints: the lazy starting grant, the daily bonus, live pushes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import httpx
from fastapi import FastAPI

from app.core.db import utcnow
from app.economy import wallets
from app.economy.notify import Outbox
from tests.economy.helpers import Listener, client_for, coins, new_users


async def test_wallet_is_granted_once_on_first_visit(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    (a,) = await new_users(app.state.sessionmaker, 1)
    client = await client_for(app, make_client, a)
    first = (await client.get("/api/wallet")).json()
    second = (await client.get("/api/wallet")).json()
    assert first == second == {"coins": 50_000, "credits": 5, "next_bonus_at": None}


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
    assert {"via": f"user:{a}", "type": "wallet", "coins": 55_000, "credits": 5} in pushed
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
