"""A player's own result of a finished game, for the end sheet: coins won or lost, XP
gained, and the way to the next level. Only the caller's own row is ever read: another
player's result is theirs to see (their profile shows it to whom they choose)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.economy.levels import MAX_LEVEL, level_for, xp_needed
from app.economy.models import GameRecord, PlayerStats


async def my_result(db: AsyncSession, game_id: str, user_id: int) -> dict[str, Any]:
    """``settled`` False until the game's settlement has committed (the end sheet asks
    again a moment later), or when the caller did not play that game."""
    record = await db.get(GameRecord, (game_id, user_id))
    stats = await db.get(PlayerStats, user_id)
    xp = stats.xp if stats else 0
    level = level_for(xp)
    out: dict[str, Any] = {
        "game_id": game_id,
        "settled": record is not None,
        "outcome": None,
        "coins_delta": 0,
        "xp_gained": 0,
        "bet": 0,
        "with_bots": False,
        "level": level,
        "xp": xp,
        "level_xp": xp_needed(level),
        "next_level_xp": xp_needed(level + 1) if level < MAX_LEVEL else None,
    }
    if record is not None:
        out.update(
            outcome=record.outcome,
            coins_delta=record.coins_delta,
            xp_gained=record.xp,
            bet=record.bet,
            with_bots=record.with_bots,
        )
    return out
