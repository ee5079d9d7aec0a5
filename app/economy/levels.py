"""Levels and XP: pure rules (thresholds, XP per game) plus storing progress.

Thresholds: reaching level n needs 50 * n * (n - 1) XP in all (level 2 at 100, level 3
at 300, level 4 at 600, level 5 at 1,000, ...). XP per finished game against people grows
with the bet and the winner gets more (see ``xp_for``): level 2, which opens the special
tables, comes after three games against people whatever their results (3 x 34 >= 100).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.economy.models import PlayerStats
from app.economy.notify import Outbox
from app.economy.sql import insert_for, table_of
from app.social.notifications import add as add_notification
from app.tables.storage.meta import MIN_BET

MAX_LEVEL = 100
SPECIAL_TABLE_LEVEL = 2


def xp_needed(level: int) -> int:
    """Total XP at which ``level`` is reached."""
    return 50 * level * (level - 1)


def level_for(xp: int) -> int:
    level = 1
    while level < MAX_LEVEL and xp >= xp_needed(level + 1):
        level += 1
    return level


WIN_XP = 50
LOSS_XP = 34  # three losses against people (102 XP) reach level 2


def xp_for(bet: int, won: bool) -> int:
    """XP for one finished game against people: a base plus a share of the bet above the
    minimum, capped so a huge bet does not buy levels. At the minimum bet (6,000): 50 for
    a win, 34 for a loss. A game without stakes (bet 0, open to players with no coins)
    gives none: levels and the ranking are not farmed for free."""
    if bet == 0:
        return 0
    above = max(bet - MIN_BET, 0)
    if won:
        return WIN_XP + min(above // 1_000, 100)
    return LOSS_XP + min(above // 6_000, 20)


async def level_of(db: AsyncSession, user_id: int) -> int:
    stmt = select(PlayerStats.level).where(PlayerStats.user_id == user_id)
    return int((await db.execute(stmt)).scalar_one_or_none() or 1)


async def add_games(
    db: AsyncSession, games: list[tuple[int, int, bool]]
) -> dict[int, tuple[int, int]]:
    """Count one game (user id, XP, won) per person in one statement; returns each
    person's (old level, new level)."""
    if not games:
        return {}
    table = table_of(PlayerStats)
    rows = [
        {"user_id": u, "xp": xp, "level": 1, "games": 1, "wins": int(won)} for u, xp, won in games
    ]
    stmt = insert_for(db, table)
    stmt = stmt.on_conflict_do_update(
        index_elements=["user_id"],
        set_={
            "xp": table.c.xp + stmt.excluded.xp,
            "games": table.c.games + 1,
            "wins": table.c.wins + stmt.excluded.wins,
        },
    ).returning(table.c.user_id, table.c.xp, table.c.level)
    return await store_levels(db, (await db.execute(stmt, rows)).all())


async def store_levels(
    db: AsyncSession, stats: Iterable[Sequence[int]]
) -> dict[int, tuple[int, int]]:
    """From (user id, total XP, stored level) after counting games: store the levels that
    changed; returns each person's (old level, new level)."""
    table = table_of(PlayerStats)
    levels: dict[int, tuple[int, int]] = {}
    for user_id, total, old in stats:
        new = level_for(int(total))
        levels[int(user_id)] = (int(old), new)
        if new != old:
            await db.execute(table.update().where(table.c.user_id == user_id).values(level=new))
    return levels


async def announce(db: AsyncSession, outbox: Outbox, levels: dict[int, tuple[int, int]]) -> None:
    """A ``level_up`` notification for everyone who went up."""
    for user_id, (old, new) in sorted(levels.items()):
        if new > old:
            await add_notification(db, outbox, user_id, "level_up", {"level": new, "previous": old})
