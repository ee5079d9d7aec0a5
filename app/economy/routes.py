"""Economy endpoints under /api: wallet, daily bonus, shop, "Mis cosas", gifts, rankings."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.deps import CurrentUser, DbDep, SettingsDep
from app.core.config import Settings
from app.core.db import utcnow
from app.core.errors import ERROR_RESPONSES
from app.economy import giftoptions, gifts, holds, leaderboards, shop, stakes, wallets
from app.economy.deps import NotifierDep, RequestKey
from app.economy.models import Wallet
from app.economy.notify import Outbox
from app.economy.schemas import (
    BuyIn,
    EquipIn,
    GiftIn,
    GiftOptionOut,
    GiftOut,
    ItemOut,
    LeaderboardOut,
    PurchaseOut,
    ThingsOut,
    WalletOut,
)

router = APIRouter(prefix="/api", tags=["economy"], responses=ERROR_RESPONSES)


async def wallet_out(db: AsyncSession, user_id: int, settings: Settings) -> WalletOut:
    got = await wallets.balances(db, user_id, settings)
    row = await db.get(Wallet, user_id)
    last = row.last_bonus_at if row else None
    return WalletOut(
        coins=got.coins,
        credits=got.credits,
        v=got.v,
        next_bonus_at=last + wallets.BONUS_PERIOD if last else None,
        max_bet=await stakes.max_bet(db, settings, user_id),
        held=await holds.held_coins(db, user_id),
    )


@router.get("/wallet", response_model=WalletOut)
async def get_wallet(user: CurrentUser, db: DbDep, settings: SettingsDep) -> WalletOut:
    out = await wallet_out(db, user.id, settings)
    await db.commit()  # keeps a wallet created on this first visit
    return out


@router.post("/wallet/daily-bonus", response_model=WalletOut)
async def daily_bonus(
    user: CurrentUser, db: DbDep, settings: SettingsDep, notifier: NotifierDep
) -> WalletOut:
    outbox = Outbox()
    await wallets.claim_daily_bonus(db, user.id, settings, outbox)
    out = await wallet_out(db, user.id, settings)
    await db.commit()
    await outbox.flush(db, notifier)
    return out


@router.get("/shop", response_model=list[ItemOut])
async def catalogue(db: DbDep) -> list[ItemOut]:
    return [ItemOut.model_validate(i) for i in await shop.catalogue(db)]


@router.post("/shop/buy", response_model=PurchaseOut)
async def buy(
    body: BuyIn,
    key: RequestKey,
    user: CurrentUser,
    db: DbDep,
    settings: SettingsDep,
    notifier: NotifierDep,
) -> PurchaseOut:
    outbox = Outbox()
    item = await shop.buy(db, settings, outbox, user.id, body.sku, key)
    out = PurchaseOut(
        item=ItemOut.model_validate(item), wallet=await wallet_out(db, user.id, settings)
    )
    await db.commit()
    await outbox.flush(db, notifier)
    return out


@router.get("/me/things", response_model=ThingsOut)
async def my_things(user: CurrentUser, db: DbDep) -> ThingsOut:
    owned, equipped = await shop.things(db, user.id)
    return ThingsOut(items=[ItemOut.model_validate(i) for i in owned], equipped=equipped)


@router.post("/me/equip", response_model=ThingsOut)
async def equip(body: EquipIn, user: CurrentUser, db: DbDep) -> ThingsOut:
    await shop.equip(db, user.id, body.sku)
    await db.commit()
    return await my_things(user, db)


@router.get("/gifts/options", response_model=list[GiftOptionOut])
async def gift_options(
    user: CurrentUser,
    db: DbDep,
    settings: SettingsDep,
    to_user_id: Annotated[int, Query(ge=-(2**63), le=2**63 - 1)],
) -> list[GiftOptionOut]:
    """Every shop item as a gift to this player, each with the refusal it would get."""
    found = await giftoptions.options(db, settings, user, to_user_id)
    out = [
        GiftOptionOut.model_validate(
            {**ItemOut.model_validate(o.item).model_dump(), "refused": o.refused}
        )
        for o in found
    ]
    await db.commit()  # the sender's wallet, when this created it
    return out


@router.post("/gifts", response_model=GiftOut, status_code=201)
async def send_gift(
    body: GiftIn,
    key: RequestKey,
    user: CurrentUser,
    db: DbDep,
    settings: SettingsDep,
    notifier: NotifierDep,
) -> GiftOut:
    outbox = Outbox()
    order = gifts.GiftOrder(body.to_user_id, body.sku, body.currency, body.amount)
    gift = await gifts.send(db, settings, outbox, user, order, key)
    out = GiftOut.model_validate(gift)
    await db.commit()
    await outbox.flush(db, notifier)
    return out


async def _answer(
    gift_id: int, accept: bool, user: CurrentUser, db: DbDep, notifier: NotifierDep
) -> GiftOut:
    outbox = Outbox()
    answer = gifts.accept if accept else gifts.decline
    out = GiftOut.model_validate(await answer(db, outbox, user, gift_id))
    await db.commit()
    await outbox.flush(db, notifier)
    return out


@router.post("/gifts/{gift_id}/accept", response_model=GiftOut)
async def accept_gift(gift_id: int, user: CurrentUser, db: DbDep, notifier: NotifierDep) -> GiftOut:
    return await _answer(gift_id, True, user, db, notifier)


@router.post("/gifts/{gift_id}/decline", response_model=GiftOut)
async def decline_gift(
    gift_id: int, user: CurrentUser, db: DbDep, notifier: NotifierDep
) -> GiftOut:
    return await _answer(gift_id, False, user, db, notifier)


@router.get("/leaderboards", response_model=LeaderboardOut)
async def leaderboard(
    db: DbDep,
    period: Literal["all", "week"] = "all",
    modality: Annotated[
        str | None, Query(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
) -> LeaderboardOut:
    rows = await leaderboards.leaderboard(db, period, modality, limit)
    since = leaderboards.week_start(utcnow()) if period == "week" else None
    return LeaderboardOut(period=period, modality=modality, since=since, rows=rows)
