"""Gifts to any player not blocked either way: an item or a pack of coins/credits,
paid by the sender.

The sender's payment waits in the gift's own escrow account until the recipient
answers from the notifications centre:

* accept: an item goes into "Mis cosas", not equipped (what the recipient wears stays
  until they equip the gift themselves); its price moves from the escrow to the shop.
  A pack's coins or credits move from the escrow to the recipient.
* decline: the escrow goes back to the sender in full (a refund: the sender chose the
  gift for this friend, so we return the money rather than an item they may not want),
  and the sender is told.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.config import Settings
from app.core.db import utcnow
from app.core.errors import AppError
from app.economy import ledger, shop
from app.economy.errors import MAX_AMOUNT, check_amount
from app.economy.models import Gift, ShopItem
from app.economy.notify import Outbox
from app.social import notifications
from app.social.models import Block
from app.users.models import User

MAX_CREDITS_GIFT = 10_000


@dataclass(frozen=True, slots=True)
class GiftOrder:
    to_user_id: int
    sku: str | None = None
    currency: str | None = None
    amount: int | None = None


async def send(
    db: AsyncSession,
    settings: Settings,
    outbox: Outbox,
    sender: User,
    order: GiftOrder,
    request_key: str,
) -> Gift:
    recipient = await gift_recipient(db, sender, order.to_user_id)
    sku, currency, price, amount = await _priced(db, recipient.id, order)
    gives_money = await _gives_money(db, sku)
    gift = Gift(
        sender_id=sender.id,
        recipient_id=recipient.id,
        sku=sku,
        currency=currency,
        amount=price,
        state="pending",
        created_at=utcnow(),
    )
    db.add(gift)
    await db.flush()
    kind = "gift" if gives_money else "gift_item"  # the kinds giftable.py counts
    await shop.pay(
        db,
        settings,
        outbox,
        sender.id,
        currency,
        price,
        ledger.gift_escrow(gift.id, currency),
        f"gift:{sender.id}:{request_key}",
        kind,
        giftable_only=gives_money,
    )
    await notifications.add(
        db,
        outbox,
        recipient.id,
        "gift",
        {
            "gift_id": gift.id,
            "from_user_id": sender.id,
            "from_nickname": sender.nickname,
            "sku": sku,
            "currency": currency,
            "amount": amount,
        },
    )
    return gift


async def gift_recipient(db: AsyncSession, sender: User, to_id: int) -> User:
    if to_id == sender.id:
        raise AppError("cannot_gift_self", "You cannot send a gift to yourself.", 400)
    # Any player may be gifted (seed 000: from a profile or a seat at the table), except
    # across a block either way. The recipient and the block in one round trip.
    stmt = (
        select(User, Block.blocker_id)
        .outerjoin(
            Block,
            or_(
                and_(Block.blocker_id == sender.id, Block.blocked_id == User.id),
                and_(Block.blocker_id == User.id, Block.blocked_id == sender.id),
            ),
        )
        .where(User.id == to_id)
    )
    row = (await db.execute(stmt)).first() if 0 < to_id < 2**62 else None
    if row is None:
        raise AppError("user_not_found", "No such player.", 404)
    if row[1] is not None:
        raise AppError("blocked", "You cannot send a gift to this player.", 403)
    recipient: User = row[0]
    return recipient


async def _priced(
    db: AsyncSession, recipient_id: int, order: GiftOrder
) -> tuple[str | None, str, int, int]:
    """(sku, currency, price, amount given)."""
    if order.sku is not None:
        found = await shop.item(db, order.sku)
        if found.kind not in shop.PACKS and await shop.owns(db, recipient_id, found.sku):
            raise AppError("already_owned", "That player already owns this item.", 409)
        return found.sku, found.currency, found.price, _gives(found)
    if order.currency not in ledger.CURRENCIES or order.amount is None:
        raise AppError("invalid_gift", "Choose an item, or a currency and an amount.", 400)
    limit = MAX_CREDITS_GIFT if order.currency == ledger.CREDITS else MAX_AMOUNT
    check_amount(order.amount, limit)
    return None, order.currency, order.amount, order.amount


async def _gives_money(db: AsyncSession, sku: str | None) -> bool:
    """An amount or a pack puts coins or credits in the recipient's wallet; an item not."""
    found = await db.get(ShopItem, sku) if sku is not None else None
    return found is None or found.kind in shop.PACKS


def _gives(found: ShopItem) -> int:
    return found.amount if found.kind in shop.PACKS else 1


async def _mine_pending(db: AsyncSession, user_id: int, gift_id: int) -> Gift:
    stmt = select(Gift).where(Gift.id == gift_id).with_for_update()
    gift = (await db.execute(stmt)).scalar_one_or_none() if 0 < gift_id < 2**62 else None
    if gift is None or gift.recipient_id != user_id:
        raise AppError("gift_not_found", "No such gift for you.", 404)
    if gift.state != "pending":
        raise AppError("gift_already_answered", "This gift was already answered.", 409)
    return gift


async def accept(db: AsyncSession, outbox: Outbox, me: User, gift_id: int) -> Gift:
    gift = await _mine_pending(db, me.id, gift_id)
    found = await db.get(ShopItem, gift.sku) if gift.sku else None
    escrow = ledger.gift_escrow(gift.id, gift.currency)
    if found is not None and found.kind not in shop.PACKS:
        to = ledger.house("shop", gift.currency)
        await shop.grant_item(db, me.id, found, "gift")
    else:
        to = ledger.wallet(me.id, gift.currency)
        outbox.wallet_changed(me.id)
    await _release(db, gift, escrow, to, "gift_accept")
    gift.state, gift.answered_at = "accepted", utcnow()
    await notifications.mark_gift_read(db, outbox, me.id, gift.id)
    await notifications.add(
        db,
        outbox,
        gift.sender_id,
        "gift_accepted",
        {
            "gift_id": gift.id,
            "by_user_id": me.id,
            "by_nickname": me.nickname,
            "sku": gift.sku,
        },
    )
    return gift


async def decline(db: AsyncSession, outbox: Outbox, me: User, gift_id: int) -> Gift:
    gift = await _mine_pending(db, me.id, gift_id)
    escrow = ledger.gift_escrow(gift.id, gift.currency)
    refund = "gift_decline" if await _gives_money(db, gift.sku) else "gift_item_decline"
    await _release(db, gift, escrow, ledger.wallet(gift.sender_id, gift.currency), refund)
    gift.state, gift.answered_at = "declined", utcnow()
    outbox.wallet_changed(gift.sender_id)
    await notifications.mark_gift_read(db, outbox, me.id, gift.id)
    await notifications.add(
        db,
        outbox,
        gift.sender_id,
        "gift_declined",
        {
            "gift_id": gift.id,
            "by_user_id": me.id,
            "by_nickname": me.nickname,
            "sku": gift.sku,
            "refunded": {"currency": gift.currency, "amount": gift.amount},
        },
    )
    return gift


async def _release(
    db: AsyncSession, gift: Gift, escrow: ledger.Spec, to: ledger.Spec, kind: str
) -> None:
    await ledger.ensure(db, [to])
    locked = await ledger.lock(db, [escrow.key, to.key])
    await ledger.post(
        db,
        key=f"{kind}:{gift.id}",
        kind=kind,
        moves={escrow.key: -gift.amount, to.key: gift.amount},
        locked=locked,
    )
