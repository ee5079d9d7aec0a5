"""Economy tables: wallets, the double-entry ledger, bets, progress, shop and gifts.

Money lives only in ``accounts.balance`` (a cache of the ledger, changed under a row
lock together with the ledger rows that explain it) and ``ledger_entries``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, BigIntId, UTCDateTime, utcnow


class Wallet(Base):
    """One per person (guests too), created lazily with the starting grant."""

    __tablename__ = "wallets"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_bonus_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Account(Base):
    """A ledger account in one currency: a wallet, a seat hold, an escrow or the house."""

    __tablename__ = "accounts"
    __table_args__ = (
        CheckConstraint("balance >= 0 OR kind = 'house'", name="balance_nonnegative"),
        CheckConstraint("currency IN ('coins', 'credits')", name="currency_known"),
    )

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(96), unique=True)
    kind: Mapped[str] = mapped_column(String(16))  # wallet, hold, escrow, house
    currency: Mapped[str] = mapped_column(String(8))
    # The owner of a wallet or a hold (who a refund goes back to); None for the rest.
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    balance: Mapped[int] = mapped_column(BigInteger, default=0)
    # Bumped by every balance change (under the row lock): orders the wallet pushes.
    version: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class Transfer(Base):
    """One movement: its entries sum to zero. The idempotency key makes it happen once."""

    __tablename__ = "ledger_transfers"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    idempotency_key: Mapped[str] = mapped_column(String(160), unique=True)
    kind: Mapped[str] = mapped_column(String(24))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Entry(Base):
    __tablename__ = "ledger_entries"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    transfer_id: Mapped[int] = mapped_column(
        ForeignKey("ledger_transfers.id", ondelete="RESTRICT"), index=True
    )
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="RESTRICT"), index=True
    )
    amount: Mapped[int] = mapped_column(BigInteger)


class GameBet(Base):
    """A started game's pot: who staked what, and whether it was paid out (once)."""

    __tablename__ = "game_bets"
    # The reconciler's scan: escrowed pots by age, page by page (app/economy/reconciler.py),
    # without reading every game ever settled.
    __table_args__ = (Index("ix_game_bets_state_created", "state", "created_at", "game_id"),)

    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(32), index=True)
    bet: Mapped[int] = mapped_column(BigInteger)
    stakes: Mapped[dict[str, int]] = mapped_column(JSON)  # str(user_id) -> coins
    state: Mapped[str] = mapped_column(String(12))  # escrowed, settled, void
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    settled_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class PlayerStats(Base):
    __tablename__ = "player_stats"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    xp: Mapped[int] = mapped_column(BigInteger, default=0, index=True)
    level: Mapped[int] = mapped_column(Integer, default=1)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)


class GameRecord(Base):
    """One person's result in one settled game: stats, leaderboards, recent games."""

    __tablename__ = "game_records"
    __table_args__ = (
        Index("ix_game_records_user_created", "user_id", "created_at"),
        Index("ix_game_records_preset_created", "preset", "created_at"),
    )

    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    table_id: Mapped[str] = mapped_column(String(32))
    preset: Mapped[str] = mapped_column(String(32))
    bet: Mapped[int] = mapped_column(BigInteger)
    team: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[str] = mapped_column(String(8))  # win, loss, abandon, void
    coins_delta: Mapped[int] = mapped_column(BigInteger)
    xp: Mapped[int] = mapped_column(Integer)
    with_bots: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ShopItem(Base):
    __tablename__ = "shop_items"
    __table_args__ = (
        CheckConstraint("price > 0", name="price_positive"),
        CheckConstraint("currency IN ('coins', 'credits')", name="currency_known"),
    )

    sku: Mapped[str] = mapped_column(String(64), primary_key=True)
    # avatar, card_back, felt, emote, coins_pack, credits_pack
    kind: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(64))
    price: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(8))
    amount: Mapped[int] = mapped_column(BigInteger, default=0)  # packs: what they give
    sort: Mapped[int] = mapped_column(Integer, default=0)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class InventoryItem(Base):
    """ "Mis cosas": what a person owns."""

    __tablename__ = "inventory"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    sku: Mapped[str] = mapped_column(ForeignKey("shop_items.sku"), primary_key=True)
    source: Mapped[str] = mapped_column(String(8))  # bought, gift
    acquired_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class EquippedItem(Base):
    __tablename__ = "equipped"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    slot: Mapped[str] = mapped_column(String(16), primary_key=True)  # avatar, card_back, felt
    sku: Mapped[str] = mapped_column(ForeignKey("shop_items.sku"))


class Gift(Base):
    """A gift waits in the recipient's notifications; its price waits in an escrow."""

    __tablename__ = "gifts"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    sender_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    recipient_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    sku: Mapped[str | None] = mapped_column(ForeignKey("shop_items.sku"))  # None: a pack
    currency: Mapped[str] = mapped_column(String(8))  # what the sender paid in
    amount: Mapped[int] = mapped_column(BigInteger)  # what the sender paid
    state: Mapped[str] = mapped_column(String(10))  # pending, accepted, declined
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class IntegrityFlag(Base):
    """A winner and a loser whose results look like chip dumping (app/economy/integrity.py):
    one row per pair and reason, its figures updated by each flagged game."""

    __tablename__ = "integrity_flags"

    winner_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    loser_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    reason: Mapped[str] = mapped_column(String(16), primary_key=True)  # address, pair
    games: Mapped[int] = mapped_column(Integer, default=0)  # flagged games of the pair
    coins: Mapped[int] = mapped_column(BigInteger, default=0)  # what the loser lost in them
    state: Mapped[str] = mapped_column(String(10), default="open")  # open, released
    first_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    released_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class WinningsHold(Base):
    """Winnings of a flagged game, moved to ``withheld:{user}`` instead of the wallet:
    neither spendable nor giftable until an operator releases them (once)."""

    __tablename__ = "winnings_holds"

    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    amount: Mapped[int] = mapped_column(BigInteger)
    reasons: Mapped[list[str]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(10), default="held")  # held, released
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    released_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
