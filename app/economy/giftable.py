"""The anti-farming policy: what a person may give away.

Starting grants and daily bonuses are for playing, not for giving: a swarm of throwaway
guests must not be able to pour their grants into one account. So coins and credits
given to a friend (an amount, or a pack that turns into coins or credits) must come from
what the sender **won at tables** or **was given by a friend**, less what they gave
already. It is read from the ledger, per wallet account, by transfer kind:

* tables: ``hold``, ``release``, ``stake``, ``settle``, ``winnings_release`` (their sum
  over a wallet is the net won or lost at tables, a held bet counting as spent until it
  comes back, and winnings held for review counting once an operator releases them);
* gifts: ``gift`` (given, or paid into a pending gift), ``gift_decline`` (a declined
  gift's refund), ``gift_accept`` (a gift received into the wallet).

Grants (``grant``, ``bonus``) and shop purchases are not counted. The allowance is
``min(balance, max(0, that sum))``. Gifts of items (avatars, felts...) put no currency in
the recipient's hands; they are paid from any coins and use the kinds ``gift_item`` and
``gift_item_decline``, which do not count. The sender's wallet row is locked while the
allowance is read, so racing gifts cannot spend it twice.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import AppError
from app.economy.ledger import Locked
from app.economy.models import Entry, Transfer

COUNTED_KINDS = (
    "hold",
    "release",
    "stake",
    "settle",
    "winnings_release",
    "gift",
    "gift_decline",
    "gift_accept",
)


async def allowance(db: AsyncSession, wallet: Locked) -> int:
    """How much of this (locked) wallet may be given away now."""
    stmt = (
        select(func.coalesce(func.sum(Entry.amount), 0))
        .join(Transfer, Transfer.id == Entry.transfer_id)
        .where(Entry.account_id == wallet.id, Transfer.kind.in_(COUNTED_KINDS))
    )
    earned = int((await db.execute(stmt)).scalar_one())
    return min(wallet.balance, max(0, earned))


def not_giftable(currency: str, allowed: int) -> AppError:
    return AppError(
        "not_giftable",
        f"Only {currency} won at tables or received as gifts can be given, not starting "
        f"{currency} or daily bonuses: you can give up to {allowed} now.",
        403,
    )
