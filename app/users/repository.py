"""Queries on users and sessions. No commits here: the request boundary commits."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.ids import UserId
from app.users.models import Session, User


async def get_user(db: AsyncSession, user_id: UserId) -> User | None:
    return await db.get(User, user_id)


async def get_user_by_username(db: AsyncSession, username: str) -> User | None:
    if "\x00" in username:  # no name holds one, and PostgreSQL refuses it in text (a 500)
        return None
    stmt = select(User).where(User.username_lower == username.lower())
    return (await db.execute(stmt)).scalar_one_or_none()


async def username_taken(db: AsyncSession, username: str) -> bool:
    stmt = select(User.id).where(User.username_lower == username.lower())
    return (await db.execute(stmt)).first() is not None


async def nickname_taken(db: AsyncSession, nickname: str) -> bool:
    return (await db.execute(select(User.id).where(User.nickname == nickname))).first() is not None


async def add_session(
    db: AsyncSession, user_id: UserId, token_hash: str, now: datetime, expires_at: datetime
) -> Session:
    session = Session(user_id=user_id, token_hash=token_hash, created_at=now, expires_at=expires_at)
    db.add(session)
    await db.flush()
    return session


async def session_for_token_hash(
    db: AsyncSession,
    token_hash: str,
    now: datetime,
) -> tuple[User, Session] | None:
    """The user and session of a live session: not revoked and not expired at ``now``."""
    stmt = (
        select(User, Session)
        .join(Session, Session.user_id == User.id)
        .where(
            Session.token_hash == token_hash,
            Session.revoked_at.is_(None),
            Session.expires_at > now,
        )
    )
    row = (await db.execute(stmt)).first()
    return (row[0], row[1]) if row else None


async def revoke_session(db: AsyncSession, token_hash: str, now: datetime) -> int | None:
    """Revoke one live session; its user id, or None if there was none to revoke."""
    stmt = (
        update(Session)
        .where(Session.token_hash == token_hash, Session.revoked_at.is_(None))
        .values(revoked_at=now)
        .returning(Session.user_id)
    )
    return (await db.execute(stmt)).scalar_one_or_none()


async def revoke_other_sessions(
    db: AsyncSession, user_id: UserId, keep_hash: str, now: datetime
) -> list[str]:
    """Revoke every live session of the user but ``keep_hash``; their token hashes."""
    stmt = (
        update(Session)
        .where(
            Session.user_id == user_id,
            Session.token_hash != keep_hash,
            Session.revoked_at.is_(None),
        )
        .values(revoked_at=now)
        .returning(Session.token_hash)
    )
    return list((await db.execute(stmt)).scalars().all())
