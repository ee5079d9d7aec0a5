"""Bets through the table hooks: holds, escrow, settlement, forfeits, voids, bots."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.core.errors import AppError
from app.economy.hooks import EconomyTables
from app.economy.models import GameRecord, PlayerStats, Wallet
from app.tables.play.hooks import GameResult
from tests.economy.helpers import Listener, balance, coins, new_users

START = 50_000
BET = 6_000


def result(game: str, teams: dict[int, int], winner: int | None, **kw: object) -> GameResult:
    return GameResult(
        game_id=game,
        table_id=f"t-{game}",
        preset=str(kw.get("preset", "abierto")),
        bet=int(kw.get("bet", BET)),  # type: ignore[call-overload]
        teams=teams,
        abandoned=frozenset(kw.get("abandoned", ())),  # type: ignore[arg-type]
        winner_team=winner,
        bots=int(kw.get("bots", 0)),  # type: ignore[call-overload]
    )


async def sit_and_start(econ: EconomyTables, game: str, users: list[int], bet: int = BET) -> None:
    for u in users:
        await econ.reserve_seat(u, f"t-{game}", bet)
    assert await econ.start_game(game, f"t-{game}", bet, users) == []


async def test_two_players_winner_takes_both_stakes(app: FastAPI, econ: EconomyTables) -> None:
    a, b = await new_users(app.state.sessionmaker, 2)
    await sit_and_start(econ, "g1", [a, b])
    maker = app.state.sessionmaker
    assert await coins(maker, a) == START - BET
    assert await balance(maker, "game:g1") == 2 * BET
    async with Listener(app.state.redis, f"user:{a}") as inbox:
        await econ.settle_game(result("g1", {a: 0, b: 1}, 0))
        pushed = await inbox.drain()
    # v 4: the two starting grants, the seat's hold, the payout
    assert pushed == [
        {"type": "wallet", "coins": START + BET, "credits": 5, "v": 4, "via": f"user:{a}"}
    ]
    assert await coins(maker, a) == START + BET
    assert await coins(maker, b) == START - BET
    assert await balance(maker, "game:g1") == 0


async def test_pairs_each_winner_receives_two_stakes(app: FastAPI, econ: EconomyTables) -> None:
    a, b, c, d = await new_users(app.state.sessionmaker, 4)
    await sit_and_start(econ, "g2", [a, b, c, d])
    await econ.settle_game(result("g2", {a: 0, c: 0, b: 1, d: 1}, 1))
    maker = app.state.sessionmaker
    assert [await coins(maker, u) for u in (a, b, c, d)] == [
        START - BET,
        START + BET,
        START - BET,
        START + BET,
    ]


async def test_settling_twice_pays_once(app: FastAPI, econ: EconomyTables) -> None:
    a, b = await new_users(app.state.sessionmaker, 2)
    await sit_and_start(econ, "g3", [a, b])
    for _ in range(3):
        await econ.settle_game(result("g3", {a: 0, b: 1}, 0))
    assert await coins(app.state.sessionmaker, a) == START + BET


async def test_abandoning_forfeits_the_stake_to_the_winner(
    app: FastAPI, econ: EconomyTables
) -> None:
    a, b = await new_users(app.state.sessionmaker, 2)
    await sit_and_start(econ, "g4", [a, b])
    await econ.settle_game(result("g4", {a: 0, b: 1}, 0, abandoned=[b]))
    maker = app.state.sessionmaker
    assert await coins(maker, a) == START + BET
    assert await coins(maker, b) == START - BET


async def test_void_refunds_every_stake(app: FastAPI, econ: EconomyTables) -> None:
    a, b, c, d = await new_users(app.state.sessionmaker, 4)
    await sit_and_start(econ, "g5", [a, b, c, d])
    await econ.settle_game(result("g5", {a: 0, c: 0, b: 1, d: 1}, None))
    for u in (a, b, c, d):
        assert await coins(app.state.sessionmaker, u) == START
    async with app.state.sessionmaker() as db:
        assert (await db.execute(select(PlayerStats))).first() is None  # no XP for a void


async def test_against_bots_nothing_to_win_and_no_xp(app: FastAPI, econ: EconomyTables) -> None:
    (a,) = await new_users(app.state.sessionmaker, 1)
    maker = app.state.sessionmaker
    for i in range(5):  # win five times against a bot: still the starting coins, no XP
        await sit_and_start(econ, f"bot{i}", [a])
        await econ.settle_game(result(f"bot{i}", {a: 0}, 0, bots=1))
    assert await coins(maker, a) == START
    await sit_and_start(econ, "bot-lost", [a])
    await econ.settle_game(result("bot-lost", {a: 0}, 1, bots=1))
    assert await coins(maker, a) == START  # losing to a bot refunds: the bot staked nothing
    async with maker() as db:
        stats = await db.get(PlayerStats, a)
        assert stats is not None and stats.xp == 0 and stats.games == 6


async def test_abandoning_a_bot_game_loses_the_stake_to_the_house(
    app: FastAPI, econ: EconomyTables
) -> None:
    (a,) = await new_users(app.state.sessionmaker, 1)
    await sit_and_start(econ, "bot-ab", [a])
    await econ.settle_game(result("bot-ab", {a: 0}, 1, bots=1, abandoned=[a]))
    maker = app.state.sessionmaker
    assert await coins(maker, a) == START - BET
    assert await balance(maker, "house:forfeits:coins") == BET


async def test_people_with_bot_partners_play_for_the_peoples_stakes(
    app: FastAPI, econ: EconomyTables
) -> None:
    a, b, c = await new_users(app.state.sessionmaker, 3)
    await sit_and_start(econ, "mix", [a, b, c])
    await econ.settle_game(result("mix", {a: 0, b: 0, c: 1}, 1, bots=1))
    maker = app.state.sessionmaker
    assert await coins(maker, c) == START + 2 * BET
    async with maker() as db:
        rec = await db.get(GameRecord, ("mix", c))
        assert rec is not None and rec.outcome == "win" and rec.xp > 0


async def test_start_is_all_or_none(app: FastAPI, econ: EconomyTables) -> None:
    a, b = await new_users(app.state.sessionmaker, 2)
    maker = app.state.sessionmaker
    await econ.reserve_seat(a, "t-poor", 40_000)
    await econ.reserve_seat(b, "t-other", 45_000)  # b keeps only 5,000 free
    failed = await econ.start_game("poor", "t-poor", 40_000, [a, b])
    assert failed == [b]
    assert await coins(maker, a) == START - 40_000  # a's hold untouched, nothing escrowed
    assert await balance(maker, "hold:t-poor:" + str(a)) == 40_000
    assert await balance(maker, "game:poor") == 0
    await econ.release_seat(a, "t-poor")
    await econ.release_seat(b, "t-other")
    assert await coins(maker, a) == START and await coins(maker, b) == START


async def test_a_seat_whose_account_is_gone_cannot_stake_and_nothing_moves(
    app: FastAPI, econ: EconomyTables
) -> None:
    """A table's seat can outlive its account (a deadline fills the table with bots and
    starts it later): that player is answered like one who cannot pay, with no wallet
    made for a user who does not exist and no error."""
    (a,) = await new_users(app.state.sessionmaker, 1)
    maker = app.state.sessionmaker
    gone = a + 10_000
    await econ.reserve_seat(a, "t-gone", BET)
    assert await econ.start_game("gone", "t-gone", BET, [a, gone]) == [gone]
    assert await balance(maker, "game:gone") == 0
    assert await balance(maker, "hold:t-gone:" + str(a)) == BET
    async with maker() as db:
        assert await db.get(Wallet, gone) is None
    await econ.release_seat(a, "t-gone")
    assert await coins(maker, a) == START


async def test_a_second_hold_is_refused_and_release_returns_the_hold(
    app: FastAPI, econ: EconomyTables
) -> None:
    """A seat and its hold are one unit: a second sit's hold at the same table is
    refused (it belongs to another sit of this player) and moves nothing."""
    (a,) = await new_users(app.state.sessionmaker, 1)
    maker = app.state.sessionmaker
    await econ.reserve_seat(a, "t1", BET)
    with pytest.raises(AppError) as second:
        await econ.reserve_seat(a, "t1", BET)
    assert second.value.code == "already_seated"
    assert await coins(maker, a) == START - BET
    await econ.release_seat(a, "t1")
    await econ.release_seat(a, "t1")
    assert await coins(maker, a) == START


async def test_insufficient_funds_and_bad_bets_move_nothing(
    app: FastAPI, econ: EconomyTables
) -> None:
    (a,) = await new_users(app.state.sessionmaker, 1)
    await econ.reserve_seat(a, "t-small", BET)
    await econ.release_seat(a, "t-small")  # the wallet now exists
    with pytest.raises(AppError) as err:
        await econ.reserve_seat(a, "t-big", START + 1)
    assert err.value.code == "insufficient_funds"
    for bad in (-1, 10**13):
        with pytest.raises(AppError) as err:
            await econ.reserve_seat(a, "t-bad", bad)
        assert err.value.code == "invalid_bet"
    assert await coins(app.state.sessionmaker, a) == START


async def test_special_tables_need_level_two_and_a_credit(
    app: FastAPI, econ: EconomyTables
) -> None:
    a, b = await new_users(app.state.sessionmaker, 2)
    maker = app.state.sessionmaker
    with pytest.raises(AppError) as err:
        await econ.charge_special_table(a, "sp1")
    assert err.value.code == "level_too_low"
    async with maker() as db:
        db.add(PlayerStats(user_id=a, xp=100, level=2, games=0, wins=0))
        await db.commit()
    await econ.charge_special_table(a, "sp1")
    await econ.charge_special_table(a, "sp1")  # idempotent
    assert await _credits(maker, a) == 4
    await econ.refund_special_table(a, "sp1")
    await econ.refund_special_table(a, "sp1")
    assert await _credits(maker, a) == 5
    # Charged again and started: the credit is spent and a late refund changes nothing.
    await econ.charge_special_table(a, "sp1")
    await econ.reserve_seat(a, "sp1", BET)
    await econ.reserve_seat(b, "sp1", BET)
    assert await econ.start_game("spg", "sp1", BET, [a, b]) == []
    await econ.refund_special_table(a, "sp1")
    assert await _credits(maker, a) == 4
    assert await balance(maker, "house:special:credits") == 1


async def test_no_credits_left(app: FastAPI, econ: EconomyTables) -> None:
    (a,) = await new_users(app.state.sessionmaker, 1)
    maker = app.state.sessionmaker
    async with maker() as db:
        db.add(PlayerStats(user_id=a, xp=100, level=2, games=0, wins=0))
        await db.commit()
    for i in range(5):
        await econ.charge_special_table(a, f"sp-{i}")
    with pytest.raises(AppError) as err:
        await econ.charge_special_table(a, "sp-5")
    assert err.value.code == "no_credits"
    assert await _credits(maker, a) == 0


async def _credits(maker: object, user_id: int) -> int:
    return await balance(maker, f"wallet:{user_id}:credits")  # type: ignore[arg-type]
