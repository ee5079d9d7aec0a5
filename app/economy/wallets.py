"""Wallets: created on first use with the starting grant; the daily bonus."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.config import Settings
from app.core.db import utcnow
from app.core.errors import AppError
from app.economy import ledger
from app.economy.ledger import COINS, CREDITS
from app.economy.models import Account, Wallet
from app.economy.notify import Outbox
from app.economy.sql import insert_for, table_of
from app.tables.storage.meta import MIN_BET

BONUS_PERIOD = timedelta(hours=24)


@dataclass(frozen=True, slots=True)
class Balances:
    coins: int
    credits: int
    v: int = 0  # the wallet's version: see notify.wallet_message


async def ensure_wallet(db: AsyncSession, user_id: int, settings: Settings) -> bool:
    """Create the wallet with the starting grant if it does not exist. True if created.

    The INSERT ... ON CONFLICT DO NOTHING makes concurrent first uses safe: the loser
    waits for the winner's commit and then finds the wallet there.
    """
    stmt = (
        insert_for(db, table_of(Wallet))
        .values(user_id=user_id, created_at=utcnow())
        .on_conflict_do_nothing(index_elements=["user_id"])
        .returning(table_of(Wallet).c.user_id)
    )
    if (await db.execute(stmt)).first() is None:
        return False
    grants = {COINS: settings.starting_coins, CREDITS: settings.starting_credits}
    specs = [ledger.wallet(user_id, c) for c in grants]
    specs += [ledger.house("grants", c) for c in grants]
    await ledger.ensure(db, specs)
    locked = await ledger.lock(db, [s.key for s in specs])
    for cur, amount in grants.items():
        moves = {ledger.wallet(user_id, cur).key: amount, ledger.house("grants", cur).key: -amount}
        await ledger.post(
            db, key=f"grant:start:{user_id}:{cur}", kind="grant", moves=moves, locked=locked
        )
    return True


async def balances(db: AsyncSession, user_id: int, settings: Settings) -> Balances:
    await ensure_wallet(db, user_id, settings)
    stmt = select(Account.currency, Account.balance, Account.version).where(
        Account.user_id == user_id, Account.kind == "wallet"
    )
    rows = (await db.execute(stmt)).all()
    found = {r[0]: r[1] for r in rows}
    return Balances(
        coins=found.get(COINS, 0), credits=found.get(CREDITS, 0), v=sum(r[2] for r in rows)
    )


def daily_amount(settings: Settings, coins: int) -> int:
    """The daily bonus, or more: whatever brings the wallet up to the smallest stake, so
    that a player who lost everything can sit at any table the next day
    (docs/economy.md, "Nobody locked out")."""
    return max(settings.daily_bonus_coins, MIN_BET - coins)


async def claim_daily_bonus(
    db: AsyncSession, user_id: int, settings: Settings, outbox: Outbox, now: datetime | None = None
) -> Balances:
    now = now or utcnow()
    await ensure_wallet(db, user_id, settings)
    stmt = select(Wallet).where(Wallet.user_id == user_id).with_for_update()
    wallet = (await db.execute(stmt)).scalar_one()
    if wallet.last_bonus_at is not None and now - wallet.last_bonus_at < BONUS_PERIOD:
        wait = BONUS_PERIOD - (now - wallet.last_bonus_at)
        seconds = max(1, int(wait.total_seconds()))
        raise AppError(
            "bonus_already_claimed",
            f"You already claimed today's bonus. Come back in {seconds // 3600} h "
            f"{seconds % 3600 // 60} min.",
            409,
            headers={"Retry-After": str(seconds)},
        )
    keys = [ledger.wallet(user_id, COINS), ledger.house("grants", COINS)]
    await ledger.ensure(db, keys)
    locked = await ledger.lock(db, [k.key for k in keys])
    amount = daily_amount(settings, locked[keys[0].key].balance)
    if amount > 0:
        await ledger.post(
            db,
            key=f"grant:daily:{user_id}:{now.isoformat()}",
            kind="bonus",
            moves={keys[0].key: amount, keys[1].key: -amount},
            locked=locked,
        )
    wallet.last_bonus_at = now
    await db.flush()
    outbox.wallet_changed(user_id)
    return await balances(db, user_id, settings)
