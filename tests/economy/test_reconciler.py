"""The reconciler (issue 11, item 6) in process, on real PostgreSQL and Redis: each fault
it repairs, left behind on purpose, is repaired once through the ledger, and what is
alive is left alone. The conservation check runs after every test (conftest)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.economy.hooks import EconomyTables
from app.economy.models import GameBet, Transfer
from app.economy.reconciler import Reconciler
from app.social.models import Notification
from app.tables.lobby import lobby
from app.tables.lobby.schemas import CreateTableIn
from app.tables.play.service import Change, TableService, table_record
from app.tables.storage.meta import MIN_BET, TableMeta
from app.tables.storage.store import k_hash
from tests.economy.helpers import balance, coins, credits, new_users

START = 50_000


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    # Grace 0: whatever is left is repaired on the next run (the tests run it by hand).
    return {
        "reconcile_grace_seconds": 0,
        "reconcile_interval_seconds": 3600,
        "special_table_level": 1,
    }


@pytest.fixture
def rec(app: FastAPI) -> Reconciler:
    found = app.state.reconciler
    assert isinstance(found, Reconciler)
    return found


async def two_seated(svc: TableService, players: int = 2) -> tuple[TableMeta, int, int]:
    """A table with its host and a guest seated (a 2-seat table starts at once)."""
    host, guest = await new_users(svc.hooks.sessionmaker, 2)  # type: ignore[attr-defined]
    meta = await lobby.create_table(svc, host, "Host", CreateTableIn(players=2, bet=MIN_BET))
    await lobby.sit(svc, meta.id, guest, "Guest", None)
    return (await svc.load(meta.id))[1], host, guest


async def test_a_game_lost_with_redis_is_voided_refunded_and_told_once(
    app: FastAPI, rec: Reconciler
) -> None:
    svc: TableService = app.state.tables
    maker = app.state.sessionmaker
    meta, host, guest = await two_seated(svc)
    assert meta.status == "playing" and await coins(maker, host) == START - MIN_BET
    assert (await rec.run_once()).voided == []  # a live game is left alone
    await app.state.redis.flushdb()  # Redis lost everything
    runs = await asyncio.gather(*(rec.run_once() for _ in range(3)))
    assert sorted(g for r in runs for g in r.voided) == [meta.game_id]
    for u in (host, guest):
        assert await coins(maker, u) == START
    assert await balance(maker, f"game:{meta.game_id}") == 0
    async with maker() as db:
        bet = await db.get(GameBet, meta.game_id)
        told = (
            (
                await db.execute(
                    select(Notification.user_id).where(Notification.kind == "game_voided")
                )
            )
            .scalars()
            .all()
        )
        settles = (
            await db.execute(
                select(func.count())
                .select_from(Transfer)
                .where(Transfer.idempotency_key == f"settle:{meta.game_id}")
            )
        ).scalar_one()
    assert bet is not None and bet.state == "void"
    assert sorted(told) == sorted([host, guest]) and settles == 1


def services(app: FastAPI) -> tuple[TableService, EconomyTables, Any]:
    """The app's table service, its economy (the service's hooks) and sessionmaker."""
    svc: TableService = app.state.tables
    econ: EconomyTables = svc.hooks  # type: ignore[assignment]
    return svc, econ, app.state.sessionmaker


async def test_holds_left_behind_are_released_and_seats_keep_theirs(
    app: FastAPI, rec: Reconciler
) -> None:
    svc, econ, maker = services(app)
    host, ghost, stray, late = await new_users(maker, 4)
    waiting = await lobby.create_table(svc, host, "Host", CreateTableIn(players=2, bet=MIN_BET))
    await econ.reserve_seat(ghost, "never-existed", MIN_BET)  # table unknown to Redis
    await econ.charge_special_table(ghost, "lost-special")  # a special table's credit
    await econ.reserve_seat(stray, waiting.id, MIN_BET)  # a sit that never got its seat
    closed = await lobby.create_table(svc, late, "Late", CreateTableIn(players=2, bet=MIN_BET))

    def close(v: int, meta: TableMeta, state: Any) -> Change:
        meta = meta.model_copy(deep=True)
        meta.status, meta.close_reason = "closed", "declined"
        return Change(meta=meta, records=[table_record("closed", meta)])

    await svc.mutate(closed.id, close)  # closed, but its hold was never given back
    repairs = await rec.run_once()
    assert sorted(repairs.released) == sorted(
        [
            f"hold:never-existed:{ghost}",
            f"hold:{waiting.id}:{stray}",
            f"hold:{closed.id}:{late}",
            "special:lost-special",
        ]
    )
    for u in (ghost, stray, late):
        assert await coins(maker, u) == START
    assert await credits(maker, ghost) == 5
    assert await balance(maker, f"hold:{waiting.id}:{host}") == MIN_BET  # seated: kept
    assert (await rec.run_once()).released == []


async def test_a_table_stuck_in_starting_is_voided(app: FastAPI, rec: Reconciler) -> None:
    """Its recovery timer was lost (say Redis restarted from an older snapshot)."""
    svc: TableService = app.state.tables
    maker = app.state.sessionmaker
    host, guest = await new_users(maker, 2)
    meta = await lobby.create_table(svc, host, "Host", CreateTableIn(players=2, bet=MIN_BET))

    def stuck(v: int, current: TableMeta, state: Any) -> Change:
        current = current.model_copy(deep=True)
        current.seats[1] = current.seats[0].model_copy(update={"user_id": guest})  # type: ignore[union-attr]
        current.status, current.game_id = "starting", "stuckgame"
        current.started_at = time.time() - 3600
        return Change(meta=current, records=[table_record("starting", current)])

    await svc.hooks.reserve_seat(guest, meta.id, MIN_BET)
    await svc.mutate(meta.id, stuck)
    repairs = await rec.run_once()
    assert repairs.recovered == [meta.id]
    _, after, _ = await svc.load(meta.id)
    assert (after.status, after.close_reason) == ("closed", "start_failed")
    for u in (host, guest):
        assert await coins(maker, u) == START


async def test_a_lost_game_behind_a_page_of_live_ones_is_found_by_the_next_run(
    app: FastAPI, rec: Reconciler
) -> None:
    """Each run reads one page of pots, oldest first, and the next goes on after it: at
    scale the oldest pots are live games, and a run that always began at the start
    would never reach a lost game behind them. After the last page it begins again."""
    svc: TableService = app.state.tables
    maker = app.state.sessionmaker
    paged = Reconciler(svc, svc.hooks, batch=2)  # type: ignore[arg-type]
    games = [await two_seated(svc) for _ in range(4)]
    lost, _, _ = games[3]
    await app.state.redis.delete(k_hash(lost.id))  # Redis lost the newest table only
    assert (await paged.run_once()).voided == []  # games 0 and 1: live
    assert (await paged.run_once()).voided == [lost.game_id]  # games 2 and 3
    assert (await paged.run_once()).voided == []  # past the last page: from the start
    first, host, guest = games[0]
    await app.state.redis.delete(k_hash(first.id))
    assert (await paged.run_once()).voided == [first.game_id]
    for _meta, *people in (games[0], games[3]):
        for u in people:
            assert await coins(maker, u) == START
    for meta, *people in games[1:3]:
        assert await balance(maker, f"game:{meta.game_id}") == 2 * MIN_BET  # still live
        for u in people:
            assert await coins(maker, u) == START - MIN_BET


async def test_a_stray_hold_behind_a_page_of_kept_ones_is_released_by_the_next_run(
    app: FastAPI, rec: Reconciler
) -> None:
    svc, econ, maker = services(app)
    paged = Reconciler(svc, econ, batch=2)
    first, second, stray = await new_users(maker, 3)
    for host in (first, second):  # hosts seated at waiting tables: their holds stay
        await lobby.create_table(svc, host, "Host", CreateTableIn(players=2, bet=MIN_BET))
    await econ.reserve_seat(stray, "never-existed", MIN_BET)
    assert (await paged.run_once()).released == []
    assert (await paged.run_once()).released == [f"hold:never-existed:{stray}"]
    assert await coins(maker, stray) == START
    for host in (first, second):
        assert await coins(maker, host) == START - MIN_BET


async def test_twenty_paged_runs_at_once_void_a_lost_game_once(
    app: FastAPI, rec: Reconciler
) -> None:
    """Runs racing over the cursor may read a page twice, never void twice nor skip a
    page for good: the lost game is voided exactly once, its stakes back once."""
    svc, _, maker = services(app)
    paged = Reconciler(svc, svc.hooks, batch=2)  # type: ignore[arg-type]
    games = [await two_seated(svc) for _ in range(5)]
    lost, host, guest = games[4]
    await app.state.redis.delete(k_hash(lost.id))
    voided: list[str] = []
    for _ in range(3):  # three pages: at the latest the third round reaches it
        runs = await asyncio.gather(*(paged.run_once() for _ in range(20)))
        voided += [g for r in runs for g in r.voided]
    assert voided == [lost.game_id]
    for u in (host, guest):
        assert await coins(maker, u) == START
    for meta, *_ in games[:4]:
        assert await balance(maker, f"game:{meta.game_id}") == 2 * MIN_BET
