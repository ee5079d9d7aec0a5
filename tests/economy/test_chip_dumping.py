"""Chip dumping (app/economy/stakes.py, integrity.py, holds.py): a ring of fresh accounts
from one address cannot pass more than a bounded amount to one account, while ordinary
players are neither capped, flagged nor held. Real Postgres and Redis."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.errors import AppError
from app.economy import giftable, holds, ledger
from app.economy.hooks import EconomyTables
from app.economy.models import IntegrityFlag, WinningsHold
from app.economy.notify import Outbox
from app.economy.sql import dialect
from app.tables.play.hooks import GameResult
from app.users.models import User
from tests.economy.helpers import assert_conserved, balance, coins, new_users

BET = 6_000


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"db_pool_size": 10}


async def at_address(maker: async_sessionmaker[AsyncSession], users: list[int], addr: str) -> None:
    async with maker() as db:
        await db.execute(update(User).where(User.id.in_(users)).values(signup_addr=addr))
        await db.commit()


async def guests(maker: async_sessionmaker[AsyncSession], n: int, addr: str) -> list[int]:
    async with maker() as db:
        made = [User(nickname=f"Guest{addr}{i}", is_guest=True, signup_addr=addr) for i in range(n)]
        db.add_all(made)
        await db.commit()
        return [u.id for u in made]


_games = iter(range(10**9))


async def play(
    econ: EconomyTables, winners: list[int], losers: list[int], bet: int, *, settle: bool = True
) -> str:
    """A real game through the hooks (seats, escrow, settlement); ``winners`` win."""
    n = next(_games)
    table, game = f"cd-t{n}", f"cd-g{n}"
    for u in losers + winners:  # a capped loser is refused before anyone holds a coin
        await econ.reserve_seat(u, table, bet)
    assert await econ.start_game(game, table, bet, winners + losers) == []
    if settle:
        await econ.settle_game(result(game, table, bet, winners, losers))
    return game


def result(game: str, table: str, bet: int, winners: list[int], losers: list[int]) -> GameResult:
    return GameResult(
        game_id=game,
        table_id=table,
        preset="abierto",
        bet=bet,
        teams={**dict.fromkeys(winners, 0), **dict.fromkeys(losers, 1)},
        abandoned=frozenset(),
        winner_team=0,
        bots=0,
    )


async def giftable_now(maker: async_sessionmaker[AsyncSession], user: int) -> int:
    async with maker() as db:
        w = ledger.wallet(user, ledger.COINS)
        locked = await ledger.lock(db, [w.key])
        return await giftable.allowance(db, locked[w.key])


async def count(maker: async_sessionmaker[AsyncSession], model: Any) -> int:
    async with maker() as db:
        return int((await db.execute(select(func.count()).select_from(model))).scalar_one())


# ------------------------------------------------------------------ stake caps


async def test_guests_and_new_accounts_are_capped_with_a_readable_refusal(
    app: FastAPI, econ: EconomyTables
) -> None:
    maker, s = app.state.sessionmaker, app.state.settings
    (guest,) = await guests(maker, 1, "cap")
    (fresh,) = await new_users(maker, 1, days_old=0)
    (old,) = await new_users(maker, 1)
    with pytest.raises(AppError) as refused:
        await econ.reserve_seat(guest, "cap-1", s.guest_max_bet + 1)
    assert refused.value.code == "stake_too_high" and refused.value.status == 403
    assert str(s.guest_max_bet) in refused.value.message
    assert await coins(maker, guest) == 0  # nothing moved, not even the wallet's grant
    await econ.reserve_seat(guest, "cap-2", s.guest_max_bet)
    with pytest.raises(AppError) as refused:
        await econ.reserve_seat(fresh, "cap-3", s.new_account_max_bet + 1)
    assert refused.value.code == "stake_too_high"
    await econ.reserve_seat(fresh, "cap-4", s.new_account_max_bet)
    await econ.reserve_seat(old, "cap-5", 40_000)  # established: no cap


async def test_a_new_account_that_levelled_up_is_no_longer_capped(
    app: FastAPI, econ: EconomyTables
) -> None:
    maker, s = app.state.sessionmaker, app.state.settings
    (fresh,) = await new_users(maker, 1, days_old=0)
    async with maker() as db:
        from app.economy.models import PlayerStats

        db.add(PlayerStats(user_id=fresh, xp=10**6, level=s.new_account_level, games=1, wins=0))
        await db.commit()
    await econ.reserve_seat(fresh, "lvl-1", 40_000)


# ------------------------------------------------------------------ the ring


async def test_a_ring_of_guests_from_one_address_funnels_at_most_the_limit(
    app: FastAPI, econ: EconomyTables
) -> None:
    """Ten guests from one address lose on purpose to one receiver, with Redis flushed
    half-way: what the receiver may spend or give stays within the address limit, the
    rest waits in its withheld account, flagged for the operator."""
    maker, s = app.state.sessionmaker, app.state.settings
    ring = await guests(maker, 10, "ring")
    (receiver,) = await new_users(maker, 1)
    start = await coins(maker, receiver) or s.starting_coins
    refused = 0
    for rnd in range(3):
        for g in ring:
            try:
                await play(econ, [receiver], [g], s.guest_max_bet + 10_000 * (rnd == 0))
            except AppError as e:
                assert e.code == "stake_too_high"
                refused += 1
                await play(econ, [receiver], [g], s.guest_max_bet)
        if rnd == 1:
            await app.state.redis.flushdb()
    assert refused == 10  # every over-cap bet was refused
    free = await giftable_now(maker, receiver)
    assert free <= s.integrity_address_coins
    held = await balance(maker, holds.withheld(receiver).key)
    assert held == 30 * s.guest_max_bet - free
    assert await coins(maker, receiver) == start + free
    async with maker() as db:
        flags = (await db.execute(select(IntegrityFlag))).scalars().all()
    assert {f.winner_id for f in flags} == {receiver}
    assert {f.loser_id for f in flags} <= set(ring)
    # Every held game is an address flag's; the third round also repeats each pair.
    assert {f.reason for f in flags} == {"address", "pair"}
    assert sum(f.coins for f in flags if f.reason == "address") == held
    await assert_conserved(maker)


async def test_repeated_quick_wins_over_one_new_account_are_held(
    app: FastAPI, econ: EconomyTables
) -> None:
    maker, s = app.state.sessionmaker, app.state.settings
    (fresh,) = await new_users(maker, 1, days_old=0)
    (winner,) = await new_users(maker, 1)
    for _ in range(s.integrity_pair_games):
        await play(econ, [winner], [fresh], BET)
    assert await balance(maker, holds.withheld(winner).key) == BET  # the last game only
    assert await giftable_now(maker, winner) == (s.integrity_pair_games - 1) * BET
    async with maker() as db:
        flag = (await db.execute(select(IntegrityFlag))).scalar_one()
    assert (flag.winner_id, flag.loser_id, flag.reason, flag.games) == (
        winner,
        fresh,
        "pair",
        1,
    )
    # A flagged pair stays held: the next game's winnings wait too.
    await play(econ, [winner], [fresh], BET)
    assert await balance(maker, holds.withheld(winner).key) == 2 * BET


# ------------------------------------------------------------------ ordinary players


async def test_an_ordinary_mixed_population_is_never_capped_flagged_or_held(
    app: FastAPI, econ: EconomyTables
) -> None:
    """Established players of various levels, a few new accounts (each from its own
    address) and a guest, playing each other at ordinary bets, winning and losing."""
    maker, s = app.state.sessionmaker, app.state.settings
    rng = random.Random(34)
    old = await new_users(maker, 10)
    fresh = await new_users(maker, 3, days_old=1)
    for i, u in enumerate(fresh):
        await at_address(maker, [u], f"home{i}")
    (guest,) = await guests(maker, 1, "cafe")
    async with maker() as db:
        from app.economy.models import PlayerStats

        for i, u in enumerate(old):
            db.add(PlayerStats(user_id=u, xp=100 * i * i, level=1 + i, games=i, wins=i // 2))
        await db.commit()
    everyone = old + fresh + [guest]
    for _ in range(60):
        a, b = rng.sample(everyone, 2)
        newbie = {a, b} & {*fresh, guest}
        cap = s.guest_max_bet if guest in newbie else s.new_account_max_bet
        bet = rng.choice([6_000, 8_000, 10_000] if newbie else [6_000, 10_000, 20_000, 50_000])
        bet = min(bet, cap) if newbie else bet
        if min(await coins(maker, a), await coins(maker, b)) < bet:
            continue
        winner, loser = (a, b) if rng.random() < 0.5 else (b, a)
        await play(econ, [winner], [loser], bet)
    assert await count(maker, IntegrityFlag) == 0
    assert await count(maker, WinningsHold) == 0
    async with maker() as db:
        withheld = await db.execute(
            select(func.count())
            .select_from(ledger.Account)
            .where(ledger.Account.kind == "withheld")
        )
        assert withheld.scalar_one() == 0


# ------------------------------------------------------------------ holds under races


async def test_twenty_racing_releases_pay_the_held_winnings_once(
    app: FastAPI, econ: EconomyTables
) -> None:
    maker, s = app.state.sessionmaker, app.state.settings
    (fresh,) = await new_users(maker, 1, days_old=0)
    (winner,) = await new_users(maker, 1)
    for _ in range(s.integrity_pair_games + 1):
        await play(econ, [winner], [fresh], BET)
    held = await balance(maker, holds.withheld(winner).key)
    assert held == 2 * BET
    before = await coins(maker, winner)
    free_before = await giftable_now(maker, winner)

    async def release() -> int:
        async with maker() as db:
            done = await holds.release(db, Outbox(), winner)
            await db.commit()
            return done.coins

    paid = await asyncio.gather(*(release() for _ in range(20)))
    assert sorted(paid) == [0] * 19 + [held]
    assert await coins(maker, winner) == before + held
    assert await balance(maker, holds.withheld(winner).key) == 0
    assert await giftable_now(maker, winner) == free_before + held
    async with maker() as db:
        states = (await db.execute(select(WinningsHold.state))).scalars().all()
        flag = (await db.execute(select(IntegrityFlag))).scalar_one()
    assert set(states) == {"released"} and flag.state == "released"
    # Released: the window restarts, so the next win is paid (one game is not a pattern).
    await play(econ, [winner], [fresh], BET)
    assert await balance(maker, holds.withheld(winner).key) == 0


async def test_a_flagged_settlement_raced_twenty_times_holds_once(
    app: FastAPI, econ: EconomyTables
) -> None:
    maker, s = app.state.sessionmaker, app.state.settings
    ring = await guests(maker, 3, "race")
    (receiver,) = await new_users(maker, 1)
    for g in ring[:2]:
        await play(econ, [receiver], [g], s.guest_max_bet)
    game = await play(econ, [receiver], [ring[2]], s.guest_max_bet, settle=False)
    table = game.replace("-g", "-t")
    done = await asyncio.gather(
        *(
            econ.settle_game(result(game, table, s.guest_max_bet, [receiver], [ring[2]]))
            for _ in range(20)
        ),
        return_exceptions=True,
    )
    assert all(d is None for d in done), [d for d in done if d is not None][:2]
    assert await balance(maker, holds.withheld(receiver).key) == s.guest_max_bet
    async with maker() as db:
        rows = (await db.execute(select(WinningsHold))).scalars().all()
        flags = (await db.execute(select(IntegrityFlag))).scalars().all()
        assert dialect(db) == "postgresql"
    assert [(h.game_id, h.amount) for h in rows] == [(game, s.guest_max_bet)]
    assert [(f.loser_id, f.games) for f in flags] == [(ring[2], 1)]


async def test_a_ring_whose_games_end_at_once_still_funnels_at_most_the_limit(
    app: FastAPI, econ: EconomyTables
) -> None:
    """Eight games of one address's guests against one receiver, all settled at the same
    moment: each winner's checks run one after the other (the wallet row lock), so
    concurrent settlements cannot each see the ring's total as below the limit."""
    maker, s = app.state.sessionmaker, app.state.settings
    ring = await guests(maker, 8, "burst")  # the receiver's 50,000 stake 8 games at once
    (receiver,) = await new_users(maker, 1)
    games = [await play(econ, [receiver], [g], s.guest_max_bet, settle=False) for g in ring]
    await asyncio.gather(
        *(
            econ.settle_game(
                result(game, game.replace("-g", "-t"), s.guest_max_bet, [receiver], [g])
            )
            for game, g in zip(games, ring, strict=True)
        )
    )
    free = await giftable_now(maker, receiver)
    held = await balance(maker, holds.withheld(receiver).key)
    assert free == s.integrity_address_coins  # two games paid, every later one held
    assert held == 8 * s.guest_max_bet - free
