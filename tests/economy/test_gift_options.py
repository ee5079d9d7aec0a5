"""GET /api/gifts/options: every shop item with its price and the refusal a gift of it
would get now, and the server agrees with it item by item; the same gift raced 20 times
(Redis flushed meanwhile) moves money once."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.economy.hooks import EconomyTables
from app.economy.models import Gift
from tests.economy.helpers import client_for, coins, new_users, win_at_table

START = 30_000
Make = Callable[[], httpx.AsyncClient]


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"starting_coins": START, "starting_credits": 5}


async def _options(client: httpx.AsyncClient, to: int) -> dict[str, dict[str, Any]]:
    r = await client.get("/api/gifts/options", params={"to_user_id": to})
    assert r.status_code == 200, r.text
    return {o["sku"]: o for o in r.json()}


async def test_options_say_what_each_gift_would_get(app: FastAPI, make_client: Make) -> None:
    me, friend = await new_users(app.state.sessionmaker, 2)
    mine = await client_for(app, make_client, me)
    theirs = await client_for(app, make_client, friend)
    assert (await theirs.post("/api/shop/buy", json={"sku": "avatar_sombrero"})).status_code == 200

    found = await _options(mine, friend)
    shop = (await mine.get("/api/shop")).json()
    assert list(found) == [i["sku"] for i in shop]  # the whole shop, in its order
    for item in shop:  # each with its price and picture's kind
        assert {k: found[item["sku"]][k] for k in item} == item
    refused = {sku: o["refused"] for sku, o in found.items()}
    assert refused["avatar_sombrero"] == "already_owned"
    assert refused["avatar_gafas"] is None  # 30,000 of 30,000
    assert refused["avatar_pirata"] == "insufficient_funds"  # 45,000
    assert refused["felt_noche"] is None  # 4 credits of 5
    # Packs are money: only coins won at tables (none yet) may be given.
    assert refused["pack_coins_10k"] == "not_giftable"
    assert refused["pack_coins_50k"] == "insufficient_funds"
    assert refused["pack_credits_5"] == "not_giftable"

    for to, code, status in ((me, "cannot_gift_self", 400), (987_654_321, "user_not_found", 404)):
        r = await mine.get("/api/gifts/options", params={"to_user_id": to})
        assert (r.status_code, r.json()["error"]["code"]) == (status, code)
    assert (await mine.post("/api/blocks", json={"user_id": friend})).status_code == 204
    r = await theirs.get("/api/gifts/options", params={"to_user_id": me})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "blocked")
    assert (await make_client().get("/api/gifts/options?to_user_id=1")).status_code == 401


async def test_the_server_refuses_exactly_what_the_options_refuse(
    app: FastAPI, econ: EconomyTables, make_client: Make
) -> None:
    """For every item, a sender in the same position (30,000 coins, 5 credits, 12,000
    of them won at a table; the recipient owns a hat) sends it: accepted where the
    options offer it, refused with the options' code where not."""
    maker = app.state.sessionmaker
    seen: Counter[str | None] = Counter()
    skus = [i["sku"] for i in (await make_client().get("/api/shop")).json()]
    for sku in skus:
        me, friend, loser = await new_users(maker, 3)
        mine = await client_for(app, make_client, me)
        theirs = await client_for(app, make_client, friend)
        await client_for(app, make_client, loser)
        r = await theirs.post("/api/shop/buy", json={"sku": "avatar_sombrero"})
        assert r.status_code == 200
        await win_at_table(econ, me, loser, 12_000)  # 42,000 coins, 12,000 giftable
        option = (await _options(mine, friend))[sku]
        r = await mine.post("/api/gifts", json={"to_user_id": friend, "sku": sku})
        got = None if r.status_code == 201 else r.json()["error"]["code"]
        assert got == option["refused"], (sku, r.text)
        seen[got] += 1
    # Every kind of answer was met, so the comparison meant something.
    assert set(seen) == {None, "already_owned", "insufficient_funds", "not_giftable"}, seen


async def test_one_gift_sent_twenty_times_at_once_is_paid_once(
    app: FastAPI, make_client: Make
) -> None:
    maker = app.state.sessionmaker
    me, friend = await new_users(maker, 2)
    mine = await client_for(app, make_client, me)
    await client_for(app, make_client, friend)
    body = {"to_user_id": friend, "sku": "avatar_gafas"}  # 30,000: all the sender has
    headers = {"Idempotency-Key": "same-gift"}
    sends = [mine.post("/api/gifts", json=body, headers=headers) for _ in range(20)]
    # Redis (notifications, wallet pushes) flushed while they run: money lives in Postgres.
    done = await asyncio.gather(*sends[:10], app.state.redis.flushdb(), *sends[10:])
    answers = [r for r in done if isinstance(r, httpx.Response)]
    assert len(answers) == 20
    codes = Counter(
        r.status_code if r.status_code == 201 else r.json()["error"]["code"] for r in answers
    )
    assert codes[201] == 1 and sum(codes.values()) == 20, codes
    assert set(codes) <= {201, "duplicate_request", "insufficient_funds"}, codes
    assert await coins(maker, me) == 0
    # Without a shared key: 20 different gifts, one fits the wallet.
    (other,) = await new_users(maker, 1)
    theirs = await client_for(app, make_client, other)
    answers = await asyncio.gather(
        *(theirs.post("/api/gifts", json={**body, "sku": "felt_rojo"}) for _ in range(20))
    )
    codes = Counter(
        r.status_code if r.status_code == 201 else r.json()["error"]["code"] for r in answers
    )
    assert codes == Counter({201: 1, "insufficient_funds": 19}), codes
    assert await coins(maker, other) == START - 20_000
    async with maker() as db:
        sent = (
            await db.execute(
                select(func.count()).select_from(Gift).where(Gift.sender_id.in_([me, other]))
            )
        ).scalar_one()
    assert sent == 2
