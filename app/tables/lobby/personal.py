"""What the table endpoints add per person: the items they wear at a table, and the
server-made table names in the reader's language."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.economy import shop
from app.social import i18n


async def equipped(db: AsyncSession, user_id: int) -> dict[str, str]:
    """slot -> sku: what the player's seat shows to everyone (avatar, card back, felt)."""
    return await shop.equipped(db, user_id)


def localized(data: dict[str, Any], lang: str) -> dict[str, Any]:
    """A table's public meta or summary with its server-made name in ``lang``."""
    key = data.get("name_key")
    if key:
        data["name"] = i18n.render(key, lang, data.get("name_args") or {})[:40]
    return data
