"""The rating leaderboard and the profile's ratings: accounts with settled ratings only."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from fastapi import FastAPI
from sqlalchemy import update

from app.core.db import utcnow
from app.ratings.models import Rating
from app.ratings.service import PROVISIONAL_GAMES, display_rating
from app.users.models import User
from tests.economy.helpers import client_for, new_users
from tests.ratings.helpers import finish, finished_meta


async def _put(app: FastAPI, uid: int, family: str, fmt: str, mu: float, games: int) -> None:
    async with app.state.sessionmaker() as db:
        db.add(
            Rating(
                user_id=uid,
                family=family,
                format=fmt,
                mu=mu,
                sigma=2.0,
                ordinal=mu - 6.0,
                games=games,
                updated_at=utcnow(),
            )
        )
        await db.commit()


async def test_the_leaderboard_lists_settled_accounts_by_rating(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    strong, middling, newcomer, guest, other_format = await new_users(app.state.sessionmaker, 5)
    async with app.state.sessionmaker() as db:
        await db.execute(update(User).where(User.id == guest).values(is_guest=True))
        await db.commit()
    await _put(app, strong, "cerrado", "2p", 31.0, 40)
    await _put(app, middling, "cerrado", "2p", 26.0, PROVISIONAL_GAMES)
    await _put(app, newcomer, "cerrado", "2p", 40.0, PROVISIONAL_GAMES - 1)  # provisional
    await _put(app, guest, "cerrado", "2p", 45.0, 50)  # a guest (as if rated before)
    await _put(app, other_format, "cerrado", "pairs", 35.0, 30)

    r = await client.get("/api/ratings/leaderboard", params={"family": "cerrado", "format": "2p"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["min_games"] == PROVISIONAL_GAMES
    assert [(row["rank"], row["user_id"]) for row in body["rows"]] == [(1, strong), (2, middling)]
    assert body["rows"][0]["rating"] == display_rating(31.0, 2.0) == 2000
    assert body["rows"][0]["nickname"].startswith("Player")

    pairs = await client.get("/api/ratings/leaderboard?family=cerrado&format=pairs")
    assert [row["user_id"] for row in pairs.json()["rows"]] == [other_format]
    empty = await client.get("/api/ratings/leaderboard?family=brasil&format=multi")
    assert empty.json()["rows"] == []


async def test_a_bad_family_or_format_is_a_clear_422(client: httpx.AsyncClient) -> None:
    for params in (
        {"family": "poker", "format": "2p"},
        {"family": "cerrado", "format": "5p"},
        {"format": "2p"},
        {"family": "cerrado", "limit": "0"},
    ):
        r = await client.get("/api/ratings/leaderboard", params=params)
        assert r.status_code == 422, params
        assert r.json()["error"]["code"] == "validation_error"


async def test_the_profile_shows_the_ratings_and_a_guest_none(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    await finish(maker, finished_meta("burako", [a, b]), [1500, 200], winner=0)
    viewer = await client_for(app, make_client, b)
    body = (await viewer.get(f"/api/profiles/{a}")).json()
    assert body["ratings"] == [
        {
            "family": "burako",
            "format": "2p",
            "rating": body["ratings"][0]["rating"],
            "games": 1,
            "provisional": True,
        }
    ]
    assert body["ratings"][0]["rating"] > display_rating(25.0, 25 / 3)
    async with maker() as db:
        await db.execute(update(User).where(User.id == a).values(is_guest=True))
        await db.commit()
    assert (await viewer.get(f"/api/profiles/{a}")).json()["ratings"] == []


async def test_tournament_seeding_reads_the_ratings_of_the_preset_and_format(
    app: FastAPI,
) -> None:
    from app.tournaments.seeding import ratings_for

    strong, weak, unrated = await new_users(app.state.sessionmaker, 3)
    await _put(app, strong, "cerrado", "2p", 32.0, 30)
    await _put(app, weak, "cerrado", "2p", 20.0, 30)
    await _put(app, weak, "cerrado", "pairs", 40.0, 30)  # another format: not read at 2
    async with app.state.sessionmaker() as db:
        two = await ratings_for(db, [strong, weak, unrated], "cerrado_sucio", 2)
        four = await ratings_for(db, [strong, weak, unrated], "cerrado", 4)
    assert two[strong] > two[unrated] > two[weak]
    assert four[weak] > four[strong] == four[unrated]
