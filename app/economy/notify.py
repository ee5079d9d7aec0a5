"""Pushes to players, sent only after the transaction that caused them has committed.

The WebSocket layer relays whatever is published on ``user:{user_id}`` to that
player's sockets. Services collect what to push in an ``Outbox``; the request (or hook)
boundary commits, then calls ``flush``, which reads the committed balances and unread
counts so a push never shows a value that was rolled back.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
from redis.asyncio import Redis
from redis.exceptions import RedisError
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.economy.models import Account
from app.social.models import Notification

if TYPE_CHECKING:
    from app.economy.ledger import Locked

log = logging.getLogger("app.economy.notify")


def user_channel(user_id: int) -> str:
    return f"user:{user_id}"


class Notifier:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    async def publish(self, user_id: int, message: dict[str, Any]) -> None:
        await self.publish_channel(user_channel(user_id), message)

    async def publish_channel(self, channel: str, message: dict[str, Any]) -> None:
        # Best effort: the money is already committed; a lost push is fixed by the next
        # one or by the client reloading its wallet.
        try:
            await self.redis.publish(channel, orjson.dumps(message).decode())
        except RedisError:
            log.warning("could not publish on %s", channel, exc_info=True)


@dataclass
class Outbox:
    wallets: set[int] = field(default_factory=set)
    # Balances known exactly (coins, credits, version): both wallet rows were locked
    # until the commit.
    known: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    unread: set[int] = field(default_factory=set)
    # Unread counts known exactly (counted in the committed statement that added one).
    unread_known: dict[int, int] = field(default_factory=dict)
    messages: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def wallet_changed(self, *user_ids: int) -> None:
        self.wallets.update(user_ids)

    def wallet_locked(self, locked: Mapping[str, Locked], *user_ids: int) -> None:
        """After a post over ``locked``: push these balances without reading them again
        when both of a user's wallet rows are locked (else read them after the commit)."""
        for user_id in user_ids:
            coins = locked.get(f"wallet:{user_id}:coins")
            credits = locked.get(f"wallet:{user_id}:credits")
            if coins is None or credits is None:
                self.wallets.add(user_id)
            else:
                self.known[user_id] = (
                    coins.balance,
                    credits.balance,
                    coins.version + credits.version,
                )

    def notified(self, user_id: int, message: dict[str, Any]) -> None:
        self.messages.append((user_channel(user_id), {"type": "notification", **message}))
        self.unread.add(user_id)

    def to_channel(self, channel: str, message: dict[str, Any]) -> None:
        self.messages.append((channel, message))

    def needs_reads(self) -> bool:
        """Whether ``flush`` must read balances or unread counts from the database."""
        return bool(self.wallets or self.unread - self.unread_known.keys())

    async def flush(self, db: AsyncSession | None, notifier: Notifier) -> None:
        """Call after commit. ``db`` may be None when ``needs_reads()`` is False."""
        if db is not None and self.needs_reads() and not db.in_transaction():
            # Plain reads of committed values: no BEGIN/ROLLBACK round trips around them.
            await db.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        for channel, message in self.messages:
            await notifier.publish_channel(channel, message)
        for user_id, (coins, credits, v) in sorted(self.known.items()):
            if user_id not in self.wallets:
                await notifier.publish(user_id, wallet_message(coins, credits, v))
        if self.wallets:
            assert db is not None
            for user_id, coins, credits, v in await _balances(db, self.wallets):
                await notifier.publish(user_id, wallet_message(coins, credits, v))
        if self.unread:
            counts = dict(self.unread_known)
            if self.unread - counts.keys():
                assert db is not None
                counts.update(await unread_counts(db, self.unread - counts.keys()))
            for user_id in sorted(self.unread):
                await notifier.publish(
                    user_id, {"type": "notifications_unread", "count": counts.get(user_id, 0)}
                )
        self.wallets.clear()
        self.known.clear()
        self.unread.clear()
        self.unread_known.clear()
        self.messages.clear()


def wallet_message(coins: int, credits: int, v: int) -> dict[str, Any]:
    """A wallet push. ``v`` (the sum of the two accounts' versions, read in one snapshot
    or under both row locks) only grows: a client keeps the push with the highest."""
    return {"type": "wallet", "coins": coins, "credits": credits, "v": v}


async def _balances(db: AsyncSession, user_ids: set[int]) -> list[tuple[int, int, int, int]]:
    """(user, coins, credits, version) of each wallet, in one statement (one snapshot)."""
    stmt = select(Account.user_id, Account.currency, Account.balance, Account.version).where(
        Account.user_id.in_(sorted(user_ids)), Account.kind == "wallet"
    )
    found: dict[int, dict[str, int]] = {}
    versions: dict[int, int] = {}
    for user_id, currency, balance, version in (await db.execute(stmt)).all():
        if user_id is not None:
            found.setdefault(user_id, {})[currency] = balance
            versions[user_id] = versions.get(user_id, 0) + version
    return [
        (u, b.get("coins", 0), b.get("credits", 0), versions[u]) for u, b in sorted(found.items())
    ]


async def unread_counts(db: AsyncSession, user_ids: set[int]) -> dict[int, int]:
    stmt = (
        select(Notification.user_id, func.count())
        .where(Notification.user_id.in_(sorted(user_ids)), Notification.read_at.is_(None))
        .group_by(Notification.user_id)
    )
    return {u: int(n) for u, n in (await db.execute(stmt)).all()}
