"""Quick play seats a player with the waiting players nearest their rating, and the
rating rides on the seat for the lobby and the table to show."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from fastapi import FastAPI

from app.core.db import utcnow
from app.ratings.models import Rating
from app.ratings.service import display_rating, skill_rating
from app.tables.lobby.lobby import by_rating, rating_window
from tests.economy.helpers import client_for, new_users


async def _rate(app: FastAPI, uid: int, mu: float, games: int = 30) -> None:
    async with app.state.sessionmaker() as db:
        db.add(
            Rating(
                user_id=uid,
                family="burako",
                format="2p",
                mu=mu,
                sigma=2.5,
                ordinal=mu - 7.5,
                games=games,
                updated_at=utcnow(),
            )
        )
        await db.commit()


async def test_quick_play_seats_the_closer_rating_first(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    maker = app.state.sessionmaker
    low, high, near_high, newcomer = await new_users(maker, 4)
    await _rate(app, low, 20.0)  # skill 1300
    await _rate(app, high, 40.0)  # skill 2100
    await _rate(app, near_high, 38.0, games=4)  # skill 2020, still provisional
    body = {"preset": "burako", "players": 2}
    clients = {u: await client_for(app, make_client, u) for u in (low, high, near_high, newcomer)}

    first = (await clients[low].post("/api/quickplay", json=body)).json()
    assert first["status"] == "waiting"
    seat = first["seats"][0]
    assert seat["rating"] == display_rating(20.0, 2.5) and seat["skill"] == skill_rating(20.0)
    assert seat["provisional"] is False
    # 800 points apart: too far for a table that has just begun to wait.
    second = (await clients[high].post("/api/quickplay", json=body)).json()
    assert second["id"] != first["id"] and second["status"] == "waiting"
    # The lobby lists both tables with their players' ratings.
    listed = (await clients[newcomer].get("/api/tables", params={"preset": "burako"})).json()
    ratings = {t["id"]: t["seats"][0]["rating"] for t in listed["tables"]}
    assert ratings[first["id"]] == display_rating(20.0, 2.5)
    assert ratings[second["id"]] == display_rating(40.0, 2.5)
    # 2020 goes to the 2100 table although the 1300 one has waited longer.
    third = (await clients[near_high].post("/api/quickplay", json=body)).json()
    assert third["id"] == second["id"] and third["status"] == "playing"
    seats = {s["user_id"]: s for s in third["seats"]}
    assert seats[near_high]["provisional"] is True
    # A newcomer (1500) is within the low table's window (gap 200).
    fourth = (await clients[newcomer].post("/api/quickplay", json=body)).json()
    assert fourth["id"] == first["id"] and fourth["status"] == "playing"
    seats = {s["user_id"]: s for s in fourth["seats"]}
    assert seats[newcomer]["provisional"] is True and seats[newcomer]["skill"] == 1500
    for c in clients.values():
        await c.aclose()


def _table(tid: str, skills: list[int | None], created_at: float) -> dict[str, object]:
    seats = [{"user_id": i + 1, "skill": s} for i, s in enumerate(skills)] + [None]
    return {"id": tid, "seats": seats, "created_at": created_at}


def test_the_window_widens_with_the_wait() -> None:
    assert rating_window(0) == 200 and rating_window(10) == 400 and rating_window(30) == 800
    now = 1000.0
    fresh_far = _table("far", [2100], now - 1)  # gap 600 > 220
    old_far = _table("old", [2100], now - 25)  # gap 600 <= 700
    near = _table("near", [1550, 1650], now - 2)  # mean 1600, gap 100
    unrated = _table("new", [None], now)  # a newcomer: 1500, gap 0
    assert [t["id"] for t in by_rating([fresh_far], 1500, now)] == []
    assert [t["id"] for t in by_rating([fresh_far, old_far, near, unrated], 1500, now)] == [
        "new",
        "near",
        "old",
    ]
