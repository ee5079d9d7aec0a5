"""The integer double-entry ledger.

Every movement is a ``Transfer`` whose entries sum to zero, posted under a unique
idempotency key. ``accounts.balance`` caches the sum of an account's entries; it only
changes here, under ``SELECT ... FOR UPDATE`` row locks taken in id order (so two
transfers never deadlock), and a CHECK keeps every non-house balance >= 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sqlalchemy import bindparam, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.db import utcnow
from app.economy.models import Account, Entry, Transfer
from app.economy.sql import dialect, insert_for, insert_ignore, table_of

COINS = "coins"
CREDITS = "credits"
CURRENCIES = (COINS, CREDITS)


@dataclass(frozen=True, slots=True)
class Spec:
    """What an account is, for creating it on first use."""

    key: str
    kind: str
    currency: str
    user_id: int | None = None


@dataclass(slots=True)
class Locked:
    id: int
    key: str
    kind: str
    currency: str
    user_id: int | None
    balance: int
    version: int = 0


# PostgreSQL: claim the key, write the entries and the cached balances in one round trip.
# A used key inserts no transfer row, and then nothing else is written either.
_PG_POST = text("""
WITH t AS (
    INSERT INTO ledger_transfers (idempotency_key, kind, created_at)
    VALUES (:key, :kind, :now)
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING id
), m AS (
    SELECT * FROM unnest(CAST(:ids AS BIGINT[]), CAST(:amounts AS BIGINT[]))
        AS m(account_id, amount)
), e AS (
    INSERT INTO ledger_entries (transfer_id, account_id, amount)
    SELECT t.id, m.account_id, m.amount FROM t, m
), u AS (
    UPDATE accounts SET balance = accounts.balance + m.amount, version = accounts.version + 1
    FROM m, t WHERE accounts.id = m.account_id
)
SELECT id FROM t
""")


class InsufficientFunds(Exception):
    def __init__(self, account: Locked, needed: int) -> None:
        super().__init__(f"{account.key} holds {account.balance}, needs {needed}")
        self.account = account
        self.needed = needed


class DuplicateTransfer(Exception):
    """The idempotency key was used before: the movement already happened."""


def wallet(user_id: int, currency: str) -> Spec:
    return Spec(f"wallet:{user_id}:{currency}", "wallet", currency, user_id)


def wallet_keys(user_id: int) -> list[str]:
    """Both wallet rows: locking them together lets a push carry exact balances."""
    return [wallet(user_id, c).key for c in CURRENCIES]


def seat_hold(table_id: str, user_id: int) -> Spec:
    return Spec(f"hold:{table_id}:{user_id}", "hold", COINS, user_id)


def special_hold(table_id: str, user_id: int) -> Spec:
    return Spec(f"special:{table_id}", "hold", CREDITS, user_id)


def game_escrow(game_id: str) -> Spec:
    return Spec(f"game:{game_id}", "escrow", COINS)


def gift_escrow(gift_id: int, currency: str) -> Spec:
    return Spec(f"gift:{gift_id}", "escrow", currency)


def house(purpose: str, currency: str) -> Spec:
    """grants (the issuer), shop, special (table fees), forfeits (stakes nobody won)."""
    return Spec(f"house:{purpose}:{currency}", "house", currency)


async def ensure(db: AsyncSession, specs: Iterable[Spec]) -> None:
    rows = [
        {"key": s.key, "kind": s.kind, "currency": s.currency, "user_id": s.user_id, "balance": 0}
        for s in specs
    ]
    await insert_ignore(db, table_of(Account), rows, ["key"])


async def lock(db: AsyncSession, keys: Iterable[str]) -> dict[str, Locked]:
    """Lock the accounts that exist among ``keys`` (in id order) and return them."""
    stmt = (
        select(
            Account.id,
            Account.key,
            Account.kind,
            Account.currency,
            Account.user_id,
            Account.balance,
            Account.version,
        )
        .where(Account.key.in_(sorted(set(keys))))
        .order_by(Account.id)
        .with_for_update()
    )
    rows = (await db.execute(stmt)).all()
    return {
        r.key: Locked(r.id, r.key, r.kind, r.currency, r.user_id, r.balance, r.version)
        for r in rows
    }


async def key_used(db: AsyncSession, key: str) -> bool:
    stmt = select(Transfer.id).where(Transfer.idempotency_key == key)
    return (await db.execute(stmt)).first() is not None


async def post(
    db: AsyncSession,
    *,
    key: str,
    kind: str,
    moves: Mapping[str, int],
    locked: Mapping[str, Locked],
) -> int:
    """Record one transfer over already locked accounts and update their balances.

    Raises ``DuplicateTransfer`` when ``key`` was used, ``InsufficientFunds`` when a
    non-house account would go below zero; nothing is written in either case.
    """
    moves = {k: v for k, v in moves.items() if v != 0}
    if sum(moves.values()) != 0:
        raise ValueError(f"transfer {key} does not balance: {moves}")
    accounts = [locked[k] for k in moves]
    if len({a.currency for a in accounts}) > 1:
        raise ValueError(f"transfer {key} mixes currencies")
    for account in accounts:
        if account.kind != "house" and account.balance + moves[account.key] < 0:
            raise InsufficientFunds(account, -moves[account.key])
    if dialect(db) == "postgresql":
        transfer_id = (
            await db.execute(
                _PG_POST,
                {
                    "key": key,
                    "kind": kind,
                    "now": utcnow(),
                    "ids": [a.id for a in accounts],
                    "amounts": [moves[a.key] for a in accounts],
                },
            )
        ).scalar_one_or_none()
        if transfer_id is None:
            raise DuplicateTransfer(key)
    else:
        transfer_id = await _post_generic(db, key, kind, moves, accounts)
    for account in accounts:
        account.balance += moves[account.key]
        account.version += 1
    return int(transfer_id)


async def _post_generic(
    db: AsyncSession, key: str, kind: str, moves: Mapping[str, int], accounts: list[Locked]
) -> int:
    # One round trip claims the key: a used key returns no row (and nothing was written).
    claim = (
        insert_for(db, table_of(Transfer))
        .values(idempotency_key=key, kind=kind, created_at=utcnow())
        .on_conflict_do_nothing(index_elements=["idempotency_key"])
        .returning(table_of(Transfer).c.id)
    )
    transfer_id = (await db.execute(claim)).scalar_one_or_none()
    if transfer_id is None:
        raise DuplicateTransfer(key)
    if moves:
        await db.execute(
            table_of(Entry).insert(),
            [
                {"transfer_id": transfer_id, "account_id": a.id, "amount": moves[a.key]}
                for a in accounts
            ],
        )
        await db.execute(
            update(table_of(Account))
            .where(table_of(Account).c.id == bindparam("aid"))
            .values(
                balance=table_of(Account).c.balance + bindparam("delta"),
                version=table_of(Account).c.version + 1,
            ),
            [{"aid": a.id, "delta": moves[a.key]} for a in accounts],
        )
    return int(transfer_id)
