"""The ratings tables: one rating per (player, family, format) and one event per game."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, BigIntId, UTCDateTime, utcnow


class Rating(Base):
    """A Weng-Lin (openskill Plackett-Luce) rating: ``mu`` the estimated skill, ``sigma``
    its uncertainty; ``ordinal`` = mu - 3 sigma, kept for the leaderboard's index."""

    __tablename__ = "ratings"

    user_id: Mapped[int] = mapped_column(
        BigIntId, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    family: Mapped[str] = mapped_column(String(16), primary_key=True)
    format: Mapped[str] = mapped_column(String(8), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (Index("ix_ratings_board", "family", "format", "ordinal"),)


class RatingEvent(Base):
    """What one finished game did to ratings, written once (the game id is the key):
    ``outcome`` is "rated" or why not ("bots", "guests", "void", ...); ``weight`` the
    anti-boosting factor applied; ``changes`` user id -> [mu, sigma, mu', sigma']."""

    __tablename__ = "rating_events"

    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    family: Mapped[str | None] = mapped_column(String(16))
    format: Mapped[str | None] = mapped_column(String(8))
    # The people at the table, sorted ids joined by ",": games between the same set of
    # accounts are counted on it (anti-boosting).
    players_key: Mapped[str] = mapped_column(String(200))
    outcome: Mapped[str] = mapped_column(String(16))
    weight: Mapped[float] = mapped_column(Float)
    changes: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (Index("ix_rating_events_players", "players_key", "created_at"),)
