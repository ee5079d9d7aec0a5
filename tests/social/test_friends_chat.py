"""Friends, blocks, online players, chat and notifications over HTTP."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import httpx
from fastapi import FastAPI

from app.social import presence
from app.tables.lobby.lobby import build_meta
from app.tables.lobby.schemas import CreateTableIn
from tests.economy.helpers import Listener, client_for, new_users

Clients = Callable[[], httpx.AsyncClient]


async def test_search_request_accept_remove(app: FastAPI, make_client: Clients) -> None:
    a, b = await new_users(app.state.sessionmaker, 2)
    ca, cb = await client_for(app, make_client, a), await client_for(app, make_client, b)
    nick_b = (await cb.get("/api/me")).json()["nickname"]
    found = (await ca.get("/api/players/search", params={"q": nick_b.lower()})).json()
    assert [p["user_id"] for p in found] == [b]
    assert (await ca.post("/api/friends/requests", json={"user_id": a})).json()["error"][
        "code"
    ] == "cannot_befriend_self"
    assert (await ca.post("/api/friends/requests", json={"user_id": b})).status_code == 201
    dup = await ca.post("/api/friends/requests", json={"user_id": b})
    assert dup.json()["error"]["code"] == "request_pending"
    incoming = (await cb.get("/api/friends/requests")).json()["incoming"]
    assert incoming[0]["sender_id"] == a
    assert (await cb.get("/api/notifications")).json()["unread"] == 1
    assert (await ca.post(f"/api/friends/requests/{incoming[0]['id']}/accept")).status_code == 404
    friends = (await cb.post(f"/api/friends/requests/{incoming[0]['id']}/accept")).json()
    assert [f["user_id"] for f in friends] == [a]
    assert [f["user_id"] for f in (await ca.get("/api/friends")).json()] == [b]
    assert (await ca.delete(f"/api/friends/{b}")).status_code == 204
    assert (await cb.get("/api/friends")).json() == []


async def test_asking_back_accepts_and_decline_works(app: FastAPI, make_client: Clients) -> None:
    a, b, c = await new_users(app.state.sessionmaker, 3)
    ca = await client_for(app, make_client, a)
    cb = await client_for(app, make_client, b)
    cc = await client_for(app, make_client, c)
    await ca.post("/api/friends/requests", json={"user_id": b})
    await cb.post("/api/friends/requests", json={"user_id": a})
    assert [f["user_id"] for f in (await ca.get("/api/friends")).json()] == [b]
    await cc.post("/api/friends/requests", json={"user_id": a})
    req = (await ca.get("/api/friends/requests")).json()["incoming"][0]["id"]
    assert (await ca.post(f"/api/friends/requests/{req}/decline")).status_code == 204
    assert (await ca.get("/api/friends/requests")).json()["incoming"] == []


async def test_answering_a_friend_request_reads_its_notification(
    app: FastAPI, make_client: Clients
) -> None:
    """Accepting, declining, asking back or blocking leaves nothing to answer: the
    request's notification is read (and the badge told), the others stay unread."""
    a, b, c, d, e, f = await new_users(app.state.sessionmaker, 6)
    ca = await client_for(app, make_client, a)
    for u in (b, c, d):
        cu = await client_for(app, make_client, u)
        assert (await cu.post("/api/friends/requests", json={"user_id": a})).status_code == 201

    async def unread(client: httpx.AsyncClient) -> tuple[int, list[str]]:
        notes = (await client.get("/api/notifications")).json()
        return notes["unread"], [
            n["payload"]["from_user_id"] for n in notes["items"] if not n["read"]
        ]

    assert (await unread(ca))[0] == 3
    by_sender = {
        r["sender_id"]: r["id"] for r in (await ca.get("/api/friends/requests")).json()["incoming"]
    }
    async with Listener(app.state.redis, f"user:{a}") as inbox:
        assert (await ca.post(f"/api/friends/requests/{by_sender[b]}/accept")).status_code == 200
        pushed = await inbox.drain()
    assert {"via": f"user:{a}", "type": "notifications_unread", "count": 2} in pushed
    assert await unread(ca) == (2, [d, c])
    async with Listener(app.state.redis, f"user:{a}") as inbox:
        assert (await ca.post(f"/api/friends/requests/{by_sender[c]}/decline")).status_code == 204
        pushed = await inbox.drain()
    assert {"via": f"user:{a}", "type": "notifications_unread", "count": 1} in pushed
    assert await unread(ca) == (1, [d])
    # A block cancels the request both ways and reads both sides' notifications.
    ce, cf = await client_for(app, make_client, e), await client_for(app, make_client, f)
    assert (await ca.post("/api/friends/requests", json={"user_id": f})).status_code == 201
    assert (await unread(cf))[0] == 1
    assert (await ca.post("/api/blocks", json={"user_id": d})).status_code == 204
    assert (await ca.post("/api/blocks", json={"user_id": f})).status_code == 204
    assert (await unread(ca))[0] == 0 and (await unread(cf))[0] == 0
    # Asking back accepts, and reads the notification of the request it answers.
    assert (await ca.post("/api/friends/requests", json={"user_id": e})).status_code == 201
    assert (await unread(ce))[0] == 1
    assert (await ce.post("/api/friends/requests", json={"user_id": a})).status_code == 201
    assert (await unread(ce))[0] == 0
    assert [fr["user_id"] for fr in (await ce.get("/api/friends")).json()] == [a]


async def test_the_same_answer_twenty_times_at_once(app: FastAPI, make_client: Clients) -> None:
    """Twenty accepts (or declines) of one request at once: one is answered, the rest
    find it answered (404 request_not_found), one friendship, one notification."""
    a, b, c = await new_users(app.state.sessionmaker, 3)
    ca = await client_for(app, make_client, a)
    for u in (b, c):
        cu = await client_for(app, make_client, u)
        assert (await cu.post("/api/friends/requests", json={"user_id": a})).status_code == 201
    by_sender = {
        r["sender_id"]: r["id"] for r in (await ca.get("/api/friends/requests")).json()["incoming"]
    }
    clients = [await client_for(app, make_client, a) for _ in range(20)]
    for sender, verb, ok in ((b, "accept", 200), (c, "decline", 204)):
        url = f"/api/friends/requests/{by_sender[sender]}/{verb}"
        answers = await asyncio.gather(*(cl.post(url) for cl in clients))
        codes = sorted(r.status_code for r in answers)
        assert codes == [ok] + [404] * 19, codes
        assert {r.json()["error"]["code"] for r in answers if r.status_code == 404} == {
            "request_not_found"
        }
    assert [f["user_id"] for f in (await ca.get("/api/friends")).json()] == [b]
    cb = await client_for(app, make_client, b)
    kinds = [n["kind"] for n in (await cb.get("/api/notifications")).json()["items"]]
    assert kinds.count("friend_accepted") == 1, kinds
    assert (await ca.get("/api/notifications")).json()["unread"] == 0


async def test_the_same_request_twenty_times_at_once_and_both_ways(
    app: FastAPI, make_client: Clients
) -> None:
    """Twenty identical requests at once store one (the rest: request_pending) and tell
    the other player once; both players asking each other at once become friends with
    no request left pending either way."""
    a, b, c, d = await new_users(app.state.sessionmaker, 4)
    many = [await client_for(app, make_client, a) for _ in range(20)]
    sent = await asyncio.gather(
        *(cl.post("/api/friends/requests", json={"user_id": b}) for cl in many)
    )
    codes = sorted(r.status_code for r in sent)
    assert codes == [201] + [409] * 19, codes
    assert {r.json()["error"]["code"] for r in sent if r.status_code == 409} == {"request_pending"}
    cb = await client_for(app, make_client, b)
    assert len((await cb.get("/api/friends/requests")).json()["incoming"]) == 1
    assert (await cb.get("/api/notifications")).json()["unread"] == 1

    cc = [await client_for(app, make_client, c) for _ in range(10)]
    cd = [await client_for(app, make_client, d) for _ in range(10)]
    both = await asyncio.gather(
        *[cl.post("/api/friends/requests", json={"user_id": d}) for cl in cc],
        *[cl.post("/api/friends/requests", json={"user_id": c}) for cl in cd],
    )
    assert all(r.status_code in (201, 409) for r in both), [r.status_code for r in both]
    assert {r.json()["error"]["code"] for r in both if r.status_code == 409} <= {
        "request_pending",
        "already_friends",
    }
    assert [f["user_id"] for f in (await cc[0].get("/api/friends")).json()] == [d]
    assert [f["user_id"] for f in (await cd[0].get("/api/friends")).json()] == [c]
    for cl in (cc[0], cd[0]):
        assert (await cl.get("/api/friends/requests")).json() == {"incoming": [], "outgoing": []}
    accepted = [
        n
        for cl in (cc[0], cd[0])
        for n in (await cl.get("/api/notifications")).json()["items"]
        if n["kind"] == "friend_accepted"
    ]
    assert len(accepted) == 1, accepted


async def test_block_hides_everything_both_ways(app: FastAPI, make_client: Clients) -> None:
    a, b, c = await new_users(app.state.sessionmaker, 3)
    ca, cb = await client_for(app, make_client, a), await client_for(app, make_client, b)
    cc = await client_for(app, make_client, c)
    await ca.post("/api/friends/requests", json={"user_id": b})
    await app.state.redis.zadd(presence.PRESENCE_KEY, {str(u): time.time() for u in (a, b, c)})
    assert (await cb.post("/api/chat/lobby", json={"text": "hola"})).status_code == 201
    assert (await ca.post("/api/blocks", json={"user_id": b})).status_code == 204
    assert (await cb.get("/api/friends/requests")).json()["incoming"] == []
    again = await cb.post("/api/friends/requests", json={"user_id": a})
    assert again.json()["error"]["code"] == "blocked"
    assert [m["text"] for m in (await ca.get("/api/chat/lobby")).json()] == []
    assert [m["text"] for m in (await cb.get("/api/chat/lobby")).json()] == ["hola"]
    assert [m["text"] for m in (await cc.get("/api/chat/lobby")).json()] == ["hola"]
    assert {p["user_id"] for p in (await ca.get("/api/players/online")).json()} == {a, c}
    assert {p["user_id"] for p in (await cb.get("/api/players/online")).json()} == {b, c}
    assert not await presence.may_see(app.state.redis, a, b)
    assert not await presence.may_see(app.state.redis, b, a)
    assert await presence.may_see(app.state.redis, c, b)
    gift = await cb.post("/api/gifts", json={"to_user_id": a, "sku": "felt_verde"})
    assert gift.json()["error"]["code"] == "blocked"
    assert [p["user_id"] for p in (await ca.get("/api/blocks")).json()] == [b]
    assert (await ca.delete(f"/api/blocks/{b}")).status_code == 204
    assert await presence.may_see(app.state.redis, a, b)
    assert [m["text"] for m in (await ca.get("/api/chat/lobby")).json()] == ["hola"]


async def open_table(app: FastAPI, host: int, private: bool) -> str:
    """A table straight through the table service (a private table costs a credit and a
    level through the API; what is tested here is who may use its chat)."""
    meta = build_meta(host, f"P{host}", CreateTableIn(name="chat", private=private))
    await app.state.tables.create(meta)
    return meta.id


async def test_chat_limits_and_live_publish(app: FastAPI, make_client: Clients) -> None:
    (a,) = await new_users(app.state.sessionmaker, 1)
    ca = await client_for(app, make_client, a)
    t1 = await open_table(app, a, private=False)
    async with Listener(app.state.redis, "chat:lobby", f"chat:table:{t1}") as live:
        ok = await ca.post(f"/api/chat/tables/{t1}", json={"text": "  buena\nmano  "})
        assert ok.status_code == 201 and ok.json()["text"] == "buena mano"
        pushed = await live.drain()
    assert pushed[0]["via"] == f"chat:table:{t1}" and pushed[0]["text"] == "buena mano"
    long = await ca.post("/api/chat/lobby", json={"text": "x" * 301})
    assert long.json()["error"]["code"] == "message_too_long"
    blank = await ca.post("/api/chat/lobby", json={"text": "   "})
    assert blank.json()["error"]["code"] == "empty_message"
    assert (await ca.post("/api/chat/lobby", json={"text": "y" * 300})).status_code == 201
    codes = [
        (await ca.post("/api/chat/lobby", json={"text": f"m{i}"})).status_code for i in range(6)
    ]
    assert codes.count(429) >= 2
    assert [m["text"] for m in (await ca.get(f"/api/chat/tables/{t1}")).json()] == ["buena mano"]
    bad = await ca.get("/api/chat/tables/no%20spaces")
    assert bad.status_code == 422


async def test_table_chat_is_for_those_who_may_watch_the_table(
    app: FastAPI,
    make_client: Clients,
) -> None:
    host, invited, stranger = await new_users(app.state.sessionmaker, 3)
    ch, ci, cs = [await client_for(app, make_client, u) for u in (host, invited, stranger)]
    private = await open_table(app, host, private=True)
    public = await open_table(app, host, private=False)
    me = (await ci.get("/api/me")).json()
    assert (
        await ch.post(f"/api/tables/{private}/invite", json={"usernames": [me["username"]]})
    ).status_code == 200
    assert (
        await ch.post(f"/api/chat/tables/{private}", json={"text": "solo amigos"})
    ).status_code == 201
    assert (await ci.post(f"/api/chat/tables/{private}", json={"text": "hola"})).status_code == 201
    assert [m["text"] for m in (await ci.get(f"/api/chat/tables/{private}")).json()] == [
        "solo amigos",
        "hola",
    ]
    async with Listener(app.state.redis, f"chat:table:{private}") as live:
        for r in (
            await cs.get(f"/api/chat/tables/{private}"),
            await cs.post(f"/api/chat/tables/{private}", json={"text": "espío"}),
            await cs.get("/api/chat/tables/nosuchtable"),
            await cs.post("/api/chat/tables/nosuchtable", json={"text": "x"}),
        ):
            assert r.status_code == 404 and r.json()["error"]["code"] == "table_not_found"
        assert await live.drain() == []
    assert [m["text"] for m in (await ch.get(f"/api/chat/tables/{private}")).json()] == [
        "solo amigos",
        "hola",
    ]
    # a public table's chat is open to anyone who may watch the game
    assert (await cs.post(f"/api/chat/tables/{public}", json={"text": "suerte"})).status_code == 201
    assert [m["text"] for m in (await ch.get(f"/api/chat/tables/{public}")).json()] == ["suerte"]


async def test_notifications_read_one_and_all(app: FastAPI, make_client: Clients) -> None:
    a, b, c = await new_users(app.state.sessionmaker, 3)
    ca = await client_for(app, make_client, a)
    for u in (b, c):
        cu = await client_for(app, make_client, u)
        await cu.post("/api/friends/requests", json={"user_id": a})
    notes = (await ca.get("/api/notifications")).json()
    assert notes["unread"] == 2
    async with Listener(app.state.redis, f"user:{a}") as inbox:
        assert (
            await ca.post(f"/api/notifications/{notes['items'][0]['id']}/read")
        ).status_code == 204
        pushed = await inbox.drain()
    assert {"via": f"user:{a}", "type": "notifications_unread", "count": 1} in pushed
    other = await client_for(app, make_client, b)
    assert (await other.post(f"/api/notifications/{notes['items'][1]['id']}/read")).json()["error"][
        "code"
    ] == "notification_not_found"
    await ca.post("/api/notifications/read-all")
    assert (await ca.get("/api/notifications")).json()["unread"] == 0


async def test_player_lists_carry_the_equipped_avatar(app: FastAPI, make_client: Clients) -> None:
    a, b = await new_users(app.state.sessionmaker, 2)
    ca, cb = await client_for(app, make_client, a), await client_for(app, make_client, b)
    assert (await cb.post("/api/shop/buy", json={"sku": "avatar_gafas"})).status_code == 200
    await ca.post("/api/friends/requests", json={"user_id": b})
    await cb.post("/api/friends/requests", json={"user_id": a})
    assert [(f["user_id"], f["avatar"]) for f in (await ca.get("/api/friends")).json()] == [
        (b, "avatar_gafas")
    ]
    # Nothing equipped: null, and the client draws the default avatar.
    assert [(f["user_id"], f["avatar"]) for f in (await cb.get("/api/friends")).json()] == [
        (a, None)
    ]
    nick_b = (await cb.get("/api/me")).json()["nickname"]
    found = (await ca.get("/api/players/search", params={"q": nick_b})).json()
    assert [p["avatar"] for p in found] == ["avatar_gafas"]


async def test_a_guest_is_never_offered_for_a_challenge(app: FastAPI, make_client: Clients) -> None:
    """A challenge names its friend by username, which a guest does not have: lists say
    who is a guest, and a guest's profile offers no "Retar" (the server would refuse it)."""
    from app.users.models import User

    (a,) = await new_users(app.state.sessionmaker, 1)
    async with app.state.sessionmaker() as db:
        guest = User(nickname="Invitado4242", is_guest=True)
        db.add(guest)
        await db.commit()
        g = guest.id
    ca = await client_for(app, make_client, a)
    await app.state.redis.zadd(presence.PRESENCE_KEY, {str(u): time.time() for u in (a, g)})
    online = {p["user_id"]: p["guest"] for p in (await ca.get("/api/players/online")).json()}
    assert online[g] is True and online[a] is False
    profile = (await ca.get(f"/api/profiles/{g}")).json()
    assert profile["online"] is True and profile["can_challenge"] is False
    assert profile["can_gift"] is True
    refused = await ca.post("/api/challenges", json={"username": "Invitado4242"})
    assert refused.json()["error"]["code"] == "user_not_found"
