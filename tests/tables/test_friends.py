"""Playing with friends on real uvicorn processes: a challenge at level 1, what everyone
wears at the table, emotes (seen, limited, hidden across blocks) and the rematch
(accepted by both, declined, timed out).

The server here keeps seed 000's rule (special tables need level 2), unlike the shared
``servers`` of the other table tests, and has a short rematch wait and emote window.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.tables.conftest import LONG, _fresh, no_crash, tables_redis_url
from tests.tables.harness import Player, Server, create_table, sit, start_servers
from tests.tables.test_lobby import registered_pair

SHORT_2P = {"hand_size": 20, "muerto_size": 11, "stock_end": 20}
REMATCH_SECONDS = 2


@pytest.fixture(scope="module")
def friends_server(
    pg_url: str,
    redis_url: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Server]:
    own = _fresh(tables_redis_url(redis_url, 4))
    procs = start_servers(
        1,
        pg_url,
        own,
        tmp_path_factory.mktemp("friends"),
        **LONG,
        special_table_level=2,
        rematch_seconds=REMATCH_SECONDS,
        emote_limit=3,
        emote_window_seconds=30,
    )
    yield procs[0]
    procs[0].stop()


async def people(server: Server, n: int) -> list[Player]:
    tag = secrets.token_hex(3)
    out = []
    for i in range(n):
        p = await Player.registered(server.base, f"fr{i}_{tag}")
        await p.connect(server.ws_url)
        out.append(p)
    return out


async def close(players: list[Player], server: Server) -> None:
    for p in players:
        await p.aclose()
    no_crash(server)


# ---------------------------------------------------------------- challenge at level 1


async def test_level_one_player_challenges_a_friend_and_plays(friends_server: Server) -> None:
    a, b = await people(friends_server, 2)
    try:
        r = await a.http.post("/api/friends/requests", json={"user_id": b.id})
        assert r.status_code == 201, r.text
        req = (await b.http.get("/api/friends/requests")).json()["incoming"][0]["id"]
        assert (await b.http.post(f"/api/friends/requests/{req}/accept")).status_code == 200
        options = (await a.http.get("/api/lobby/options")).json()
        assert options["level"] == 1
        # Offered as locked, with what it needs: never a choice the server then refuses.
        for name in ("private", "turbo", "pairs"):
            assert options["options"][name] == {
                "locked": True,
                "missing": ["level"],
                "needs": {"level": 2, "credits": 1},
            }
        refused = await a.http.post("/api/tables", json={"private": True})
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "level_too_low"
        assert options["challenge"]["locked"] is False
        assert options["challenge"]["turbo"]["locked"] is True  # turbo is special anywhere
        turbo = await a.http.post(
            "/api/challenges", json={"username": b.me["username"], "turbo": True}
        )
        assert turbo.status_code == 403 and turbo.json()["error"]["code"] == "level_too_low"
        mark = len(b.frames)
        r = await a.http.post("/api/challenges", json={"username": b.me["username"]})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        await b.wait_frame(lambda f: f["type"] == "challenge", since=mark)
        # Also a row in b's notifications centre (the list and its unread badge), pushed
        # live, and worded in b's language.
        pushed = await b.wait_frame(
            lambda f: f["type"] == "notification" and f["kind"] == "challenge", since=mark
        )
        notes = (await b.http.get("/api/notifications")).json()
        note = next(n for n in notes["items"] if n["kind"] == "challenge")
        assert note["id"] == pushed["id"] and not note["read"] and notes["unread"] >= 1
        assert note["payload"]["table_id"] == tid and note["payload"]["from_user_id"] == a.id
        assert note["text"] == f"{a.me['nickname']} te desafió a una partida"
        assert (await b.http.post(f"/api/challenges/{tid}/accept")).status_code == 200
        # Answered (here, as from the lobby's toast): its notification is read.
        notes = (await b.http.get("/api/notifications")).json()
        assert next(n for n in notes["items"] if n["id"] == note["id"])["read"] is True
        await a.watch(tid)
        await b.watch(tid)
        for p in (a, b):
            await p.until(lambda p=p: p.tables[tid].status == "playing")
        # Both play: each makes the moves of a turn and the server takes them.
        rng = random.Random(1)
        for _ in range(2):
            mover = await whose_turn([a, b], tid)
            turn = mover.tables[tid].turn
            while mover.tables[tid].turn == turn and mover.tables[tid].status == "playing":
                step = await mover.play_turn_step(tid, rng)
                assert step is None or step["type"] == "ack", step
        wallet = (await a.http.get("/api/wallet")).json()
        assert wallet["credits"] == 5  # a challenge costs no credit
    finally:
        await close([a, b], friends_server)


async def whose_turn(players: list[Player], tid: str, timeout: float = 20) -> Player:
    """The player whose turn it is, once that player's own view says so. (The one who
    just moved sees the turn pass at once, with its ack; the others see it when the
    move reaches them: asking one of them too early would name the wrong player.)"""
    deadline = time.monotonic() + timeout
    while True:
        for p in players:
            if p.tables[tid].my_turn():
                return p
        assert time.monotonic() < deadline, "nobody's turn came"
        await asyncio.sleep(0.02)


# ---------------------------------------------------------------- cosmetics and emotes


async def seated_table(host: Player, guest: Player, **body: Any) -> str:
    table = await create_table(host, name="amigos", rules=SHORT_2P, **body)
    tid = table["id"]
    await host.watch(tid)
    await guest.watch(tid)
    await sit(guest, tid, 1)
    for p in (host, guest):
        await p.until(lambda p=p: p.tables[tid].status == "playing")
    return tid


async def test_everyone_sees_what_each_player_wears(friends_server: Server) -> None:
    a, b = await people(friends_server, 2)
    try:
        for sku in ("avatar_sombrero", "felt_verde"):
            assert (await a.http.post("/api/shop/buy", json={"sku": sku})).status_code == 200
        assert (await b.http.post("/api/shop/buy", json={"sku": "back_dorado"})).status_code == 200
        tid = await seated_table(a, b)
        seats = b.tables[tid].meta["seats"]  # what b's socket was told
        assert seats[0]["user_id"] == a.id and seats[0]["avatar"] == "avatar_sombrero"
        assert seats[1]["card_back"] == "back_dorado" and seats[1]["avatar"] is None
        assert b.tables[tid].meta["felt"] == "felt_verde"
        spectator = (await people(friends_server, 1))[0]
        snap = await spectator.watch(tid)
        assert snap["meta"]["seats"][0]["avatar"] == "avatar_sombrero"
        await spectator.aclose()
    finally:
        await close([a, b], friends_server)


async def test_emotes_seen_by_the_table_limited_and_hidden_across_blocks(
    friends_server: Server,
) -> None:
    a, b, watcher = await people(friends_server, 3)
    try:
        tid = await seated_table(a, b)
        await watcher.watch(tid)
        assert (await a.http.post("/api/shop/buy", json={"sku": "emote_risa"})).status_code == 200
        mark_b, mark_w = len(b.frames), len(watcher.frames)
        await a.send({"type": "emote", "table": tid, "emote": "emote_risa"})
        seen = await b.wait_frame(lambda f: f["type"] == "emote", since=mark_b)
        assert (seen["emote"], seen["user_id"], seen["seat"]) == ("emote_risa", a.id, 0)
        spect = await watcher.wait_frame(lambda f: f["type"] == "emote", since=mark_w)
        assert spect["emote"] == "emote_risa"
        mark = len(b.frames)
        await b.send({"type": "emote", "table": tid, "emote": "emote_beso"})  # not owned
        err = await b.wait_frame(lambda f: f["type"] == "error", since=mark)
        assert err["code"] == "emote_not_owned"
        # The watcher blocks a: neither sees the other's emotes; b still sees both.
        assert (await watcher.http.post("/api/blocks", json={"user_id": a.id})).status_code == 204
        mark_a, mark_b, mark_w = len(a.frames), len(b.frames), len(watcher.frames)
        await a.send({"type": "emote", "table": tid, "emote": "basic_hola"})
        await watcher.send({"type": "emote", "table": tid, "emote": "basic_bien"})
        await b.send({"type": "emote", "table": tid, "emote": "basic_uy"})
        await b.wait_frame(
            lambda f: f["type"] == "emote" and f["emote"] == "basic_hola", since=mark_b
        )
        await b.wait_frame(
            lambda f: f["type"] == "emote" and f["emote"] == "basic_bien", since=mark_b
        )
        # b's emote was sent last: once a and the watcher have it, anything earlier is in.
        await a.wait_frame(
            lambda f: f["type"] == "emote" and f["emote"] == "basic_uy", since=mark_a
        )
        await watcher.wait_frame(
            lambda f: f["type"] == "emote" and f["emote"] == "basic_uy", since=mark_w
        )
        assert not [f for f in a.frames[mark_a:] if f.get("emote") == "basic_bien"]
        assert not [f for f in watcher.frames[mark_w:] if f.get("emote") == "basic_hola"]
        # A flood: a has sent 2 of its 3 in the window; the rest are refused, stable code.
        mark = len(a.frames)
        for _ in range(6):
            await a.send({"type": "emote", "table": tid, "emote": "basic_gracias"})
        await a.until(
            lambda: len([f for f in a.frames[mark:] if f.get("code") == "emote_rate_limited"]) == 5
        )
        await asyncio.sleep(0.3)
        assert len([f for f in b.frames if f.get("emote") == "basic_gracias"]) == 1
        mark = len(a.frames)
        await a.send({"type": "emote", "table": "nosuchtable", "emote": "basic_hola"})
        err = await a.wait_frame(lambda f: f["type"] == "error", since=mark)
        assert err["code"] == "not_watching"
    finally:
        await close([a, b, watcher], friends_server)


# ---------------------------------------------------------------- rematch


async def finished_table(a: Player, b: Player) -> str:
    """A game played out fast: both leave and the bots finish it (no delay in tests)."""
    tid = await seated_table(a, b, bet=7_000)
    for p in (a, b):
        assert (await p.http.post(f"/api/tables/{tid}/leave")).status_code == 200
    for p in (a, b):
        await p.until(lambda p=p: p.tables[tid].status == "finished", timeout=30)
    return tid


def rematch_frames(p: Player, tid: str, mark: int) -> list[dict[str, Any]]:
    return [f for f in p.frames[mark:] if f["type"] == "rematch" and f["table"] == tid]


async def test_rematch_accepted_by_both_starts_the_same_table_again(
    friends_server: Server,
) -> None:
    a, b = await people(friends_server, 2)
    try:
        tid = await finished_table(a, b)
        old = a.tables[tid].meta
        coins_before = (await b.http.get("/api/wallet")).json()["coins"]
        mark_b = len(b.frames)
        offer = (await a.http.post(f"/api/tables/{tid}/rematch")).json()
        assert offer["state"] == "open" and offer["accepted"] == [0] and offer["waiting"] == [1]
        pushed = await b.wait_frame(lambda f: f["type"] == "rematch", since=mark_b)
        assert pushed["by"]["id"] == a.id and pushed["waiting"] == [1]
        # Twenty yeses from b at once: one new table.
        answers = await asyncio.gather(
            *(b.http.post(f"/api/tables/{tid}/rematch") for _ in range(20))
        )
        assert all(r.status_code == 200 for r in answers), [r.text for r in answers]
        started = await a.wait_frame(
            lambda f: f["type"] == "rematch" and f["state"] == "started", since=0
        )
        new = started["new_table"]
        assert new and new != tid and started["accepted"] == [0, 1]
        assert (
            len({f["new_table"] for f in rematch_frames(b, tid, mark_b) if f["state"] == "started"})
            == 1
        )
        await a.watch(new)
        await a.until(lambda: a.tables[new].status == "playing")
        meta = a.tables[new].meta
        for key in ("bet", "preset", "rules", "players", "turbo", "private", "name"):
            assert meta[key] == old[key], key
        assert [s["user_id"] for s in meta["seats"]] == [a.id, b.id]
        assert meta["rematch_of"] == tid and meta["game_id"] != old["game_id"]
        # A new game for the economy: b's stake is held again.
        await b.until(
            lambda: any(
                f["type"] == "wallet" and f["coins"] == coins_before - 7_000
                for f in b.frames[mark_b:]
            )
        )
    finally:
        await close([a, b], friends_server)


async def test_rematch_declined(friends_server: Server) -> None:
    a, b = await people(friends_server, 2)
    try:
        tid = await finished_table(a, b)
        mark_a = len(a.frames)
        assert (await a.http.post(f"/api/tables/{tid}/rematch")).status_code == 200
        r = await b.http.post(f"/api/tables/{tid}/rematch/decline")
        assert r.status_code == 200 and r.json()["state"] == "declined", r.text
        declined = await a.wait_frame(
            lambda f: f["type"] == "rematch" and f["state"] == "declined", since=mark_a
        )
        assert declined["by"]["id"] == b.id
        late = await b.http.post(f"/api/tables/{tid}/rematch")
        assert late.status_code == 409 and late.json()["error"]["code"] == "rematch_closed"
        outsider = (await people(friends_server, 1))[0]
        r = await outsider.http.post(f"/api/tables/{tid}/rematch")
        assert r.status_code == 403 and r.json()["error"]["code"] == "not_seated"
        await outsider.aclose()
    finally:
        await close([a, b], friends_server)


async def test_rematch_times_out(friends_server: Server) -> None:
    a, b = await people(friends_server, 2)
    try:
        tid = await finished_table(a, b)
        missing = await a.http.post(f"/api/tables/{tid}x/rematch")
        assert missing.status_code == 404
        mark_b = len(b.frames)
        assert (await a.http.post(f"/api/tables/{tid}/rematch")).status_code == 200
        expired = await b.wait_frame(
            lambda f: f["type"] == "rematch" and f["state"] == "expired",
            since=mark_b,
            timeout=REMATCH_SECONDS + 5,
        )
        assert expired["waiting"] == [1]
        state = (await b.http.get(f"/api/tables/{tid}/rematch")).json()
        assert state["state"] == "expired" and state["new_table"] is None
    finally:
        await close([a, b], friends_server)


async def test_rematch_refused_before_the_end(friends_server: Server) -> None:
    a, b = await people(friends_server, 2)
    try:
        tid = await seated_table(a, b)
        r = await a.http.post(f"/api/tables/{tid}/rematch")
        assert r.status_code == 409 and r.json()["error"]["code"] == "game_not_finished"
    finally:
        await close([a, b], friends_server)


# ---------------------------------------------------------------- the lobby, live


async def test_games_in_play_are_pushed_to_the_lobby_live(friends_server: Server) -> None:
    a, b, lobby = await people(friends_server, 3)
    try:
        mark = await lobby.send({"type": "lobby"})
        first = await lobby.wait_frame(lambda f: f["type"] == "lobby", since=mark)
        assert isinstance(first["playing"], list)
        tid = await seated_table(a, b)
        shown = await lobby.wait_frame(
            lambda f: f["type"] == "lobby_playing" and f["table"]["id"] == tid, since=mark
        )
        assert shown["table"]["status"] == "playing"
        assert [s["user_id"] for s in shown["table"]["seats"]] == [a.id, b.id]
        for p in (a, b):
            assert (await p.http.post(f"/api/tables/{tid}/leave")).status_code == 200
        await lobby.wait_frame(
            lambda f: f["type"] == "lobby_playing_remove" and f["table"] == tid,
            since=mark,
            timeout=30,
        )
        online = (await lobby.http.get("/api/players/online")).json()
        assert lobby.id in {p["user_id"] for p in online}
    finally:
        await close([a, b, lobby], friends_server)


async def test_gift_from_the_seat_of_an_opponent_who_is_not_a_friend(
    friends_server: Server,
) -> None:
    a, b = await people(friends_server, 2)
    try:
        assert (await b.http.put("/api/me/language", json={"language": "it"})).status_code == 200
        tid = await seated_table(a, b)
        opponent = a.tables[tid].meta["seats"][1]["user_id"]  # the seat's menu: "Regalar"
        assert opponent == b.id
        mark = len(b.frames)
        r = await a.http.post("/api/gifts", json={"to_user_id": opponent, "sku": "emote_risa"})
        assert r.status_code == 201, r.text
        pushed = await b.wait_frame(
            lambda f: f["type"] == "notification" and f["kind"] == "gift", since=mark
        )
        assert pushed["text"] == f"{a.me['username']} ti ha mandato un regalo"
        gift_id = pushed["payload"]["gift_id"]
        assert (await b.http.post(f"/api/gifts/{gift_id}/accept")).status_code == 200
        things = (await b.http.get("/api/me/things")).json()
        assert "emote_risa" in {i["sku"] for i in things["items"]}
        mark = len(a.frames)
        await b.send({"type": "emote", "table": tid, "emote": "emote_risa"})  # now owned
        seen = await a.wait_frame(lambda f: f["type"] == "emote", since=mark)
        assert seen["user_id"] == b.id
    finally:
        await close([a, b], friends_server)


async def test_rematch_fails_cleanly_when_a_stake_cannot_be_held(
    friends_server: Server,
) -> None:
    a, b = await people(friends_server, 2)
    try:
        tid = await finished_table(a, b)
        # b spends what the new stake would need: the rematch cannot hold it.
        for sku in ("avatar_gafas", "felt_verde"):  # 43,000 - 40,000 < 7,000
            assert (await b.http.post("/api/shop/buy", json={"sku": sku})).status_code == 200
        coins_a = (await a.http.get("/api/wallet")).json()["coins"]
        assert (await a.http.post(f"/api/tables/{tid}/rematch")).status_code == 200
        r = await b.http.post(f"/api/tables/{tid}/rematch")
        assert r.status_code == 200 and r.json()["state"] == "failed", r.text
        assert r.json()["code"] == "insufficient_funds" and r.json()["new_table"] is None
        assert (await a.http.get("/api/wallet")).json()["coins"] == coins_a  # hold released
        again = await a.http.post(f"/api/tables/{tid}/rematch")
        assert again.json()["error"]["code"] == "rematch_closed"
    finally:
        await close([a, b], friends_server)


async def test_rematch_of_a_private_table_charges_its_credit_again(
    servers: list[Server],
) -> None:
    """On the shared servers (special tables open at level 1 there), across two
    processes: a private table's rematch is a new special table, its credit paid again."""
    a, b = await registered_pair(servers)
    try:
        table = await create_table(a, private=True, rules=SHORT_2P)
        tid = table["id"]
        r = await a.http.post(f"/api/tables/{tid}/invite", json={"usernames": [b.me["username"]]})
        assert r.status_code == 200, r.text
        await a.watch(tid)
        await b.watch(tid)
        await sit(b, tid, 1)
        for p in (a, b):
            await p.until(lambda p=p: p.tables[tid].status == "playing")
            assert (await p.http.post(f"/api/tables/{tid}/leave")).status_code == 200
        for p in (a, b):
            await p.until(lambda p=p: p.tables[tid].status == "finished", timeout=30)
        assert (await a.http.get("/api/wallet")).json()["credits"] == 4
        mark = len(a.frames)
        assert (await b.http.post(f"/api/tables/{tid}/rematch")).status_code == 200
        r = await a.http.post(f"/api/tables/{tid}/rematch")
        assert r.status_code == 200 and r.json()["state"] == "started", r.text
        new = r.json()["new_table"]
        snap = await b.watch(new)
        assert snap["meta"]["private"] is True and snap["meta"]["special"] is True
        assert snap["meta"]["host"] == a.id and b.id in snap["meta"]["invited"]
        await a.until(
            lambda: any(f["type"] == "wallet" and f["credits"] == 3 for f in a.frames[mark:])
        )
    finally:
        await a.aclose()
        await b.aclose()
    for s in servers:
        no_crash(s)


async def test_an_invitation_declined_from_its_toast(friends_server: Server) -> None:
    a, b, c = await people(friends_server, 3)
    try:
        tid = (await create_table(a, name="a ver"))["id"]
        mark = len(b.frames)
        r = await a.http.post(f"/api/tables/{tid}/invite", json={"usernames": [b.me["username"]]})
        assert r.status_code == 200, r.text
        invitation = await b.wait_frame(lambda f: f["type"] == "invitation", since=mark)
        assert invitation["table"]["id"] == tid and invitation["from"]["id"] == a.id
        mark = len(a.frames)
        r = await b.http.post(f"/api/tables/{tid}/invitation/decline")
        assert r.status_code == 200 and r.json()["declined"] is True, r.text
        told = await a.wait_frame(lambda f: f["type"] == "invitation_declined", since=mark)
        assert told["table"] == tid and told["by"]["id"] == b.id
        assert b.id not in (await a.http.get(f"/api/tables/{tid}")).json()["invited"]
        again = await b.http.post(f"/api/tables/{tid}/invitation/decline")
        assert again.status_code == 403 and again.json()["error"]["code"] == "not_invited"
        never = await c.http.post(f"/api/tables/{tid}/invitation/decline")
        assert never.status_code == 403
    finally:
        await close([a, b, c], friends_server)


async def test_a_declined_turbo_challenge_gives_its_credit_back(servers: list[Server]) -> None:
    """Turbo makes a challenge special (1 credit, held until the game starts): declining
    it gives the credit back. On the shared servers, where level 1 may open special
    tables."""
    a, b = await registered_pair(servers)
    try:
        r = await a.http.post("/api/challenges", json={"username": b.me["username"], "turbo": True})
        assert r.status_code == 201 and r.json()["special"] is True, r.text
        assert (await a.http.get("/api/wallet")).json()["credits"] == 4
        r = await b.http.post(f"/api/challenges/{r.json()['id']}/decline")
        assert r.status_code == 200, r.text
        notes = (await b.http.get("/api/notifications")).json()
        assert [n["read"] for n in notes["items"] if n["kind"] == "challenge"] == [True]
        wallet = (await a.http.get("/api/wallet")).json()
        assert (wallet["credits"], wallet["coins"]) == (5, 50_000)
    finally:
        await a.aclose()
        await b.aclose()


async def test_rematch_offered_by_both_at_once_opens_one_table(friends_server: Server) -> None:
    a, b = await people(friends_server, 2)
    try:
        tid = await finished_table(a, b)
        answers = await asyncio.gather(
            *(p.http.post(f"/api/tables/{tid}/rematch") for _ in range(10) for p in (a, b))
        )
        assert all(r.status_code == 200 for r in answers), [r.text for r in answers]
        final = (await a.http.get(f"/api/tables/{tid}/rematch")).json()
        assert final["state"] == "started" and final["accepted"] == [0, 1]
        news = {r.json()["new_table"] for r in answers} - {None}
        assert news == {final["new_table"]}
        coins = (await a.http.get("/api/wallet")).json()["coins"]
        assert coins == 50_000 - 2 * 7_000  # the first game's stake, and one new one
    finally:
        await close([a, b], friends_server)
