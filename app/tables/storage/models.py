"""Finished games, written to the database once, when the game ends."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Integer, String, false
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, UTCDateTime


class Game(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(32), index=True)
    preset: Mapped[str] = mapped_column(String(32))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    # [{"user_id": int | None, "name": str, "bot": bool}] by seat
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    bet: Mapped[int] = mapped_column(Integer)
    # per hand: {"hand_no", "deal", "salt", "commitment"}
    hands: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    events: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    totals: Mapped[list[int]] = mapped_column(JSON)
    winner_team: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))  # "finished" or "void"
    # A private table's game: replays and profiles show it only to its players.
    private: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ended_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
