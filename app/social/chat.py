"""Lobby and table chat: stored for a limited time, rate-limited, filtered by blocks.

Messages are stored in Postgres (history for late joiners) and published on
``chat:lobby`` or ``chat:table:{table_id}`` after the commit; the WebSocket layer relays
them, skipping viewers for whom ``presence.may_see`` is false.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from redis.asyncio import Redis
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratelimit
from app.core.db import utcnow
from app.core.errors import AppError
from app.core.text import clean_text
from app.economy.notify import Outbox
from app.social import hidden
from app.social.friends import hidden_ids
from app.social.models import ChatMessage
from app.users.models import User

MAX_CHARS = 300
RETENTION = timedelta(hours=24)
RATE_LIMIT = 5  # messages per window, per player
RATE_WINDOW_SECONDS = 10
PURGE_EVERY = 100  # delete expired messages on every Nth message


def channel_name(table_id: str | None) -> str:
    return "lobby" if table_id is None else f"table:{table_id}"


def clean(text: str) -> str:
    """The shared cleaning (app/core/text.py: newlines become spaces, other control and
    format characters are refused), then this channel's own limits."""
    try:
        text = clean_text(text, multiline=True)
    except ValueError as exc:
        raise AppError("validation_error", f"text: {exc}", 422) from None
    if not text:
        raise AppError("empty_message", "Write something first.", 400)
    if len(text) > MAX_CHARS:
        raise AppError("message_too_long", f"Messages are at most {MAX_CHARS} characters.", 400)
    return text


def out(msg: ChatMessage, nickname: str) -> dict[str, Any]:
    return {
        "type": "chat",
        "channel": msg.channel,
        "id": msg.id,
        "user_id": msg.user_id,
        "nickname": nickname,
        "text": msg.body,
        "at": msg.created_at.isoformat(),
    }


async def post(
    db: AsyncSession, redis: Redis, outbox: Outbox, me: User, table_id: str | None, text: str
) -> dict[str, Any]:
    body = clean(text)
    verdict = await ratelimit.hit(redis, f"rl:chat:{me.id}", RATE_LIMIT, RATE_WINDOW_SECONDS)
    if not verdict.allowed:
        raise AppError(
            "rate_limited",
            f"Slow down: try again in {verdict.retry_after} seconds.",
            429,
            headers={"Retry-After": str(verdict.retry_after)},
        )
    msg = ChatMessage(channel=channel_name(table_id), user_id=me.id, body=body, created_at=utcnow())
    db.add(msg)
    await db.flush()
    if msg.id % PURGE_EVERY == 0:
        await purge(db)
    message = out(msg, me.nickname)
    await hidden.before_publish(db, redis, me.id)  # the live filter, even after a flush
    outbox.to_channel(f"chat:{msg.channel}", message)
    return message


async def history(
    db: AsyncSession, me: int, table_id: str | None, after_id: int | None, limit: int
) -> list[dict[str, Any]]:
    hidden = await hidden_ids(db, me)
    stmt = (
        select(ChatMessage, User.nickname)
        .join(User, User.id == ChatMessage.user_id)
        .where(
            ChatMessage.channel == channel_name(table_id),
            ChatMessage.created_at >= utcnow() - RETENTION,
        )
    )
    if hidden:
        stmt = stmt.where(ChatMessage.user_id.not_in(sorted(hidden)))
    if after_id is not None:
        stmt = stmt.where(ChatMessage.id > after_id)
    stmt = stmt.order_by(ChatMessage.id.desc()).limit(limit)
    rows = (await db.execute(stmt)).all()
    return [out(m, nick) for m, nick in reversed(rows)]


async def purge(db: AsyncSession) -> None:
    await db.execute(delete(ChatMessage).where(ChatMessage.created_at < utcnow() - RETENTION))
