"""Held winnings: the ``withheld:{user}`` account and an operator's release.

Winnings of a flagged game (integrity.py) are paid into ``withheld:{user}`` rather than
the wallet, so they can be neither staked nor given. Releasing moves each held game's
amount to the wallet exactly once: the hold rows are locked and flip from ``held`` to
``released`` in the same transaction as the transfer, whose idempotency key
``winnings:release:{game}:{user}`` is the backstop. The transfer kind
``winnings_release`` counts as won at tables (giftable.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.db import utcnow
from app.economy import ledger
from app.economy.ledger import COINS, Spec
from app.economy.models import Account, IntegrityFlag, WinningsHold
from app.economy.notify import Outbox

RELEASE_KIND = "winnings_release"


def withheld(user_id: int) -> Spec:
    return Spec(f"withheld:{user_id}", "withheld", COINS, user_id)


@dataclass(frozen=True, slots=True)
class Released:
    user_id: int
    games: int
    coins: int


async def held_coins(db: AsyncSession, user_id: int) -> int:
    stmt = select(Account.balance).where(Account.key == withheld(user_id).key)
    return int((await db.execute(stmt)).scalar_one_or_none() or 0)


async def release(db: AsyncSession, outbox: Outbox, user_id: int) -> Released:
    """Every held winnings of ``user_id`` to the wallet, and the flags where they are the
    winner marked released (the detection window restarts from now). Repeating it, or
    racing it, releases nothing twice."""
    now = utcnow()
    stmt = (
        select(WinningsHold)
        .where(WinningsHold.user_id == user_id, WinningsHold.state == "held")
        .order_by(WinningsHold.game_id)
        .with_for_update()
    )
    holds = list((await db.execute(stmt)).scalars().all())
    w, h = ledger.wallet(user_id, COINS), withheld(user_id)
    locked = await ledger.lock(db, [*ledger.wallet_keys(user_id), h.key]) if holds else {}
    coins = 0
    for hold in holds:
        key = f"winnings:release:{hold.game_id}:{user_id}"
        if not await ledger.key_used(db, key):
            await ledger.post(
                db,
                key=key,
                kind=RELEASE_KIND,
                moves={h.key: -hold.amount, w.key: hold.amount},
                locked=locked,
            )
            coins += hold.amount
        hold.state, hold.released_at = "released", now
    await db.execute(
        update(IntegrityFlag)
        .where(IntegrityFlag.winner_id == user_id, IntegrityFlag.state == "open")
        .values(state="released", released_at=now)
    )
    await db.flush()
    if coins:
        outbox.wallet_locked(locked, user_id)
    return Released(user_id, len(holds), coins)
