"""A finished game of a private table is readable only by its players: the replay, its
provably-fair check and the profiles that list it. Real app on PostgreSQL and Redis;
the games are archived by the real archive from a private and a public table."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from fastapi import FastAPI

from app.economy.hooks import EconomyTables
from app.tables.lobby.lobby import build_meta
from app.tables.lobby.schemas import CreateTableIn
from app.tables.storage.archive import GameArchive
from app.tables.storage.meta import Seat
from tests.economy.helpers import client_for, new_users
from tests.social.test_profiles import play

HAND = {"hand_no": 1, "deal": {}, "salt": "00", "commitment": "x"}


async def archive(app: FastAPI, game_id: str, a: int, b: int, private: bool) -> None:
    meta = build_meta(a, f"P{a}", CreateTableIn(name="m", private=private))
    meta.seats[1] = Seat(user_id=b, name=f"P{b}")
    meta.game_id, meta.started_at = game_id, meta.created_at
    await GameArchive(app.state.sessionmaker)(meta, [])


async def test_private_games_only_to_their_players(
    app: FastAPI,
    econ: EconomyTables,
    make_client: Callable[[], httpx.AsyncClient],
) -> None:
    a, b, outsider = await new_users(app.state.sessionmaker, 3)
    await play(econ, "g-pub", a, b, a)
    await play(econ, "g-priv", a, b, b)
    await archive(app, "g-pub", a, b, private=False)
    await archive(app, "g-priv", a, b, private=True)
    ca, cb, cx = [await client_for(app, make_client, u) for u in (a, b, outsider)]

    for path in ("/api/games/g-priv", "/api/games/g-priv/verify"):
        r = await cx.get(path)
        assert r.status_code == 404 and r.json()["error"]["code"] == "game_not_found", r.text
    assert (await cx.get("/api/games/g-pub")).status_code == 200
    for player in (ca, cb):
        r = await player.get("/api/games/g-priv")
        assert r.status_code == 200 and r.json()["seats"][1]["user_id"] == b

    def recent(profile: httpx.Response) -> list[str]:
        return [g["game_id"] for g in profile.json()["recent_games"]]

    assert recent(await cx.get(f"/api/profiles/{a}")) == ["g-pub"]
    assert recent(await cb.get(f"/api/profiles/{a}")) == ["g-priv", "g-pub"]
    assert recent(await ca.get(f"/api/profiles/{a}")) == ["g-priv", "g-pub"]
