"""Stake caps: how much a guest or a new account may bet at one table.

A ring of throwaway accounts can only pass on what its members lose, and each member
loses at most its bet per game: capping the bet of guests and of accounts that are both
young (``new_account_days``) and low (``new_account_level``) bounds every game of such a
ring. Established players are not capped (docs/decisions/0016-chip-dumping.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.config import Settings
from app.core.db import utcnow
from app.core.errors import AppError
from app.economy.models import PlayerStats
from app.users.models import User


@dataclass(frozen=True, slots=True)
class Person:
    """What the chip-dumping checks know of an account."""

    id: int
    is_guest: bool
    created_at: datetime
    addr: str | None  # keyed hash of the signup address
    level: int

    def is_new(self, settings: Settings, now: datetime) -> bool:
        young = now - self.created_at < timedelta(days=settings.new_account_days)
        return self.is_guest or (young and self.level < settings.new_account_level)

    def max_bet(self, settings: Settings, now: datetime) -> int | None:
        """The largest bet allowed now; None: no cap."""
        if self.is_guest:
            return settings.guest_max_bet
        if self.is_new(settings, now):
            return settings.new_account_max_bet
        return None


async def people(db: AsyncSession, ids: set[int]) -> dict[int, Person]:
    if not ids:
        return {}
    stmt = (
        select(User.id, User.is_guest, User.created_at, User.signup_addr, PlayerStats.level)
        .outerjoin(PlayerStats, PlayerStats.user_id == User.id)
        .where(User.id.in_(sorted(ids)))
    )
    return {
        r[0]: Person(r[0], bool(r[1]), r[2], r[3], int(r[4] or 1))
        for r in (await db.execute(stmt)).all()
    }


# ``people`` as one statement on a bare asyncpg connection, in no transaction
# (fastsettle.py's connection, before its settlement statement).
PEOPLE_SQL = """
SELECT u.id, u.is_guest, u.created_at, u.signup_addr, COALESCE(s.level, 1) AS level
FROM users u LEFT JOIN player_stats s ON s.user_id = u.id
WHERE u.id = ANY($1::bigint[])
"""


async def people_raw(conn: Any, ids: set[int]) -> dict[int, Person]:
    if not ids:
        return {}
    rows = await conn.fetch(PEOPLE_SQL, sorted(ids))
    return {
        r["id"]: Person(r["id"], bool(r["is_guest"]), r["created_at"], r["signup_addr"], r["level"])
        for r in rows
    }


async def max_bet(db: AsyncSession, settings: Settings, user_id: int) -> int | None:
    person = (await people(db, {user_id})).get(user_id)
    return None if person is None else person.max_bet(settings, utcnow())


def stake_too_high(cap: int, guest: bool) -> AppError:
    who = "Guests" if guest else "New accounts"
    return AppError(
        "stake_too_high",
        f"{who} can bet at most {cap} coins per game for now; choose a table with a smaller bet.",
        403,
    )


async def check_stake(db: AsyncSession, settings: Settings, user_id: int, bet: int) -> None:
    """Refuse a seat whose bet is above this person's cap (nothing has moved yet)."""
    if bet <= 0:
        return
    person = (await people(db, {user_id})).get(user_id)
    if person is None:
        return
    cap = person.max_bet(settings, utcnow())
    if cap is not None and bet > cap:
        raise stake_too_high(cap, person.is_guest)
