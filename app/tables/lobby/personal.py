"""What the table endpoints add per person: the items they wear at a table, their
rating there, and the server-made table names in the reader's language."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.economy import shop
from app.ratings.service import SeatRating, seat_ratings
from app.social import i18n


async def equipped(db: AsyncSession, user_id: int) -> dict[str, str]:
    """slot -> sku: what the player's seat shows to everyone (avatar, card back, felt)."""
    return await shop.equipped(db, user_id)


def rating_lookup(
    db: AsyncSession, user_id: int
) -> Callable[[str, dict[str, Any]], Awaitable[SeatRating]]:
    """The player's rating at a table of a preset and rules, read when they sit down: it
    rides on the seat, shown next to the name in the lobby and at the table."""

    async def lookup(preset: str, rules: dict[str, Any]) -> SeatRating:
        return (await seat_ratings(db, [user_id], preset, rules))[user_id]

    return lookup


def localized(data: dict[str, Any], lang: str) -> dict[str, Any]:
    """A table's public meta or summary with its server-made name in ``lang``."""
    key = data.get("name_key")
    if key:
        data["name"] = i18n.render(key, lang, data.get("name_args") or {})[:40]
    return data
