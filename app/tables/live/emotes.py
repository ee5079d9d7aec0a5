"""Emotes at a table: a player sitting at or watching a table sends one of the emotes
they own (or of the free basic set); everyone at the table, spectators too, sees it at
the sender's seat for a few seconds.

An emote travels on the table's chat channel, so the relay's block filter applies: a
player blocked either way neither sees nor is seen, also right after Redis lost the
filter (app/social/hidden.py restores the sender's entries before the publish).
Rate-limited per player across all their sockets (``emote_limit`` per
``emote_window_seconds``), with the stable code ``emote_rate_limited``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core import ratelimit
from app.core.errors import AppError
from app.economy.models import InventoryItem, ShopItem
from app.social import hidden
from app.social.chat import channel_name
from app.tables.live.protocol import EmoteMsg

if TYPE_CHECKING:
    from app.tables.live.fanout import TableWatch
    from app.tables.play.service import TableService

# Free for everyone (drawn in frontend/public/cosmetics/{id}.svg like the shop's).
BASIC = ("basic_hola", "basic_bien", "basic_uy", "basic_gracias")


@dataclass(frozen=True)
class Sender:
    """Who sends an emote, and what the socket that sent it has at hand."""

    svc: TableService
    sessionmaker: async_sessionmaker[AsyncSession]
    user_id: int
    name: str
    watches: dict[str, TableWatch]


async def owns_emote(sender: Sender, sku: str) -> bool:
    """The shop's emotes are owned in "Mis cosas" (Postgres): asked only after the rate
    limit let the emote through, so a flood never reaches the database."""
    stmt = (
        select(InventoryItem.sku)
        .join(ShopItem, ShopItem.sku == InventoryItem.sku)
        .where(
            InventoryItem.user_id == sender.user_id,
            InventoryItem.sku == sku,
            ShopItem.kind == "emote",
        )
    )
    async with sender.sessionmaker() as db:
        return (await db.execute(stmt)).first() is not None


async def send(sender: Sender, msg: EmoteMsg) -> None:
    watch = sender.watches.get(msg.table)
    if watch is None:
        raise AppError("not_watching", "Sit at or watch the table first.", 409)
    settings = sender.svc.settings
    verdict = await ratelimit.hit(
        sender.svc.redis,
        f"rl:emote:{sender.user_id}",
        settings.emote_limit,
        settings.emote_window_seconds,
    )
    if not verdict.allowed:
        raise AppError("emote_rate_limited", f"Too many emotes: wait {verdict.retry_after} s.", 429)
    if msg.emote not in BASIC and not await owns_emote(sender, msg.emote):
        raise AppError("emote_not_owned", "You do not own that emote.", 403)
    frame: dict[str, Any] = {
        "type": "emote",
        "table": msg.table,
        "emote": msg.emote,
        "user_id": sender.user_id,
        "name": sender.name,
        "seat": watch.seat,
        "at": time.time(),
    }
    # The relay's block filter may have been lost with Redis: put it back for this
    # sender first, as a chat message does, so no emote passes a block meanwhile.
    async with sender.sessionmaker() as db:
        await hidden.before_publish(db, sender.svc.redis, sender.user_id)
    await sender.svc.redis.publish(f"chat:{channel_name(msg.table)}", orjson.dumps(frame))
