"""PostgreSQL's one-statement settlement (app/economy/fastsettle.py) against the generic path.

Every scenario is played twice on the same people: one game is settled through the hooks
(the fast path; the generic one is made to fail if called), an identical game through
``settlement.settle_game`` (the generic path SQLite runs). Coins, records, XP, levels and
level-up notifications must come out the same.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select, update

from app.core.db import utcnow
from app.economy import settlement, stakes
from app.economy.fastsettle import SettlementMismatch
from app.economy.hooks import EconomyTables
from app.economy.models import Account, Entry, GameBet, GameRecord, PlayerStats, Transfer
from app.economy.notify import Outbox
from app.social.models import Notification
from app.tables.play.hooks import GameResult
from app.users.models import User
from tests.economy.helpers import Listener, balance, coins, new_users

BET = 6_000


async def _no_generic(*args: object) -> bool:
    raise AssertionError("the generic settlement ran on PostgreSQL")


@pytest.fixture
def fast_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settlement, "settle_game", _no_generic)


def _result(
    game: str,
    teams: dict[int, int],
    winner: int | None,
    bet: int = BET,
    abandoned: tuple[int, ...] = (),
    bots: int = 0,
) -> GameResult:
    return GameResult(
        game_id=game,
        table_id=f"t-{game}",
        preset="abierto",
        bet=bet,
        teams=teams,
        abandoned=frozenset(abandoned),
        winner_team=winner,
        bots=bots,
    )


async def _start(econ: EconomyTables, game: str, users: list[int], bet: int) -> None:
    for u in users:
        await econ.reserve_seat(u, f"t-{game}", bet)
    assert await econ.start_game(game, f"t-{game}", bet, users) == []


async def _snapshot(app: FastAPI, game: str, users: list[int]) -> dict[str, Any]:
    async with app.state.sessionmaker() as db:
        records = (
            await db.execute(
                select(
                    GameRecord.user_id,
                    GameRecord.team,
                    GameRecord.outcome,
                    GameRecord.coins_delta,
                    GameRecord.xp,
                    GameRecord.with_bots,
                )
                .where(GameRecord.game_id == game)
                .order_by(GameRecord.user_id)
            )
        ).all()
        state = (
            await db.execute(select(GameBet.state).where(GameBet.game_id == game))
        ).scalar_one()
        entries = (
            await db.execute(
                select(Account.key, Entry.amount)
                .join(Entry, Entry.account_id == Account.id)
                .join(Transfer, Transfer.id == Entry.transfer_id)
                .where(Transfer.idempotency_key == f"settle:{game}")
                .order_by(Account.key)
            )
        ).all()
    slot = {u: f"u{i}" for i, u in enumerate(users)}
    return {
        "records": [(slot[r[0]], *r[1:]) for r in records],
        "state": state,
        "entries": sorted((_anon(k, slot, game), a) for k, a in entries),
    }


def _anon(key: str, slot: dict[int, str], game: str) -> str:
    for u, name in slot.items():
        key = key.replace(f"wallet:{u}:", f"wallet:{name}:")
    return key.replace(f"game:{game}", "game")


async def _progress(app: FastAPI, users: list[int]) -> list[tuple[int, int, int, int]]:
    async with app.state.sessionmaker() as db:
        rows = (
            await db.execute(
                select(
                    PlayerStats.user_id,
                    PlayerStats.xp,
                    PlayerStats.level,
                    PlayerStats.games,
                    PlayerStats.wins,
                ).where(PlayerStats.user_id.in_(users))
            )
        ).all()
    found = {r[0]: tuple(r[1:]) for r in rows}
    return [found.get(u, (0, 1, 0, 0)) for u in users]  # type: ignore[misc]


async def _level_notes(app: FastAPI, users: list[int]) -> list[tuple[int, dict[str, int]]]:
    async with app.state.sessionmaker() as db:
        rows = (
            await db.execute(
                select(Notification.user_id, Notification.payload)
                .where(Notification.user_id.in_(users), Notification.kind == "level_up")
                .order_by(Notification.id)
            )
        ).all()
    return [(users.index(u), p) for u, p in rows]


SCENARIOS = {
    # name: (people, teams by position, winner, abandoned positions, bots, bet, xp before)
    "two_players": (2, [0, 1], 0, (), 0, BET, 0),
    "pairs": (4, [0, 1, 0, 1], 1, (), 0, BET, 0),
    "void": (4, [0, 1, 0, 1], None, (), 0, BET, 0),
    "winner_abandoned": (4, [0, 1, 0, 1], 0, (0,), 0, BET, 0),
    "every_winner_abandoned": (2, [0, 1], 0, (0,), 0, BET, 0),
    "bots_won": (2, [0, 0], 1, (1,), 2, BET, 0),
    "odd_split": (3, [0, 0, 1], 0, (), 1, 7_001, 0),
    "free_game": (2, [0, 1], 1, (), 0, 0, 0),
    "level_ups": (2, [0, 1], 0, (), 0, BET, 95),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_fast_path_matches_the_generic_path(
    app: FastAPI, econ: EconomyTables, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    count, team_of, winner, left, bots, bet, xp_before = SCENARIOS[name]
    maker = app.state.sessionmaker
    generic = settlement.settle_game
    sides: dict[str, Any] = {}
    for side in ("fast", "generic"):
        users = await new_users(maker, count)
        if xp_before:
            async with maker() as db:
                db.add_all(
                    PlayerStats(user_id=u, xp=xp_before, level=1, games=1, wins=0) for u in users
                )
                await db.commit()
        game = f"{name}-{side}"
        await _start(econ, game, users, bet)
        before = [await coins(maker, u) for u in users]
        result = _result(
            game,
            {u: team_of[i] for i, u in enumerate(users)},
            winner,
            bet,
            tuple(users[i] for i in left),
            bots,
        )
        if side == "fast":
            monkeypatch.setattr(settlement, "settle_game", _no_generic)
            await econ.settle_game(result)
            await econ.settle_game(result)  # a replay changes nothing
            monkeypatch.setattr(settlement, "settle_game", generic)
        else:
            for _ in range(2):
                async with maker() as db:
                    await generic(db, Outbox(), result)
                    await db.commit()
        sides[side] = {
            "coins": [await coins(maker, u) - b for u, b in zip(users, before, strict=True)],
            "escrow": await balance(maker, f"game:{game}"),
            **await _snapshot(app, game, users),
            "progress": await _progress(app, users),
            "level_ups": await _level_notes(app, users),
        }
    assert sides["fast"] == sides["generic"]
    assert sides["fast"]["escrow"] == 0
    if name == "level_ups":
        # 95 XP: the winner's 26 and the loser's 6 both reach level 2 (100).
        assert sides["fast"]["level_ups"] == [
            (0, {"level": 2, "previous": 1}),
            (1, {"level": 2, "previous": 1}),
        ]


async def test_a_level_up_is_pushed_after_the_commit(
    app: FastAPI, econ: EconomyTables, fast_only: None
) -> None:
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    async with maker() as db:
        db.add(PlayerStats(user_id=a, xp=99, level=1, games=3, wins=0))
        db.add(Notification(user_id=a, kind="challenge", payload={}))  # one unread already
        await db.commit()
    await _start(econ, "lvl", [a, b], BET)
    async with Listener(app.state.redis, f"user:{a}") as inbox:
        await econ.settle_game(_result("lvl", {a: 0, b: 1}, 0))
        pushed = await inbox.drain()
    kinds = [m["type"] for m in pushed]
    assert kinds == ["notification", "wallet", "notifications_unread"], pushed
    assert pushed[0]["kind"] == "level_up"
    assert pushed[0]["payload"] == {"level": 2, "previous": 1}
    assert pushed[2]["count"] == 2


async def test_an_escrow_not_holding_its_stakes_writes_nothing(
    app: FastAPI, econ: EconomyTables, fast_only: None
) -> None:
    """A broken invariant aborts the one statement: no flip, no transfer, no records."""
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    await _start(econ, "bad", [a, b], BET)

    async def shift(coins_into_escrow: int) -> None:  # as a bug elsewhere would
        async with maker() as db:
            await db.execute(
                update(Account)
                .where(Account.key == "game:bad")
                .values(balance=Account.balance + coins_into_escrow)
            )
            await db.execute(
                update(Account)
                .where(Account.key == f"wallet:{a}:coins")
                .values(balance=Account.balance - coins_into_escrow)
            )
            await db.commit()

    for delta in (-1, 2):  # short of the stakes (the CHECK), then over them (the guard)
        await shift(delta)
        with pytest.raises(SettlementMismatch):
            await econ.settle_game(_result("bad", {a: 0, b: 1}, 1))
        async with maker() as db:
            assert (
                await db.execute(select(GameBet.state).where(GameBet.game_id == "bad"))
            ).scalar_one() == "escrowed"
            assert (
                await db.execute(select(func.count()).select_from(GameRecord))
            ).scalar_one() == 0
            assert (
                await db.execute(select(func.count()).where(Transfer.kind == "settle"))
            ).scalar_one() == 0
    await shift(-1)  # back as it was: now it settles
    await econ.settle_game(_result("bad", {a: 0, b: 1}, 1))
    assert await coins(maker, b) == 50_000 + BET
    assert await balance(maker, "game:bad") == 0


async def test_stakes_other_than_expected_are_read_and_settled(
    app: FastAPI, econ: EconomyTables, fast_only: None
) -> None:
    """The statement first assumes every person staked ``result.bet``; when the row says
    otherwise it reads the real stakes and settles with those."""
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    await _start(econ, "odd", [a, b], BET)
    await econ.settle_game(_result("odd", {a: 0, b: 1}, 1, bet=0))
    assert (await coins(maker, a), await coins(maker, b)) == (50_000 - BET, 50_000 + BET)


async def test_a_game_never_escrowed_takes_the_generic_path(
    app: FastAPI, econ: EconomyTables
) -> None:
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    await econ.settle_game(_result("free", {a: 0, b: 1}, 0, bet=0))
    await econ.settle_game(_result("free", {a: 0, b: 1}, 0, bet=0))
    async with maker() as db:
        records = (await db.execute(select(func.count()).select_from(GameRecord))).scalar_one()
        games = (
            await db.execute(select(PlayerStats.games).where(PlayerStats.user_id == a))
        ).scalar_one()
    assert (records, games) == (2, 1)


async def test_the_fast_path_reads_players_as_the_generic_path_does(
    app: FastAPI, econ: EconomyTables
) -> None:
    """The chip-dumping checks read a game's players on the settlement's own asyncpg
    connection (stakes.people_raw); what they read is what stakes.people reads: guests,
    new and established accounts, an address, a level of their own or none yet."""
    maker = app.state.sessionmaker
    old = await new_users(maker, 2)
    young = await new_users(maker, 1, days_old=0)
    async with maker() as db:
        guest = User(nickname="GuestRaw", is_guest=True, signup_addr="a1b2")
        db.add(guest)
        db.add(PlayerStats(user_id=old[0], xp=900, level=7))
        await db.commit()
        ids = {*old, *young, guest.id, 10**12}  # and one that does not exist
    async with maker() as db:
        expected = await stakes.people(db, ids)
    async with econ.engine.connect() as conn:
        raw = (await conn.get_raw_connection()).driver_connection
        got = await stakes.people_raw(raw, ids)
    assert got == expected
    assert len(got) == 4 and got[old[0]].level == 7 and got[guest.id].addr == "a1b2"
    now = utcnow()
    assert [got[u].is_new(econ.settings, now) for u in (old[0], young[0], guest.id)] == [
        False,
        True,
        True,
    ]
