"""Leaderboards by XP: overall or per modality (preset), all-time or this week.

All-time overall reads ``player_stats``; the others sum ``game_records`` (indexed by
preset and time). The week starts on Monday 00:00 UTC. Only accounts are ranked: a
guest is a throwaway name that anyone can take again, so it is left out.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.db import utcnow
from app.economy.levels import level_for
from app.economy.models import GameRecord, PlayerStats
from app.economy.schemas import LeaderRow
from app.users.models import User


def week_start(now: datetime) -> datetime:
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=day.weekday())


async def leaderboard(
    db: AsyncSession, period: str, modality: str | None, limit: int
) -> list[LeaderRow]:
    if period == "all" and modality is None:
        stmt = (
            select(User.id, User.nickname, PlayerStats.xp)
            .join(PlayerStats, PlayerStats.user_id == User.id)
            .where(PlayerStats.xp > 0, User.is_guest.is_(False))
            .order_by(PlayerStats.xp.desc(), User.id)
            .limit(limit)
        )
    else:
        xp = func.sum(GameRecord.xp).label("xp")
        stmt = (
            select(User.id, User.nickname, xp)
            .join(GameRecord, GameRecord.user_id == User.id)
            .where(User.is_guest.is_(False))
            .group_by(User.id, User.nickname)
            .having(func.sum(GameRecord.xp) > 0)
            .order_by(xp.desc(), User.id)
            .limit(limit)
        )
        if modality is not None:
            stmt = stmt.where(GameRecord.preset == modality)
        if period == "week":
            stmt = stmt.where(GameRecord.created_at >= week_start(utcnow()))
    rows = (await db.execute(stmt)).all()
    levels = await _levels(db, [r[0] for r in rows])
    return [
        LeaderRow(rank=i + 1, user_id=uid, nickname=nick, xp=int(total), level=levels.get(uid, 1))
        for i, (uid, nick, total) in enumerate(rows)
    ]


async def _levels(db: AsyncSession, user_ids: list[int]) -> dict[int, int]:
    if not user_ids:
        return {}
    stmt = select(PlayerStats.user_id, PlayerStats.xp).where(PlayerStats.user_id.in_(user_ids))
    return {u: level_for(int(x)) for u, x in (await db.execute(stmt)).all()}
