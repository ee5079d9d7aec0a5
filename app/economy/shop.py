"""The shop, the inventory ("Mis cosas") and what is equipped."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.config import Settings
from app.core.db import utcnow
from app.core.errors import AppError
from app.economy import giftable, ledger
from app.economy.errors import duplicate_request, insufficient_funds
from app.economy.ledger import DuplicateTransfer, InsufficientFunds
from app.economy.models import EquippedItem, InventoryItem, ShopItem
from app.economy.notify import Outbox
from app.economy.sql import insert_for, table_of
from app.economy.wallets import ensure_wallet

SLOTS = ("avatar", "card_back", "felt")  # what can be equipped; emotes are just owned
PACKS = ("coins_pack", "credits_pack")


async def catalogue(db: AsyncSession) -> list[ShopItem]:
    stmt = select(ShopItem).where(ShopItem.active.is_(True)).order_by(ShopItem.sort)
    return list((await db.execute(stmt)).scalars())


async def item(db: AsyncSession, sku: str) -> ShopItem:
    found = await db.get(ShopItem, sku) if len(sku) <= 64 else None
    if found is None or not found.active:
        raise AppError("unknown_item", "There is no such item in the shop.", 404)
    return found


async def owns(db: AsyncSession, user_id: int, sku: str) -> bool:
    stmt = select(InventoryItem.sku).where(
        InventoryItem.user_id == user_id, InventoryItem.sku == sku
    )
    return (await db.execute(stmt)).first() is not None


async def pay(
    db: AsyncSession,
    settings: Settings,
    outbox: Outbox,
    user_id: int,
    currency: str,
    amount: int,
    to: ledger.Spec,
    key: str,
    kind: str,
    giftable_only: bool = False,
) -> None:
    """Move ``amount`` from the user's wallet to ``to``; clean errors, nothing moved.
    ``giftable_only``: the amount must also be within what the anti-farming policy lets
    the user give away (app/economy/giftable.py)."""
    await ensure_wallet(db, user_id, settings)
    w = ledger.wallet(user_id, currency)
    await ledger.ensure(db, [to])
    locked = await ledger.lock(db, [*ledger.wallet_keys(user_id), to.key])
    if giftable_only and amount <= locked[w.key].balance:
        if await ledger.key_used(db, key):  # a replay is answered as one, not re-judged
            raise duplicate_request()
        allowed = await giftable.allowance(db, locked[w.key])
        if amount > allowed:
            raise giftable.not_giftable(currency, allowed)
    try:
        await ledger.post(
            db, key=key, kind=kind, moves={w.key: -amount, to.key: amount}, locked=locked
        )
    except InsufficientFunds:
        raise insufficient_funds(currency) from None
    except DuplicateTransfer:
        raise duplicate_request() from None
    outbox.wallet_locked(locked, user_id)


async def buy(
    db: AsyncSession,
    settings: Settings,
    outbox: Outbox,
    user_id: int,
    sku: str,
    request_key: str,
) -> ShopItem:
    """One charge per item however many buys race: the inventory row (its primary key
    is the person and the item) is claimed first, in the same transaction as the charge.
    A concurrent buy waits on that key until this one commits, then finds it owned; a
    charge that fails rolls the claim back with it."""
    found = await item(db, sku)
    if found.kind in PACKS:
        raise AppError("gift_only", "Packs of coins or credits can only be gifted.", 409)
    if not await _claim_item(db, user_id, found, "bought"):
        raise AppError("already_owned", "You already own this item.", 409)
    await pay(
        db,
        settings,
        outbox,
        user_id,
        found.currency,
        found.price,
        ledger.house("shop", found.currency),
        f"buy:{user_id}:{request_key}",
        "purchase",
    )
    if found.kind in SLOTS:
        await _equip(db, user_id, found)
    return found


async def _claim_item(db: AsyncSession, user_id: int, found: ShopItem, source: str) -> bool:
    """Into "Mis cosas" unless already there: True when this call put it there."""
    stmt = (
        insert_for(db, table_of(InventoryItem))
        .values(user_id=user_id, sku=found.sku, source=source, acquired_at=utcnow())
        .on_conflict_do_nothing(index_elements=["user_id", "sku"])
        .returning(InventoryItem.sku)
    )
    return (await db.execute(stmt)).first() is not None


async def grant_item(db: AsyncSession, user_id: int, found: ShopItem, source: str) -> None:
    """Into "Mis cosas", never equipped: a gift does not replace what the player chose to
    wear; they equip it themselves (the notification offers "Equipar")."""
    await _claim_item(db, user_id, found, source)


async def _equip(db: AsyncSession, user_id: int, found: ShopItem) -> None:
    table = table_of(EquippedItem)
    stmt = insert_for(db, table).values(user_id=user_id, slot=found.kind, sku=found.sku)
    await db.execute(
        stmt.on_conflict_do_update(
            index_elements=["user_id", "slot"], set_={"sku": stmt.excluded.sku}
        )
    )


async def equip(db: AsyncSession, user_id: int, sku: str) -> None:
    found = await item(db, sku)
    if found.kind not in SLOTS:
        raise AppError("not_equippable", "This item cannot be equipped.", 409)
    if not await owns(db, user_id, sku):
        raise AppError("not_owned", "You do not own this item.", 409)
    await _equip(db, user_id, found)


async def things(db: AsyncSession, user_id: int) -> tuple[list[ShopItem], dict[str, str]]:
    stmt = (
        select(ShopItem)
        .join(InventoryItem, InventoryItem.sku == ShopItem.sku)
        .where(InventoryItem.user_id == user_id)
        .order_by(InventoryItem.acquired_at, ShopItem.sort)
    )
    owned = list((await db.execute(stmt)).scalars())
    return owned, await equipped(db, user_id)


async def equipped(db: AsyncSession, user_id: int) -> dict[str, str]:
    stmt = select(EquippedItem.slot, EquippedItem.sku).where(EquippedItem.user_id == user_id)
    return {r[0]: r[1] for r in (await db.execute(stmt)).all()}
