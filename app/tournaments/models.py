"""Tournament tables: the tournament, its entrants, rounds, matches and payouts.

Everything a tournament is lives here (and in the ledger): any process may run any
step of any tournament, so no step keeps state of its own (docs/tournaments.md).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, BigIntId, UTCDateTime, utcnow


class Tournament(Base):
    __tablename__ = "tournaments"
    __table_args__ = (Index("ix_tournaments_state_starts", "state", "starts_at"),)

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(10))  # sitgo, scheduled
    format: Mapped[str] = mapped_column(String(10))  # knockout, swiss
    players: Mapped[int] = mapped_column(Integer)  # 2 (one against one) or 4 (pairs)
    preset: Mapped[str] = mapped_column(String(16), default="burraco")  # the rules
    name: Mapped[str] = mapped_column(String(60))
    # registering -> running -> paying -> finished; registering -> cancelling -> cancelled
    state: Mapped[str] = mapped_column(String(12), default="registering")
    max_entrants: Mapped[int] = mapped_column(Integer)
    min_entrants: Mapped[int] = mapped_column(Integer)
    buy_in: Mapped[int] = mapped_column(BigInteger, default=0)  # coins per player
    fee_bps: Mapped[int] = mapped_column(Integer, default=0)  # the house's cut, 1/100 %
    guaranteed: Mapped[int] = mapped_column(BigInteger, default=0)  # a scheduled pool floor
    prize_table: Mapped[list[int]] = mapped_column(JSON)  # shares per place, in 1/100 %
    rounds: Mapped[int] = mapped_column(Integer)  # Swiss: R; knockout: log2 of the bracket
    hands: Mapped[int] = mapped_column(Integer)  # H hands per match
    round_seconds: Mapped[int] = mapped_column(Integer)
    duplicate: Mapped[bool] = mapped_column(Boolean, default=False)
    allow_bots: Mapped[bool] = mapped_column(Boolean, default=False)
    bot_fill_seconds: Mapped[int] = mapped_column(Integer, default=60)
    turbo: Mapped[bool] = mapped_column(Boolean, default=False)
    created_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    registration_opens_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    starts_at: Mapped[datetime | None] = mapped_column(UTCDateTime)  # scheduled only
    late_registration_seconds: Mapped[int] = mapped_column(Integer, default=0)
    full_at: Mapped[datetime | None] = mapped_column(UTCDateTime)  # a Sit & Go: bots after
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    current_round: Mapped[int] = mapped_column(Integer, default=0)
    pool: Mapped[int] = mapped_column(BigInteger, default=0)  # fixed when play starts
    seed: Mapped[str] = mapped_column(String(32))  # the duplicate deals' secret
    version: Mapped[int] = mapped_column(Integer, default=0)


class Entrant(Base):
    """One registration of a person (or a bot filling a place). Leaving before the start
    flips it to ``left`` with its buy-in refunded; a new registration is a new row."""

    __tablename__ = "tournament_entrants"
    __table_args__ = (
        Index(
            "uq_tournament_entrants_active",
            "tournament_id",
            "user_id",
            unique=True,
            postgresql_where=text("state <> 'left'"),
            sqlite_where=text("state <> 'left'"),
        ),
    )

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), nullable=True, index=True
    )
    name: Mapped[str] = mapped_column(String(40))
    bot: Mapped[bool] = mapped_column(Boolean, default=False)
    state: Mapped[str] = mapped_column(String(10), default="registered")  # registered, left, out
    paid: Mapped[int] = mapped_column(BigInteger, default=0)  # the buy-in escrowed
    rating: Mapped[float] = mapped_column(Float, default=0.0)
    seed: Mapped[int | None] = mapped_column(Integer)  # 1 = the strongest, set at the start
    team: Mapped[int | None] = mapped_column(Integer)  # pairs: two entrants share a team
    registered_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Match(Base):
    """A table of a round: side ``a`` against side ``b`` (None: a bye)."""

    __tablename__ = "tournament_matches"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    round_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    side_a: Mapped[int] = mapped_column(Integer)  # the team number (pairs) or entrant id
    side_b: Mapped[int | None] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(10), default="pending")  # pending, playing, done
    table_id: Mapped[str | None] = mapped_column(String(32))
    deadline: Mapped[datetime | None] = mapped_column(UTCDateTime)
    mp_a: Mapped[int] = mapped_column(Integer, default=0)
    mp_b: Mapped[int] = mapped_column(Integer, default=0)
    vp_a: Mapped[int] = mapped_column(Integer, default=0)
    vp_b: Mapped[int] = mapped_column(Integer, default=0)
    hands_played: Mapped[int] = mapped_column(Integer, default=0)
    winner: Mapped[int | None] = mapped_column(Integer)  # knockout: the side going through
    abandoned: Mapped[list[int]] = mapped_column(JSON, default=list)  # user ids who left
    deals: Mapped[list[list[int]]] = mapped_column(JSON, default=list)  # MP per hand, per side
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Payout(Base):
    """A place's prize, paid once: ``pending`` flips to ``paid`` in the transaction of
    its transfer (key ``tournament:prize:{id}:{place}:{entrant}``)."""

    __tablename__ = "tournament_payouts"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    place: Mapped[int] = mapped_column(Integer, primary_key=True)
    # A pair's place is paid to each of its two players (half each).
    entrant_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    amount: Mapped[int] = mapped_column(BigInteger)
    state: Mapped[str] = mapped_column(String(8), default="pending")  # pending, paid
    paid_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
