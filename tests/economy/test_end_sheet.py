"""The end sheet's own result (GET /api/games/{id}/mine, app/tables/lobby/result.py):
the coins won or lost, the XP gained and the way to the next level, from the settled
game, for the caller only. Real Postgres, real settlement."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from fastapi import FastAPI

from app.economy.hooks import EconomyTables
from app.economy.levels import xp_needed
from app.tables.play.hooks import GameResult
from tests.economy.helpers import client_for, new_users, win_at_table

BET = 6_000


async def mine(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient], user: int, game: str
) -> dict[str, Any]:
    client = await client_for(app, make_client, user)
    r = await client.get(f"/api/games/{game}/mine")
    assert r.status_code == 200, r.text
    return r.json()


async def test_each_player_sees_their_own_coins_and_xp(
    app: FastAPI, econ: EconomyTables, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    winner, loser, outsider = await new_users(app.state.sessionmaker, 3)
    game = await win_at_table(econ, winner, loser, BET)

    won = await mine(app, make_client, winner, game)
    assert won["settled"] is True and won["outcome"] == "win"
    assert won["coins_delta"] == BET and won["bet"] == BET and won["with_bots"] is False
    assert won["xp_gained"] == 50 and won["xp"] == 50
    # Level 1 runs from 0 to 100 XP: half-way there.
    assert (won["level"], won["level_xp"], won["next_level_xp"]) == (1, 0, xp_needed(2))

    lost = await mine(app, make_client, loser, game)
    assert lost["outcome"] == "loss" and lost["coins_delta"] == -BET
    assert lost["xp_gained"] == 34 and lost["xp"] == 34

    # Someone who did not play learns nothing of the others' results.
    theirs = await mine(app, make_client, outsider, game)
    assert theirs["settled"] is False and theirs["outcome"] is None
    assert theirs["coins_delta"] == 0 and theirs["xp_gained"] == 0 and theirs["xp"] == 0


async def test_against_bots_nothing_is_won_or_lost(
    app: FastAPI, econ: EconomyTables, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    (player,) = await new_users(app.state.sessionmaker, 1)
    table, game = "bots-t-sheet", "bots-g-sheet"
    await econ.reserve_seat(player, table, BET)
    assert await econ.start_game(game, table, BET, [player]) == []
    # Not settled yet: the end sheet asks again.
    assert (await mine(app, make_client, player, game))["settled"] is False
    await econ.settle_game(
        GameResult(
            game_id=game,
            table_id=table,
            preset="cerrado",
            bet=BET,
            teams={player: 0},
            abandoned=frozenset(),
            winner_team=1,  # the bots won
            bots=1,
        )
    )
    sheet = await mine(app, make_client, player, game)
    assert sheet["settled"] is True and sheet["with_bots"] is True
    assert sheet["coins_delta"] == 0 and sheet["xp_gained"] == 0


async def test_a_bad_game_id_is_refused(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    (player,) = await new_users(app.state.sessionmaker, 1)
    client = await client_for(app, make_client, player)
    r = await client.get("/api/games/not-a-game!/mine")
    assert r.status_code == 422 and r.json()["error"]["code"] == "validation_error"
