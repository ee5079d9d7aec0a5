"""Helpers for the economy and social tests: people, logged-in clients, checks."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
import orjson
from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.db import utcnow
from app.core.ids import UserId
from app.economy import audit
from app.economy.hooks import EconomyTables
from app.economy.models import Account, ShopItem
from app.economy.sql import insert_ignore, table_of
from app.tables.play.hooks import GameResult
from app.users.models import User
from app.users.service import start_session
from app.users.tokens import SESSION_COOKIE
from tests.support import REPO_ROOT

_names = itertools.count(1)
SHOP_DATA = REPO_ROOT / "app" / "economy" / "data" / "shop_items.json"


async def seed_shop(maker: async_sessionmaker[AsyncSession]) -> None:
    """The test fixtures empty every table, the seeded catalogue too: put it back."""
    items = json.loads(SHOP_DATA.read_text(encoding="utf-8"))["items"]
    rows = [
        {
            "sku": i["sku"],
            "kind": i["kind"],
            "name": i["name"],
            "price": i["price"],
            "currency": i["currency"],
            "amount": i.get("amount", 0),
            "sort": n,
            "active": True,
            "extra": {},
        }
        for n, i in enumerate(items)
    ]
    async with maker() as db:
        await insert_ignore(db, table_of(ShopItem), rows, ["sku"])
        await db.commit()


async def new_users(
    maker: async_sessionmaker[AsyncSession], n: int, *, days_old: float = 30
) -> list[int]:
    """Plain accounts, straight into the database (no password hashing: fast). They are
    ``days_old`` days old: by default established players, whose bets are not capped
    (app/economy/stakes.py); ``days_old=0`` makes new accounts."""
    created = utcnow() - timedelta(days=days_old)
    async with maker() as db:
        users = []
        for _ in range(n):
            i = next(_names)
            users.append(
                User(
                    username=f"p{i}",
                    username_lower=f"p{i}",
                    nickname=f"Player{i}",
                    created_at=created,
                )
            )
        db.add_all(users)
        await db.commit()
        return [u.id for u in users]


async def client_for(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient], user_id: int
) -> httpx.AsyncClient:
    async with app.state.sessionmaker() as db:
        token = await start_session(db, UserId(user_id), 1)
        await db.commit()
    client = make_client()
    client.cookies.set(SESSION_COOKIE, token)
    return client


async def balance(maker: async_sessionmaker[AsyncSession], key: str) -> int:
    async with maker() as db:
        stmt = select(Account.balance).where(Account.key == key)
        return int((await db.execute(stmt)).scalar_one_or_none() or 0)


async def coins(maker: async_sessionmaker[AsyncSession], user_id: int) -> int:
    return await balance(maker, f"wallet:{user_id}:coins")


async def credits(maker: async_sessionmaker[AsyncSession], user_id: int) -> int:
    return await balance(maker, f"wallet:{user_id}:credits")


async def assert_conserved(maker: async_sessionmaker[AsyncSession]) -> audit.Report:
    async with maker() as db:
        report = await audit.reconcile(db)
    assert report.ok, report.problems
    return report


class Listener:
    """Collects what is published on some Redis channels."""

    def __init__(self, redis: Redis, *channels: str) -> None:
        self.pubsub = redis.pubsub()
        self.channels = channels
        self.messages: list[dict[str, Any]] = []

    async def __aenter__(self) -> Listener:
        await self.pubsub.subscribe(*self.channels)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.pubsub.unsubscribe()
        await self.pubsub.aclose()

    async def drain(self, wait: float = 0.3) -> list[dict[str, Any]]:
        loop = asyncio.get_running_loop()
        end = loop.time() + wait
        while loop.time() < end:
            msg = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=0.05)
            if msg is not None:
                data = orjson.loads(msg["data"])
                self.messages.append({**data, "via": msg["channel"]})
        return self.messages


async def win_at_table(econ: EconomyTables, winner: int, loser: int, bet: int) -> str:
    """A real game through the hooks: both hold ``bet``, the pot is escrowed, ``winner``
    takes it (so ``bet`` of its coins count as won at tables, app/economy/giftable.py)."""
    n = next(_names)
    table, game = f"won-t{n}", f"won-g{n}"
    for u in (winner, loser):
        await econ.reserve_seat(u, table, bet)
    assert await econ.start_game(game, table, bet, [winner, loser]) == []
    await econ.settle_game(
        GameResult(
            game_id=game,
            table_id=table,
            preset="abierto",
            bet=bet,
            teams={winner: 0, loser: 1},
            abandoned=frozenset(),
            winner_team=0,
            bots=0,
        )
    )
    return game
