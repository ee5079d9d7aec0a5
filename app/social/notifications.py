"""The notifications centre: gifts, friend requests, challenges, level-ups.

Other packages (the live tables for challenges) call ``add`` inside their transaction
and ``Outbox.flush`` after their commit: the notification and the live unread count
reach the player's socket only once it is stored.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.db import utcnow
from app.core.errors import AppError
from app.economy.notify import Outbox
from app.social import i18n, prefs
from app.social.models import Notification

KINDS = {
    "gift",
    "gift_accepted",
    "gift_declined",
    "friend_request",
    "friend_accepted",
    "challenge",
    "level_up",
    "game_voided",
}


async def add(
    db: AsyncSession, outbox: Outbox, user_id: int, kind: str, payload: dict[str, Any]
) -> Notification:
    if kind not in KINDS:
        raise ValueError(f"unknown notification kind {kind!r}")
    note = Notification(user_id=user_id, kind=kind, payload=payload, created_at=utcnow())
    db.add(note)
    await db.flush()
    outbox.notified(user_id, out(note, await prefs.language_of(db, user_id)))
    return note


def out(note: Notification, lang: str = i18n.DEFAULT) -> dict[str, Any]:
    """``text``: the line to show, in the reader's language (``kind`` and ``payload``
    stay for clients that render their own)."""
    return {
        "id": note.id,
        "kind": note.kind,
        "payload": note.payload,
        "text": i18n.notification_text(note.kind, note.payload, lang),
        "created_at": note.created_at.isoformat(),
        "read": note.read_at is not None,
    }


async def listing(
    db: AsyncSession, user_id: int, limit: int, before_id: int | None
) -> list[Notification]:
    stmt = select(Notification).where(Notification.user_id == user_id)
    if before_id is not None:
        stmt = stmt.where(Notification.id < before_id)
    stmt = stmt.order_by(Notification.id.desc()).limit(limit)
    return list((await db.execute(stmt)).scalars())


async def unread_count(db: AsyncSession, user_id: int) -> int:
    stmt = select(func.count()).where(
        Notification.user_id == user_id, Notification.read_at.is_(None)
    )
    return int((await db.execute(stmt)).scalar_one())


async def mark_read(db: AsyncSession, outbox: Outbox, user_id: int, note_id: int) -> None:
    note = await db.get(Notification, note_id)
    if note is None or note.user_id != user_id:
        raise AppError("notification_not_found", "No such notification.", 404)
    if note.read_at is None:
        note.read_at = utcnow()
        await db.flush()
    outbox.unread.add(user_id)


async def mark_all_read(db: AsyncSession, outbox: Outbox, user_id: int) -> None:
    await db.execute(
        update(Notification)
        .where(Notification.user_id == user_id, Notification.read_at.is_(None))
        .values(read_at=utcnow())
    )
    outbox.unread.add(user_id)


async def mark_gift_read(db: AsyncSession, outbox: Outbox, user_id: int, gift_id: int) -> None:
    """Answering a gift also reads its notification."""
    await _mark_read(db, outbox, user_id, "gift", "gift_id", gift_id)


async def mark_challenge_read(
    db: AsyncSession, outbox: Outbox, user_id: int, table_id: str
) -> None:
    """Answering a challenge (from the lobby, a toast or the centre) reads its notification."""
    await _mark_read(db, outbox, user_id, "challenge", "table_id", table_id)


async def mark_friend_request_read(
    db: AsyncSession, outbox: Outbox, user_id: int, field: str, value: int
) -> None:
    """Answering a friend request (from the friends page, a search, the centre, or by
    asking back) reads its notification; so does a block, for the blocked player's
    requests (``field`` is ``request_id`` or ``from_user_id``)."""
    await _mark_read(db, outbox, user_id, "friend_request", field, value)


async def _mark_read(
    db: AsyncSession, outbox: Outbox, user_id: int, kind: str, field: str, value: object
) -> None:
    stmt = select(Notification).where(
        Notification.user_id == user_id,
        Notification.kind == kind,
        Notification.read_at.is_(None),
    )
    for note in (await db.execute(stmt)).scalars():
        if note.payload.get(field) == value:
            note.read_at = utcnow()
    outbox.unread.add(user_id)
