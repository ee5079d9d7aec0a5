"""Which "Crear partida" options a player may choose, and what a locked one needs.

Seed 000: the special tables (pairs, turbo, private) cost 1 credit and need level 2; a
challenge ("Retar") is open to every level (an ordinary table reserved for the friend).
The client shows a locked option as locked, with what it needs, instead of offering a
choice the server would then refuse.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.config import Settings
from app.economy import wallets
from app.economy.levels import level_for, xp_needed
from app.economy.models import PlayerStats
from app.rules.ruleset import PRESETS
from app.tables.lobby.lobby import match_target

SPECIAL = ("pairs", "turbo", "private")
SPECIAL_CREDITS = 1


async def create_options(db: AsyncSession, settings: Settings, user_id: int) -> dict[str, Any]:
    stats = await db.get(PlayerStats, user_id)
    xp = stats.xp if stats else 0
    level = level_for(xp)
    need_level = settings.special_table_level
    if settings.economy_enabled:
        credits = (await wallets.balances(db, user_id, settings)).credits
    else:
        credits, need_level = SPECIAL_CREDITS, 1  # free play: nothing is locked
    missing = ([] if level >= need_level else ["level"]) + (
        [] if credits >= SPECIAL_CREDITS else ["credits"]
    )
    special = {
        "locked": bool(missing),
        "missing": missing,
        "needs": {"level": need_level, "credits": SPECIAL_CREDITS},
    }
    return {
        "level": level,
        "xp": xp,
        "next_level_xp": xp_needed(level + 1),
        "credits": credits,
        "options": {name: dict(special) for name in SPECIAL},
        "challenge": {
            "locked": False,
            "missing": [],
            "needs": {"level": 1, "credits": 0},
            "turbo": dict(special),
        },
        "match_targets": {name: match_target(name) for name in PRESETS},
        # Each player's time bank per hand when a table sets none (docs/rules-reference.md).
        "time_bank": {
            "normal": settings.time_bank_seconds,
            "turbo": settings.turbo_time_bank_seconds,
        },
    }
