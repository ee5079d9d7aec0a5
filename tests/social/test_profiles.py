"""Profiles (stats per modality, recent games, equipped items, "Retar") and leaderboards."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy import update

from app.core.db import utcnow
from app.economy.hooks import EconomyTables
from app.economy.models import GameRecord
from app.social import presence
from app.tables.play.hooks import GameResult
from app.users.models import User
from tests.economy.helpers import Listener, client_for, new_users

BET = 6_000


async def play(
    econ: EconomyTables,
    game: str,
    a: int,
    b: int,
    winner: int,
    preset: str = "abierto",
    bet: int = BET,
) -> None:
    for u in (a, b):
        await econ.reserve_seat(u, f"t-{game}", bet)
    assert await econ.start_game(game, f"t-{game}", bet, [a, b]) == []
    await econ.settle_game(
        GameResult(
            game_id=game,
            table_id=f"t-{game}",
            preset=preset,
            bet=bet,
            teams={a: 0, b: 1},
            abandoned=frozenset(),
            winner_team=0 if winner == a else 1,
            bots=0,
        )
    )


async def test_profile_shows_stats_recent_games_and_can_challenge(
    app: FastAPI, econ: EconomyTables, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    a, b = await new_users(app.state.sessionmaker, 2)
    await play(econ, "p1", a, b, a)
    await play(econ, "p2", a, b, b, preset="cerrado")
    await play(econ, "p3", a, b, a, preset="cerrado")
    ca = await client_for(app, make_client, a)
    await ca.post("/api/shop/buy", json={"sku": "felt_rojo"})
    cb = await client_for(app, make_client, b)
    me = (await ca.get(f"/api/profiles/{a}")).json()
    assert me["relation"] == "self" and me["can_challenge"] is False
    assert (me["games"], me["wins"]) == (3, 2)
    assert {m["preset"]: (m["games"], m["wins"]) for m in me["modalities"]} == {
        "abierto": (1, 1),
        "cerrado": (2, 1),
    }
    assert [g["game_id"] for g in me["recent_games"]] == ["p3", "p2", "p1"]
    assert me["recent_games"][0]["coins_delta"] == BET
    assert me["equipped"] == {"felt": "felt_rojo"}
    # Three games against people (two wins, a loss at the minimum bet): level 2.
    assert me["xp"] == 50 + 50 + 34 and me["level"] == 2 and me["next_level_xp"] == 300
    seen = (await cb.get(f"/api/profiles/{a}")).json()
    assert seen["online"] is False and seen["can_challenge"] is False
    await app.state.redis.zadd(presence.PRESENCE_KEY, {str(a): time.time()})
    seen = (await cb.get(f"/api/profiles/{a}")).json()
    assert seen["online"] is True and seen["can_challenge"] is True
    assert seen["relation"] == "none"
    missing = await cb.get("/api/profiles/987654")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "user_not_found"


async def test_level_up_notification_and_leaderboards(
    app: FastAPI, econ: EconomyTables, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    a, b, c, d = await new_users(app.state.sessionmaker, 4)
    async with Listener(app.state.redis, f"user:{a}") as inbox:
        for i in range(4):  # 4 wins at the minimum bet: 200 XP, level 2 (at the 2nd)
            await play(econ, f"lv{i}", a, b, a)
        pushed = await inbox.drain()
    ups = [m for m in pushed if m.get("kind") == "level_up"]
    assert len(ups) == 1 and ups[0]["payload"] == {"level": 2, "previous": 1}
    for i in range(3):  # c beat d three times at 15,000 (59 XP each, d 35), last month
        await play(econ, f"old{i}", c, d, c, preset="cerrado", bet=15_000)
    async with app.state.sessionmaker() as db:
        await db.execute(
            update(GameRecord)
            .where(GameRecord.user_id.in_([c, d]))
            .values(created_at=utcnow() - timedelta(days=40))
        )
        await db.commit()
    client = make_client()
    overall = (await client.get("/api/leaderboards")).json()["rows"]
    assert [r["user_id"] for r in overall] == [a, c, b, d]
    assert overall[0] == {
        "rank": 1,
        "user_id": a,
        "nickname": overall[0]["nickname"],
        "xp": 200,
        "level": 2,
    }
    assert [r["xp"] for r in overall] == [200, 177, 136, 105]
    week = (await client.get("/api/leaderboards", params={"period": "week"})).json()["rows"]
    assert [r["user_id"] for r in week] == [a, b]
    cerrado = (await client.get("/api/leaderboards", params={"modality": "cerrado"})).json()
    assert [r["user_id"] for r in cerrado["rows"]] == [c, d]
    bad = await client.get("/api/leaderboards", params={"period": "year"})
    assert bad.status_code == 422


async def test_leaderboards_leave_guests_out_and_say_what_they_rank(
    app: FastAPI, econ: EconomyTables, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    a, guest = await new_users(app.state.sessionmaker, 2)
    async with app.state.sessionmaker() as db:
        await db.execute(update(User).where(User.id == guest).values(is_guest=True))
        await db.commit()
    for i in range(3):  # the guest wins every game: more XP than a
        await play(econ, f"g{i}", a, guest, guest)
    client = make_client()
    for params in ({}, {"period": "week"}, {"modality": "abierto"}):
        board = (await client.get("/api/leaderboards", params=params)).json()
        assert [r["user_id"] for r in board["rows"]] == [a], params
        assert board["rows"][0]["rank"] == 1
        assert board["ranks"] == "xp" and board["guests"] is False
    week = (await client.get("/api/leaderboards", params={"period": "week"})).json()
    since = datetime.fromisoformat(week["since"])
    assert since.weekday() == 0 and (since.hour, since.minute) == (0, 0)
    assert timedelta(0) <= utcnow() - since < timedelta(days=7)
    assert (await client.get("/api/leaderboards")).json()["since"] is None
