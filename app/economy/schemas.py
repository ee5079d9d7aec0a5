"""Request and response bodies of the economy endpoints."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Currency = Literal["coins", "credits"]
# accepted by the schema; the service answers anything past its limit. The largest
# integer JSON carries exactly (a JavaScript number, a float): 2**62 arrived as 2**62+96.
BIG = 2**53 - 1
SKU_PATTERN = r"^[a-z0-9_]{1,64}$"


class WalletOut(BaseModel):
    coins: int
    credits: int
    v: int = 0  # grows with every change: a wallet push with a lower v is older
    next_bonus_at: datetime | None = None
    # The largest bet this player may sit at now (guests and new accounts); None: no cap.
    max_bet: int | None = None
    # Winnings held for review (app/economy/holds.py): neither spendable nor giftable.
    held: int = 0


class ItemOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    sku: str
    kind: str
    name: str
    price: int
    currency: Currency
    amount: int


class GiftOptionOut(ItemOut):
    """An item of the shop as a gift to one player: ``refused`` is the error code the
    gift would get now (already_owned, insufficient_funds, not_giftable), or null."""

    refused: str | None


class BuyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sku: str = Field(min_length=1, max_length=64, pattern=SKU_PATTERN)


class EquipIn(BuyIn):
    pass


class PurchaseOut(BaseModel):
    item: ItemOut
    wallet: WalletOut


class ThingsOut(BaseModel):
    items: list[ItemOut]
    equipped: dict[str, str]


# OpenAPI: either a sku, or a currency and an amount (what _one_kind checks).
_NULL = {"type": "null"}  # absent or null: both mean "not given"


def _given(name: str) -> dict[str, Any]:
    return {"required": [name], "properties": {name: {"not": _NULL}}}


_ONE_KIND: dict[str, Any] = {
    "oneOf": [
        {
            **_given("sku"),
            "properties": {"sku": {"not": _NULL}, "currency": _NULL, "amount": _NULL},
        },
        {"properties": {"sku": _NULL}, "anyOf": [_given("currency"), _given("amount")]},
    ]
}


class GiftIn(BaseModel):
    """An item or pack (``sku``), or an amount of coins or credits."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_ONE_KIND)

    to_user_id: int = Field(ge=-BIG, le=BIG)
    sku: str | None = Field(default=None, min_length=1, max_length=64, pattern=SKU_PATTERN)
    currency: Currency | None = None
    amount: int | None = Field(default=None, ge=-BIG, le=BIG)

    @model_validator(mode="after")
    def _one_kind(self) -> GiftIn:
        if (self.sku is None) == (self.currency is None and self.amount is None):
            raise ValueError("give either sku, or currency and amount")
        return self


class GiftOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    sender_id: int
    recipient_id: int
    sku: str | None
    currency: Currency
    amount: int
    state: str
    created_at: datetime


class LeaderRow(BaseModel):
    rank: int
    user_id: int
    nickname: str
    xp: int
    level: int


class LeaderboardOut(BaseModel):
    period: Literal["all", "week"]
    modality: str | None
    # What is ranked, for the page to say: XP won in games against people, by accounts
    # only (guests are never listed), since ``since`` (the week's Monday 00:00 UTC) or
    # ever (null).
    ranks: Literal["xp"] = "xp"
    guests: Literal[False] = False
    since: datetime | None = None
    rows: list[LeaderRow]
