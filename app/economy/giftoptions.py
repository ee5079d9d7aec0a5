"""What a player may give another right now, item by item, judged as ``gifts.send``
would judge it: the gift pickers (a seat at the table, a profile) list every item with
its price, and offer only those the server would accept (docs/economy.md, "Gifts")."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.config import Settings
from app.economy import giftable, gifts, shop
from app.economy.ledger import Locked
from app.economy.models import Account, InventoryItem, ShopItem
from app.economy.wallets import ensure_wallet
from app.users.models import User


@dataclass(frozen=True, slots=True)
class GiftOption:
    item: ShopItem
    # Why the server would refuse it now (its error code), or None: it may be given.
    refused: str | None


async def options(
    db: AsyncSession, settings: Settings, sender: User, to_user_id: int
) -> list[GiftOption]:
    """Every item of the shop for this recipient. A recipient that cannot be gifted at
    all (oneself, unknown, a block either way) raises the error ``send`` raises."""
    recipient = await gifts.gift_recipient(db, sender, to_user_id)
    await ensure_wallet(db, sender.id, settings)
    wallets = await _wallets(db, sender.id)
    owned = await _owned(db, recipient.id)
    allowed = {c: await giftable.allowance(db, w) for c, w in wallets.items()}
    found = []
    for item in await shop.catalogue(db):
        found.append(GiftOption(item, _refusal(item, wallets, allowed, owned)))
    return found


def _refusal(
    item: ShopItem, wallets: dict[str, Locked], allowed: dict[str, int], owned: set[str]
) -> str | None:
    # In the order send() checks them.
    if item.kind not in shop.PACKS and item.sku in owned:
        return "already_owned"
    balance = wallets[item.currency].balance if item.currency in wallets else 0
    pack = item.kind in shop.PACKS
    if pack and balance >= item.price > allowed.get(item.currency, 0):
        return "not_giftable"
    if item.price > balance:
        return "insufficient_funds"
    return None


async def _wallets(db: AsyncSession, user_id: int) -> dict[str, Locked]:
    """The sender's wallets as read now (not locked: the gift itself locks and checks
    again, so a list that went stale gets the same clean refusal)."""
    stmt = select(Account).where(Account.user_id == user_id, Account.kind == "wallet")
    return {
        a.currency: Locked(a.id, a.key, a.kind, a.currency, a.user_id, a.balance, a.version)
        for a in (await db.execute(stmt)).scalars()
    }


async def _owned(db: AsyncSession, user_id: int) -> set[str]:
    stmt = select(InventoryItem.sku).where(InventoryItem.user_id == user_id)
    return set((await db.execute(stmt)).scalars())
