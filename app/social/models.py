"""Social tables: friend requests, friendships, blocks, notifications, chat."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, ForeignKey, Index, String, case, text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, BigIntId, UTCDateTime, utcnow


class FriendRequest(Base):
    __tablename__ = "friend_requests"
    __table_args__ = (CheckConstraint("sender_id <> recipient_id", name="not_self"),)

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    sender_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    recipient_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    state: Mapped[str] = mapped_column(String(10))  # pending, accepted, declined, cancelled
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


# At most one pending request between two players, whichever way it goes (migration
# 0012): the same request sent many times at once, or both asking each other at the
# same moment, stores one.
Index(
    "uq_friend_requests_pending_pair",
    case(
        (FriendRequest.sender_id < FriendRequest.recipient_id, FriendRequest.sender_id),
        else_=FriendRequest.recipient_id,
    ),
    case(
        (FriendRequest.sender_id < FriendRequest.recipient_id, FriendRequest.recipient_id),
        else_=FriendRequest.sender_id,
    ),
    unique=True,
    postgresql_where=text("state = 'pending'"),
    sqlite_where=text("state = 'pending'"),
)


class Friendship(Base):
    """Stored both ways (a row per direction) so "my friends" is one indexed lookup."""

    __tablename__ = "friendships"
    __table_args__ = (CheckConstraint("user_id <> friend_id", name="not_self"),)

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    friend_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Block(Base):
    __tablename__ = "blocks"
    __table_args__ = (CheckConstraint("blocker_id <> blocked_id", name="not_self"),)

    blocker_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    blocked_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Notification(Base):
    __tablename__ = "notifications"
    __table_args__ = (Index("ix_notifications_user_read", "user_id", "read_at"),)

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    # gift, gift_accepted, gift_declined, friend_request, friend_accepted, challenge, level_up
    kind: Mapped[str] = mapped_column(String(24))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    read_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class ChatMessage(Base):
    __tablename__ = "chat_messages"
    __table_args__ = (Index("ix_chat_messages_channel_created", "channel", "created_at"),)

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    channel: Mapped[str] = mapped_column(String(48))  # "lobby" or "table:{table_id}"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    body: Mapped[str] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)


class UserPrefs(Base):
    """A player's choices that the server needs: the language its own strings are
    written in (table names, notification texts). A missing row means Spanish."""

    __tablename__ = "user_prefs"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    language: Mapped[str] = mapped_column(String(8))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
