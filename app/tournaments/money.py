"""A tournament's money, through the ledger, each movement exactly once.

* Register: the buy-in moves wallet -> ``tournament:{id}`` (an escrow), key
  ``tournament:buyin:{entrant}``, in the transaction that adds the entrant. The
  tournament row is locked first, so registrations racing for the last place are served
  one at a time (capacity and "already registered" are checked under that lock; a
  unique index on the active registration is the backstop).
* Unregister (before the start) and cancel: each buy-in back, key
  ``tournament:refund:{entrant}``, the entrant flipped to ``left`` in the same
  transaction.
* Start: the fee moves to ``house:tournaments:coins`` (key ``tournament:fee:{id}``) and a
  guaranteed pool's shortfall comes from the same account (``tournament:topup:{id}``).
* Payout: one ``tournament_payouts`` row per paid place, written with the final ranking;
  each is paid in its own transaction, under its row lock, with the key
  ``tournament:prize:{id}:{place}``. A process that dies between two places leaves the
  rest ``pending``; whoever runs ``pay`` next (the runner's tick on any process, or the
  economy reconciler) pays them, and nothing twice. A bot's prize goes to the house.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.db import utcnow
from app.core.errors import AppError
from app.economy import ledger
from app.economy.errors import insufficient_funds
from app.economy.ledger import COINS, DuplicateTransfer, InsufficientFunds, Spec
from app.economy.notify import Notifier, Outbox
from app.economy.wallets import ensure_wallet
from app.tournaments import prizes
from app.tournaments.models import Entrant, Payout, Tournament
from app.users.models import User

BUYIN, REFUND, FEE, TOPUP, PRIZE = (
    "tournament_buyin",
    "tournament_refund",
    "tournament_fee",
    "tournament_topup",
    "tournament_prize",
)


def escrow(tournament_id: int) -> Spec:
    return Spec(f"tournament:{tournament_id}", "escrow", COINS)


def house() -> Spec:
    return ledger.house("tournaments", COINS)


def not_found() -> AppError:
    return AppError("tournament_not_found", "No such tournament.", 404)


async def locked_tournament(db: AsyncSession, tournament_id: int) -> Tournament:
    """The tournament under its row lock (every change to it and its entrants takes it)."""
    stmt = select(Tournament).where(Tournament.id == tournament_id).with_for_update()
    found = (await db.execute(stmt)).scalar_one_or_none() if 0 < tournament_id < 2**62 else None
    if found is None:
        raise not_found()
    return found


async def active_entrants(db: AsyncSession, tournament_id: int) -> list[Entrant]:
    stmt = (
        select(Entrant)
        .where(Entrant.tournament_id == tournament_id, Entrant.state != "left")
        .order_by(Entrant.id)
    )
    return list((await db.execute(stmt)).scalars().all())


def places(t: Tournament) -> int:
    """How many people (or bots) a full tournament seats: a side is a pair at 4 players."""
    return t.max_entrants * (2 if t.players == 4 else 1)


def registration_open(t: Tournament) -> bool:
    now = utcnow()
    if t.registration_opens_at is not None and now < t.registration_opens_at:
        return False
    if t.state == "registering":
        return True
    late = t.late_registration_seconds
    return (
        t.state == "running"
        and t.format == "swiss"
        and late > 0
        and t.started_at is not None
        and (now - t.started_at).total_seconds() < late
    )


async def register(
    db: AsyncSession, settings: Settings, outbox: Outbox, tournament_id: int, user: User
) -> Entrant:
    t = await locked_tournament(db, tournament_id)
    if not registration_open(t):
        raise AppError("registration_closed", "Registration for this tournament is closed.", 409)
    entrants = await active_entrants(db, t.id)
    if any(e.user_id == user.id for e in entrants):
        raise AppError("already_registered", "You are already registered.", 409)
    if len(entrants) >= places(t):
        raise AppError("tournament_full", "This tournament is full.", 409)
    entrant = Entrant(
        tournament_id=t.id,
        user_id=user.id,
        name=user.nickname[:40],
        bot=False,
        state="registered",
        paid=t.buy_in,
        registered_at=utcnow(),
    )
    db.add(entrant)
    await db.flush()
    if t.buy_in > 0:
        await ensure_wallet(db, user.id, settings)
        w, e = ledger.wallet(user.id, COINS), escrow(t.id)
        await ledger.ensure(db, [e])
        locked = await ledger.lock(db, [*ledger.wallet_keys(user.id), e.key])
        try:
            await ledger.post(
                db,
                key=f"tournament:buyin:{entrant.id}",
                kind=BUYIN,
                moves={w.key: -t.buy_in, e.key: t.buy_in},
                locked=locked,
            )
        except InsufficientFunds:
            raise insufficient_funds(COINS) from None
        outbox.wallet_locked(locked, user.id)
    if len(entrants) + 1 >= places(t) and t.full_at is None:
        t.full_at = utcnow()
    t.version += 1
    await db.flush()
    return entrant


async def refund_entrant(db: AsyncSession, outbox: Outbox, t: Tournament, entrant: Entrant) -> int:
    """The entrant's buy-in back, once; the entrant flipped to ``left``."""
    amount = entrant.paid
    entrant.state = "left"
    if amount <= 0 or entrant.user_id is None:
        return 0
    key = f"tournament:refund:{entrant.id}"
    if await ledger.key_used(db, key):
        return 0
    w, e = ledger.wallet(entrant.user_id, COINS), escrow(t.id)
    await ledger.ensure(db, [w, e])
    locked = await ledger.lock(db, [*ledger.wallet_keys(entrant.user_id), e.key])
    await ledger.post(
        db, key=key, kind=REFUND, moves={e.key: -amount, w.key: amount}, locked=locked
    )
    outbox.wallet_locked(locked, entrant.user_id)
    return amount


async def unregister(db: AsyncSession, outbox: Outbox, tournament_id: int, user_id: int) -> int:
    """Leave before the start, with the buy-in back. Returns the coins refunded."""
    t = await locked_tournament(db, tournament_id)
    if t.state != "registering":
        raise AppError(
            "tournament_started", "The tournament has started: it can no longer be left.", 409
        )
    mine = [e for e in await active_entrants(db, t.id) if e.user_id == user_id]
    if not mine:
        raise AppError("not_registered", "You are not registered in this tournament.", 409)
    refunded = await refund_entrant(db, outbox, t, mine[0])
    t.full_at = None
    t.version += 1
    await db.flush()
    return refunded


async def cancel(db: AsyncSession, outbox: Outbox, tournament_id: int) -> int:
    """Cancel a tournament that has not started: every entrant refunded exactly once
    (one transaction; repeating it refunds nothing). Returns the coins refunded."""
    t = await locked_tournament(db, tournament_id)
    if t.state == "cancelled":
        return 0
    if t.state not in ("registering", "cancelling"):
        raise AppError("tournament_started", "A tournament under way cannot be cancelled.", 409)
    total = 0
    for entrant in await active_entrants(db, t.id):
        total += await refund_entrant(db, outbox, t, entrant)
    t.state, t.finished_at = "cancelled", utcnow()
    t.version += 1
    await db.flush()
    return total


async def take_fee(db: AsyncSession, t: Tournament, entrants: Sequence[Entrant]) -> None:
    """At the start (``t`` locked): fix the pool, take the fee, top up a guarantee."""
    paid = sum(e.paid for e in entrants)
    pool, fee = prizes.pool_of(paid, t.fee_bps, t.guaranteed)
    t.pool = pool
    e, h = escrow(t.id), house()
    if fee == 0 and pool == paid:
        return
    await ledger.ensure(db, [e, h])
    locked = await ledger.lock(db, [e.key, h.key])
    for key, kind, amount in (
        (f"tournament:fee:{t.id}", FEE, fee),
        (f"tournament:topup:{t.id}", TOPUP, pool - (paid - fee)),
    ):
        if amount and not await ledger.key_used(db, key):
            await ledger.post(
                db, key=key, kind=kind, moves={e.key: -amount, h.key: amount}, locked=locked
            )


async def award(
    db: AsyncSession, t: Tournament, ranking: Sequence[Sequence[Entrant]]
) -> list[Payout]:
    """The final ranking's payout rows (``t`` locked; state ``running`` -> ``paying``):
    ``ranking`` is each place's entrants (two for a pair, who share its prize; the odd
    coin to the first). The fee is taken here, once. Nothing is paid yet; writing them
    again finds them there."""
    existing = list(
        (await db.execute(select(Payout).where(Payout.tournament_id == t.id))).scalars().all()
    )
    if existing or t.state != "running":
        return existing
    await take_fee(db, t, [e for place in ranking for e in place])
    shares = t.prize_table or prizes.table_for(len(ranking))
    amounts = prizes.split(t.pool, shares, len(ranking)) if t.pool > 0 else []
    rows = []
    for place, (members, amount) in enumerate(zip(ranking, amounts, strict=False), start=1):
        parts = [amount // len(members)] * len(members)
        parts[0] += amount - sum(parts)
        for entrant, part in zip(members, parts, strict=True):
            rows.append(
                Payout(
                    tournament_id=t.id,
                    place=place,
                    user_id=entrant.user_id,
                    entrant_id=entrant.id,
                    amount=part,
                    state="pending",
                )
            )
    db.add_all(rows)
    t.state, t.version = "paying", t.version + 1
    await db.flush()
    return rows


async def pay_place(
    db: AsyncSession, outbox: Outbox, tournament_id: int, place: int, entrant_id: int
) -> int:
    """One prize, once (its row locked; the key is the backstop)."""
    stmt = (
        select(Payout)
        .where(
            Payout.tournament_id == tournament_id,
            Payout.place == place,
            Payout.entrant_id == entrant_id,
        )
        .with_for_update()
    )
    row = (await db.execute(stmt)).scalar_one_or_none()
    if row is None or row.state == "paid":
        return 0
    e = escrow(tournament_id)
    to = ledger.wallet(row.user_id, COINS) if row.user_id is not None else house()
    await ledger.ensure(db, [e, to])
    keys = [e.key, to.key] if row.user_id is None else [e.key, *ledger.wallet_keys(row.user_id)]
    locked = await ledger.lock(db, keys)
    # A used key (paid by a transaction that could not flip the row): flip it now.
    with contextlib.suppress(DuplicateTransfer):
        if row.amount:
            await ledger.post(
                db,
                key=f"tournament:prize:{tournament_id}:{place}:{entrant_id}",
                kind=PRIZE,
                moves={e.key: -row.amount, to.key: row.amount},
                locked=locked,
            )
    row.state, row.paid_at = "paid", utcnow()
    if row.user_id is not None:
        outbox.wallet_locked(locked, row.user_id)
    await db.flush()
    return row.amount


async def pay(
    maker: async_sessionmaker[AsyncSession], notifier: Notifier | None, tournament_id: int
) -> int:
    """Every pending place of a tournament in ``paying``, each in its own transaction,
    then the tournament ``finished``. Safe to run from any number of processes at once
    and again after a crash. Returns the coins paid by this call."""
    async with maker() as db:
        stmt = select(Payout.place, Payout.entrant_id).where(
            Payout.tournament_id == tournament_id, Payout.state == "pending"
        )
        pending = [
            (int(p), int(e))
            for p, e in (await db.execute(stmt.order_by(Payout.place, Payout.entrant_id))).all()
        ]
    total = 0
    for place, entrant_id in pending:
        outbox = Outbox()
        async with maker() as db:
            total += await pay_place(db, outbox, tournament_id, place, entrant_id)
            await db.commit()
            if notifier is not None:
                await outbox.flush(db, notifier)
    async with maker() as db:
        t = await locked_tournament(db, tournament_id)
        left = await db.scalar(
            select(func.count())
            .select_from(Payout)
            .where(Payout.tournament_id == tournament_id, Payout.state == "pending")
        )
        if t.state == "paying" and not left:
            t.state, t.finished_at, t.version = "finished", utcnow(), t.version + 1
        await db.commit()
    return total


async def unfinished_payouts(maker: async_sessionmaker[AsyncSession]) -> list[int]:
    """Tournaments still paying (for the reconciler)."""
    async with maker() as db:
        stmt = select(Tournament.id).where(Tournament.state.in_(("paying", "cancelling")))
        return [int(i) for i in (await db.execute(stmt.order_by(Tournament.id))).scalars()]


async def repair(maker: async_sessionmaker[AsyncSession], notifier: Notifier | None) -> list[int]:
    """The reconciler's part: finish every tournament left half-paid (or half-cancelled)
    by a process that died. Returns the tournaments it looked at."""
    ids = await unfinished_payouts(maker)
    for tournament_id in ids:
        async with maker() as db:
            state = await db.scalar(select(Tournament.state).where(Tournament.id == tournament_id))
        if state == "paying":
            await pay(maker, notifier, tournament_id)
        elif state == "cancelling":
            outbox = Outbox()
            async with maker() as db:
                await cancel(db, outbox, tournament_id)
                await db.commit()
                if notifier is not None:
                    await outbox.flush(db, notifier)
    return ids
