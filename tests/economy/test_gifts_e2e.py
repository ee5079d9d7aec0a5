"""Shop and gifts end to end over HTTP: buy, send, accept (into "Mis cosas", never
equipped for the recipient), decline with its refund, "Regalar" back, and every kind of
bad input moving nothing."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from fastapi import FastAPI

from app.economy.hooks import EconomyTables
from tests.economy.helpers import (
    Listener,
    client_for,
    coins,
    credits,
    new_users,
    win_at_table,
)


async def befriend(a: httpx.AsyncClient, b: httpx.AsyncClient, b_id: int) -> None:
    r = await a.post("/api/friends/requests", json={"user_id": b_id})
    assert r.status_code == 201, r.text
    req_id = (await b.get("/api/friends/requests")).json()["incoming"][0]["id"]
    assert (await b.post(f"/api/friends/requests/{req_id}/accept")).status_code == 200


@pytest.fixture
async def pair(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> tuple[int, httpx.AsyncClient, int, httpx.AsyncClient]:
    a, b = await new_users(app.state.sessionmaker, 2)
    ca, cb = await client_for(app, make_client, a), await client_for(app, make_client, b)
    await befriend(ca, cb, b)
    for c in (ca, cb):
        assert (await c.get("/api/wallet")).status_code == 200  # wallets with their grant
    return a, ca, b, cb


async def test_catalogue_is_seeded(client: httpx.AsyncClient) -> None:
    items = (await client.get("/api/shop")).json()
    kinds = {i["kind"] for i in items}
    assert {"avatar", "card_back", "felt", "emote", "coins_pack", "credits_pack"} <= kinds
    assert {i["currency"] for i in items} == {"coins", "credits"}


async def test_buy_for_yourself_equips_and_refuses_replays(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    (a,) = await new_users(app.state.sessionmaker, 1)
    c = await client_for(app, make_client, a)
    r = await c.post(
        "/api/shop/buy", json={"sku": "avatar_sombrero"}, headers={"Idempotency-Key": "k1"}
    )
    assert r.status_code == 200, r.text
    assert r.json()["wallet"]["coins"] == 30_000
    things = (await c.get("/api/me/things")).json()
    assert [i["sku"] for i in things["items"]] == ["avatar_sombrero"]
    assert things["equipped"] == {"avatar": "avatar_sombrero"}
    replay = await c.post(
        "/api/shop/buy", json={"sku": "felt_verde"}, headers={"Idempotency-Key": "k1"}
    )
    assert replay.status_code == 409 and replay.json()["error"]["code"] == "duplicate_request"
    again = await c.post("/api/shop/buy", json={"sku": "avatar_sombrero"})
    assert again.json()["error"]["code"] == "already_owned"
    for sku, code in [("nope", "unknown_item"), ("pack_coins_10k", "gift_only")]:
        r = await c.post("/api/shop/buy", json={"sku": sku})
        assert r.json()["error"]["code"] == code
    assert await coins(app.state.sessionmaker, a) == 30_000


async def test_buy_without_enough_credits(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    (a,) = await new_users(app.state.sessionmaker, 1)
    c = await client_for(app, make_client, a)
    assert (await c.post("/api/shop/buy", json={"sku": "felt_noche"})).status_code == 200
    r = await c.post("/api/shop/buy", json={"sku": "avatar_corona"})  # 3 credits, 1 left
    assert r.status_code == 409 and r.json()["error"]["code"] == "no_credits"
    assert await credits(app.state.sessionmaker, a) == 1


async def test_gift_accepted_goes_to_my_things_unequipped(
    app: FastAPI, pair: tuple[int, httpx.AsyncClient, int, httpx.AsyncClient]
) -> None:
    a, ca, b, cb = pair
    maker = app.state.sessionmaker
    # b wears a card back of their own choosing (bought: 15,000 of their 50,000).
    bought = await cb.post("/api/shop/buy", json={"sku": "back_clasico"})
    assert bought.status_code == 200, bought.text
    async with Listener(app.state.redis, f"user:{b}") as inbox:
        r = await ca.post("/api/gifts", json={"to_user_id": b, "sku": "back_azulejo"})
        assert r.status_code == 201, r.text
        pushed = await inbox.drain()
    gift_id = r.json()["id"]
    assert await coins(maker, a) == 25_000
    assert any(m["type"] == "notification" and m["kind"] == "gift" for m in pushed)
    # The gift is b's one unread notification: the friend request b accepted was read
    # when it was answered.
    assert {"via": f"user:{b}", "type": "notifications_unread", "count": 1} in pushed
    notes = (await cb.get("/api/notifications")).json()
    gift_note = next(n for n in notes["items"] if n["kind"] == "gift")
    assert gift_note["payload"]["gift_id"] == gift_id
    assert gift_note["payload"]["from_user_id"] == a
    # Someone else cannot answer it.
    stolen = await ca.post(f"/api/gifts/{gift_id}/accept")
    assert stolen.status_code == 404 and stolen.json()["error"]["code"] == "gift_not_found"
    ok = await cb.post(f"/api/gifts/{gift_id}/accept")
    assert ok.status_code == 200 and ok.json()["state"] == "accepted"
    things = (await cb.get("/api/me/things")).json()
    assert [i["sku"] for i in things["items"]] == ["back_clasico", "back_azulejo"]
    # A gift never replaces what the player wears; equipping it is their choice.
    assert things["equipped"] == {"card_back": "back_clasico"}
    worn = await cb.post("/api/me/equip", json={"sku": "back_azulejo"})  # their choice
    assert worn.json()["equipped"] == {"card_back": "back_azulejo"}
    twice = await cb.post(f"/api/gifts/{gift_id}/accept")
    assert twice.json()["error"]["code"] == "gift_already_answered"
    assert (await cb.get("/api/wallet")).json()["coins"] == 35_000  # the gift cost b nothing
    kinds = [n["kind"] for n in (await ca.get("/api/notifications")).json()["items"]]
    assert "gift_accepted" in kinds


async def test_gift_declined_is_refunded_and_regalar_back(
    app: FastAPI,
    pair: tuple[int, httpx.AsyncClient, int, httpx.AsyncClient],
    econ: EconomyTables,
) -> None:
    a, ca, b, cb = pair
    (third,) = await new_users(app.state.sessionmaker, 1)
    maker = app.state.sessionmaker
    r = await ca.post("/api/gifts", json={"to_user_id": b, "sku": "avatar_corona"})
    assert r.status_code == 201 and await credits(maker, a) == 2
    declined = await cb.post(f"/api/gifts/{r.json()['id']}/decline")
    assert declined.status_code == 200 and declined.json()["state"] == "declined"
    assert await credits(maker, a) == 5
    note = (await ca.get("/api/notifications")).json()["items"][0]
    assert note["kind"] == "gift_declined"
    assert note["payload"]["refunded"] == {"currency": "credits", "amount": 3}
    # "Regalar": b, who won 10,000 coins at a table, sends a pack of coins back to a,
    # who accepts it into the wallet (coins given must be won or received: giftable.py).
    await win_at_table(econ, b, third, 10_000)
    back = await cb.post("/api/gifts", json={"to_user_id": a, "sku": "pack_coins_10k"})
    assert back.status_code == 201
    assert (await ca.post(f"/api/gifts/{back.json()['id']}/accept")).status_code == 200
    assert await coins(maker, a) == 60_000 and await coins(maker, b) == 50_000
    # And a custom amount: a passes on coins it received; its starting credits it cannot.
    r = await ca.post("/api/gifts", json={"to_user_id": b, "currency": "coins", "amount": 2})
    assert (await cb.post(f"/api/gifts/{r.json()['id']}/accept")).status_code == 200
    assert await coins(maker, b) == 50_002 and await coins(maker, a) == 59_998
    r = await ca.post("/api/gifts", json={"to_user_id": b, "currency": "credits", "amount": 2})
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_giftable"
    assert await credits(maker, b) == 5 and await credits(maker, a) == 5


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"currency": "coins", "amount": 0}, "invalid_amount"),
        ({"currency": "coins", "amount": -5}, "invalid_amount"),
        ({"currency": "coins", "amount": 10**15}, "invalid_amount"),
        ({"currency": "credits", "amount": 10**6}, "invalid_amount"),
        ({"currency": "coins", "amount": 50_001}, "insufficient_funds"),
        ({"sku": "no_such_thing"}, "unknown_item"),
        ({"sku": "avatar_sombrero", "currency": "coins"}, "validation_error"),
        ({}, "validation_error"),
    ],
)
async def test_bad_gifts_move_nothing(
    app: FastAPI,
    pair: tuple[int, httpx.AsyncClient, int, httpx.AsyncClient],
    body: dict[str, object],
    code: str,
) -> None:
    a, ca, b, _ = pair
    r = await ca.post("/api/gifts", json={"to_user_id": b, **body})
    assert r.json()["error"]["code"] == code, r.text
    assert await coins(app.state.sessionmaker, a) == 50_000


async def test_gifts_to_anyone_but_yourself_and_across_a_block(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    """Seed 000: a gift goes to any player (from a profile or a seat), not only friends;
    a block either way refuses it and moves nothing."""
    a, stranger, blocker = await new_users(app.state.sessionmaker, 3)
    ca = await client_for(app, make_client, a)
    cblocker = await client_for(app, make_client, blocker)
    assert (await cblocker.post("/api/blocks", json={"user_id": a})).status_code == 204
    for to, code in [(a, "cannot_gift_self"), (blocker, "blocked"), (999_999, "user_not_found")]:
        r = await ca.post("/api/gifts", json={"to_user_id": to, "sku": "felt_verde"})
        assert r.json()["error"]["code"] == code
    assert await coins(app.state.sessionmaker, a) in (0, 50_000)
    # A stranger (not a friend) is gifted, and accepts from the notifications centre.
    sent = await ca.post("/api/gifts", json={"to_user_id": stranger, "sku": "felt_verde"})
    assert sent.status_code == 201, sent.text
    assert await coins(app.state.sessionmaker, a) == 50_000 - 10_000
    cs = await client_for(app, make_client, stranger)
    note = (await cs.get("/api/notifications")).json()["items"][0]
    assert note["kind"] == "gift" and note["payload"]["from_user_id"] == a
    accepted = await cs.post(f"/api/gifts/{note['payload']['gift_id']}/accept")
    assert accepted.status_code == 200, accepted.text
    things = (await cs.get("/api/me/things")).json()
    assert "felt_verde" in [i["sku"] for i in things["items"]] and "felt" not in things["equipped"]


async def test_gift_replay_with_same_key_is_refused(
    app: FastAPI,
    pair: tuple[int, httpx.AsyncClient, int, httpx.AsyncClient],
    econ: EconomyTables,
) -> None:
    a, ca, b, _ = pair
    (third,) = await new_users(app.state.sessionmaker, 1)
    await win_at_table(econ, a, third, 1_000)  # 1,000 coins a may give away
    body = {"to_user_id": b, "currency": "coins", "amount": 1_000}
    headers = {"Idempotency-Key": "gift-1"}
    assert (await ca.post("/api/gifts", json=body, headers=headers)).status_code == 201
    replay = await ca.post("/api/gifts", json=body, headers=headers)
    assert replay.status_code == 409 and replay.json()["error"]["code"] == "duplicate_request"
    assert await coins(app.state.sessionmaker, a) == 50_000
