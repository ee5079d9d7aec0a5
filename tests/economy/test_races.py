"""Races on real Postgres: one wallet, many sits; one game, many settlements."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.core.errors import AppError
from app.economy import settlement
from app.economy.hooks import EconomyTables
from app.economy.models import Account, Transfer
from app.tables.play.hooks import GameResult
from tests.economy.helpers import balance, coins, new_users

BET = 6_000


async def no_generic(*args: object) -> bool:
    raise AssertionError("the generic settlement ran on PostgreSQL")


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"starting_coins": BET, "db_pool_size": 10}


async def test_fifty_sits_with_one_stake_exactly_one_wins_every_round(
    app: FastAPI, econ: EconomyTables
) -> None:
    maker = app.state.sessionmaker
    users = await new_users(maker, 100)
    for rnd, user in enumerate(users):
        outcomes = await asyncio.gather(
            *(econ.reserve_seat(user, f"r{rnd}-t{i}", BET) for i in range(50)),
            return_exceptions=True,
        )
        wins = [o for o in outcomes if o is None]
        errors = [o for o in outcomes if o is not None]
        assert len(wins) == 1, f"round {rnd}: {len(wins)} sits succeeded; {errors[:2]!r}"
        assert all(isinstance(e, AppError) and e.code == "insufficient_funds" for e in errors), (
            errors[:3]
        )
        assert await coins(maker, user) == 0
    async with maker() as db:
        holds = (
            await db.execute(
                select(func.count(), func.sum(Account.balance)).where(
                    Account.kind == "hold", Account.balance > 0
                )
            )
        ).one()
    assert tuple(holds) == (100, 100 * BET)


async def test_one_settlement_raced_twenty_times_pays_once(
    app: FastAPI, econ: EconomyTables, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settlement, "settle_game", no_generic)  # PostgreSQL's one statement
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    for u in (a, b):
        await econ.reserve_seat(u, "race", BET)
    assert await econ.start_game("race-g", "race", BET, [a, b]) == []
    result = GameResult(
        game_id="race-g",
        table_id="race",
        preset="abierto",
        bet=BET,
        teams={a: 0, b: 1},
        abandoned=frozenset(),
        winner_team=0,
        bots=0,
    )
    await asyncio.gather(*(econ.settle_game(result) for _ in range(20)))
    assert await coins(maker, a) == 2 * BET
    assert await coins(maker, b) == 0
    assert await balance(maker, "game:race-g") == 0
    async with maker() as db:
        settles = (
            await db.execute(select(func.count()).where(Transfer.kind == "settle"))
        ).scalar_one()
    assert settles == 1


async def test_start_raced_escrows_once(app: FastAPI, econ: EconomyTables) -> None:
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    for u in (a, b):
        await econ.reserve_seat(u, "srace", BET)
    answers = await asyncio.gather(
        *(econ.start_game("srace-g", "srace", BET, [a, b]) for _ in range(10))
    )
    assert all(x == [] for x in answers)
    assert await balance(maker, "game:srace-g") == 2 * BET
