"""The reader's language: the stored choice, else the browser's Accept-Language, else
Spanish (see app/social/i18n.py for what the server renders with it)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import AppError
from app.economy.sql import insert_for, table_of
from app.social import i18n
from app.social.models import UserPrefs


async def stored_language(db: AsyncSession, user_id: int) -> str | None:
    stmt = select(UserPrefs.language).where(UserPrefs.user_id == user_id)
    return (await db.execute(stmt)).scalar_one_or_none()


async def language_of(db: AsyncSession, user_id: int, accept: str | None = None) -> str:
    stored = await stored_language(db, user_id)
    return stored or i18n.from_accept_language(accept) or i18n.DEFAULT


async def set_language(db: AsyncSession, user_id: int, language: str) -> str:
    if language not in i18n.LANGUAGES:
        raise AppError("unknown_language", f"Choose one of {', '.join(i18n.LANGUAGES)}.", 422)
    table = table_of(UserPrefs)
    stmt = insert_for(db, table).values(user_id=user_id, language=language)
    # One statement, so twenty equal requests at once leave one row, not an error.
    await db.execute(
        stmt.on_conflict_do_update(
            index_elements=["user_id"],
            set_={"language": stmt.excluded.language, "updated_at": stmt.excluded.updated_at},
        )
    )
    return language
