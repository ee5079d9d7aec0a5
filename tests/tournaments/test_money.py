"""A tournament's money on real Postgres: buy-ins escrowed once however many
registrations race, refunds once, prizes once across a simulated crash mid-payout."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.errors import AppError
from app.economy import ledger
from app.economy.models import Transfer
from app.economy.notify import Outbox
from app.tournaments import money
from app.tournaments.models import Entrant, Payout, Tournament
from app.tournaments.schemas import SitGoIn
from app.tournaments.service import create_sitgo
from app.users.models import User
from tests.economy.helpers import balance, coins, new_users

BUY_IN = 10_000


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    # the runner's tick stays out of the way: these tests take each step themselves
    return {"db_pool_size": 10, "tournament_fee_bps": 1_000, "tournament_tick_seconds": 60}


Maker = async_sessionmaker[AsyncSession]


async def _sitgo(app: FastAPI, entrants: int = 16, buy_in: int = BUY_IN) -> int:
    async with app.state.sessionmaker() as db:
        t = await create_sitgo(
            db,
            app.state.settings,
            0 or None,
            SitGoIn(entrants=entrants, buy_in=buy_in),  # type: ignore[arg-type]
        )
        await db.commit()
        return t.id


async def _register(app: FastAPI, tid: int, user_id: int) -> str:
    maker: Maker = app.state.sessionmaker
    async with maker() as db:
        user = await db.get(User, user_id)
        assert user is not None
        try:
            await money.register(db, app.state.settings, Outbox(), tid, user)
        except AppError as exc:
            await db.rollback()
            return exc.code
        await db.commit()
        return "ok"


async def _entrants(maker: Maker, tid: int) -> list[Entrant]:
    async with maker() as db:
        return await money.active_entrants(db, tid)


async def _keys(maker: Maker, prefix: str) -> int:
    async with maker() as db:
        stmt = select(Transfer.id).where(Transfer.idempotency_key.like(prefix + "%"))
        return len((await db.execute(stmt)).all())


async def test_twenty_people_race_for_sixteen_places(app: FastAPI) -> None:
    maker: Maker = app.state.sessionmaker
    tid = await _sitgo(app)
    users = await new_users(maker, 20)
    start = app.state.settings.starting_coins
    answers = await asyncio.gather(*(_register(app, tid, u) for u in users))
    assert answers.count("ok") == 16
    assert answers.count("tournament_full") == 4
    assert len(await _entrants(maker, tid)) == 16
    assert await balance(maker, money.escrow(tid).key) == 16 * BUY_IN
    for u, answer in zip(users, answers, strict=True):
        # the wallet is made (with the starting grant) by the first registration
        assert await coins(maker, u) == (start - BUY_IN if answer == "ok" else 0)
    async with maker() as db:
        t = await db.get(Tournament, tid)
        assert t is not None and t.full_at is not None


async def test_the_same_registration_twenty_times_at_once_pays_once(app: FastAPI) -> None:
    maker: Maker = app.state.sessionmaker
    tid = await _sitgo(app)
    (u,) = await new_users(maker, 1)
    await _register(app, tid, u)  # the wallet exists now
    await _unregister(app, tid, u)
    start = await coins(maker, u)
    answers = await asyncio.gather(*(_register(app, tid, u) for _ in range(20)))
    assert answers.count("ok") == 1
    assert set(answers) == {"ok", "already_registered"}
    assert await coins(maker, u) == start - BUY_IN
    assert await balance(maker, money.escrow(tid).key) == BUY_IN


async def _unregister(app: FastAPI, tid: int, user_id: int) -> str:
    async with app.state.sessionmaker() as db:
        try:
            await money.unregister(db, Outbox(), tid, user_id)
        except AppError as exc:
            await db.rollback()
            return exc.code
        await db.commit()
        return "ok"


async def test_unregistering_twenty_times_at_once_refunds_once(app: FastAPI) -> None:
    maker: Maker = app.state.sessionmaker
    tid = await _sitgo(app)
    (u,) = await new_users(maker, 1)
    assert await _register(app, tid, u) == "ok"
    after_buy_in = await coins(maker, u)
    answers = await asyncio.gather(*(_unregister(app, tid, u) for _ in range(20)))
    assert answers.count("ok") == 1
    assert set(answers) == {"ok", "not_registered"}
    assert await coins(maker, u) == after_buy_in + BUY_IN
    assert await balance(maker, money.escrow(tid).key) == 0
    # and may register again (a new registration, a new buy-in)
    assert await _register(app, tid, u) == "ok"
    assert await coins(maker, u) == after_buy_in


async def test_no_coins_no_registration_and_nothing_changes(app: FastAPI) -> None:
    maker: Maker = app.state.sessionmaker
    tid = await _sitgo(app, buy_in=10**9)
    (u,) = await new_users(maker, 1)
    assert await _register(app, tid, u) == "insufficient_funds"
    assert await _entrants(maker, tid) == []
    assert await balance(maker, money.escrow(tid).key) == 0


async def _cancel(app: FastAPI, tid: int) -> int:
    async with app.state.sessionmaker() as db:
        refunded = await money.cancel(db, Outbox(), tid)
        await db.commit()
        return refunded


async def test_cancelling_twenty_times_at_once_refunds_every_entrant_once(app: FastAPI) -> None:
    maker: Maker = app.state.sessionmaker
    tid = await _sitgo(app)
    users = await new_users(maker, 5)
    for u in users:
        assert await _register(app, tid, u) == "ok"
    paid = {u: await coins(maker, u) for u in users}
    refunded = await asyncio.gather(*(_cancel(app, tid) for _ in range(20)))
    assert sum(refunded) == 5 * BUY_IN
    for u in users:
        assert await coins(maker, u) == paid[u] + BUY_IN
    assert await balance(maker, money.escrow(tid).key) == 0
    assert await _keys(maker, "tournament:refund:") == 5
    assert await _register(app, tid, users[0]) == "registration_closed"


async def _finished_field(app: FastAPI, n: int = 16) -> tuple[int, list[int], list[Entrant]]:
    """A full Sit & Go, started (fee taken), with its final ranking written."""
    maker: Maker = app.state.sessionmaker
    tid = await _sitgo(app, entrants=n)
    users = await new_users(maker, n)
    for u in users:
        assert await _register(app, tid, u) == "ok"
    async with maker() as db:
        t = await money.locked_tournament(db, tid)
        entrants = await money.active_entrants(db, tid)
        t.state = "running"
        await money.award(db, t, [[e] for e in reversed(entrants)])
        await db.commit()
    return tid, users, entrants


async def test_prizes_are_paid_once_across_a_crash_and_twenty_payers(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    maker: Maker = app.state.sessionmaker
    tid, users, entrants = await _finished_field(app)
    pool = 16 * BUY_IN * 9 // 10
    assert await balance(maker, money.house().key) == 16 * BUY_IN // 10  # the fee, once
    assert await balance(maker, money.escrow(tid).key) == pool
    before = {u: await coins(maker, u) for u in users}

    # The process "dies" while paying the third place: its transaction never commits.
    real_post = ledger.post
    calls = 0

    async def dying_post(*args: Any, **kwargs: Any) -> int:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise SystemExit("killed during payout")
        return await real_post(*args, **kwargs)

    monkeypatch.setattr(ledger, "post", dying_post)
    with pytest.raises(SystemExit):
        await money.pay(maker, None, tid)
    monkeypatch.setattr(ledger, "post", real_post)
    async with maker() as db:
        states = [
            p.state
            for p in (await db.execute(select(Payout).order_by(Payout.place))).scalars().all()
        ]
        t = await db.get(Tournament, tid)
        assert t is not None and t.state == "paying"
    assert states == ["paid", "paid", "pending", "pending", "pending", "pending"]

    # The reconciler (and everyone else) finishes it, 20 at once.
    await asyncio.gather(*(money.repair(maker, None) for _ in range(20)))
    async with maker() as db:
        rows = list((await db.execute(select(Payout).order_by(Payout.place))).scalars().all())
        t = await db.get(Tournament, tid)
        assert t is not None and t.state == "finished"
    assert [r.state for r in rows] == ["paid"] * 6
    assert sum(r.amount for r in rows) == pool
    assert await _keys(maker, f"tournament:prize:{tid}:") == 6
    assert await balance(maker, money.escrow(tid).key) == 0
    # The ranking was the entrants reversed: the last registered won.
    winners = [e.user_id for e in reversed(entrants) if e.user_id is not None][:6]
    for place, u in enumerate(winners, start=1):
        assert await coins(maker, u) == before[u] + rows[place - 1].amount
    assert rows[0].amount == pool * 4_000 // 10_000
    assert await money.repair(maker, None) == []


async def test_a_bots_prize_goes_to_the_house(app: FastAPI) -> None:
    maker: Maker = app.state.sessionmaker
    tid = await _sitgo(app, entrants=4)
    users = await new_users(maker, 3)
    for u in users:
        assert await _register(app, tid, u) == "ok"
    async with maker() as db:
        t = await money.locked_tournament(db, tid)
        db.add(Entrant(tournament_id=tid, user_id=None, name="Bot Ana", bot=True, paid=0))
        await db.flush()
        entrants = await money.active_entrants(db, tid)
        t.state = "running"
        house_after_fee = 3 * BUY_IN // 10
        bot = [e for e in entrants if e.bot]
        await money.award(db, t, [[e] for e in bot + [e for e in entrants if not e.bot]])
        await db.commit()
    await money.pay(maker, None, tid)
    pool = 3 * BUY_IN - house_after_fee
    assert await balance(maker, money.house().key) == house_after_fee + pool * 7 // 10
    assert await balance(maker, money.escrow(tid).key) == 0
