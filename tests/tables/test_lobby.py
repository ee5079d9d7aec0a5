"""Finding each other: quick play pairs two players; a challenge is accepted or declined,
and the challenger and the challenged learn of it over their WebSockets at once."""

from __future__ import annotations

import asyncio
import secrets

import redis

from app.social.presence import PRESENCE_KEY
from tests.tables.harness import Player, Server, create_table


async def test_quick_play_pairs_two_players(servers: list[Server]) -> None:
    a, b = await Player.guest(servers[0].base), await Player.guest(servers[1].base)
    try:
        await a.connect(servers[0].ws_url)
        await b.connect(servers[1].ws_url)
        # A modality nobody else uses here, so no table of another test is joined.
        body = {"preset": "burako", "players": 2}
        r = await a.http.post("/api/quickplay", json=body)
        assert r.status_code == 200, r.text
        table = r.json()
        assert table["status"] == "waiting" and table["kind"] == "quick"
        await a.watch(table["id"])
        listed = (await b.http.get("/api/tables", params={"preset": "burako"})).json()
        assert table["id"] in [t["id"] for t in listed["tables"]]
        r = await b.http.post("/api/quickplay", json=body)
        assert r.status_code == 200, r.text
        joined = r.json()
        assert joined["id"] == table["id"]
        assert joined["status"] == "playing"
        assert {s["user_id"] for s in joined["seats"]} == {a.id, b.id}
        await a.until(lambda: a.tables[table["id"]].status == "playing")
        snap = await b.watch(table["id"])
        assert snap["type"] == "snapshot" and snap["seat"] == 1
        assert len(snap["game"]["hand"]) == snap["game"]["hand_sizes"][1]
        listed = (await b.http.get("/api/tables", params={"preset": "burako"})).json()
        assert table["id"] not in [t["id"] for t in listed["tables"]]
    finally:
        await a.aclose()
        await b.aclose()


async def test_quick_play_fills_with_bots_after_the_chosen_wait(servers: list[Server]) -> None:
    a = await Player.guest(servers[0].base)
    try:
        await a.connect(servers[0].ws_url)
        r = await a.http.post(
            "/api/quickplay", json={"preset": "burraco", "players": 4, "bots_after_seconds": 0.5}
        )
        assert r.status_code == 200, r.text
        tid = r.json()["id"]
        await a.watch(tid)
        await a.until(lambda: a.tables[tid].status == "playing", timeout=10)
        seats = a.tables[tid].meta["seats"]
        assert sum(1 for s in seats if s["bot"]) == 3
    finally:
        await a.aclose()


async def test_quick_play_fills_with_bots_at_once_when_nobody_else_is_online(
    servers: list[Server], redis_sync: redis.Redis
) -> None:
    """The wait is for a player who might come: alone online, the bots sit at once; with
    someone else online the chosen wait applies."""
    a, b = await Player.guest(servers[0].base), await Player.guest(servers[1].base)
    try:
        await a.connect(servers[0].ws_url)
        redis_sync.delete(PRESENCE_KEY)  # players of earlier tests count as online
        mark = await a.send({"type": "ping"})  # a counts as online again
        await a.wait_frame(lambda f: f["type"] == "pong", since=mark)
        body = {"preset": "burraco", "players": 2, "bots_after_seconds": 60}
        r = await a.http.post("/api/quickplay", json=body)
        assert r.status_code == 200, r.text
        tid = r.json()["id"]
        await a.watch(tid)
        await a.until(lambda: a.tables[tid].status == "playing", timeout=5)
        await b.connect(servers[1].ws_url)  # now someone else is online: a real wait
        r = await b.http.post("/api/quickplay", json={**body, "preset": "abierto"})
        assert r.status_code == 200, r.text
        await asyncio.sleep(1.5)
        r = await b.http.get(f"/api/tables/{r.json()['id']}")
        assert r.status_code == 200 and r.json()["status"] == "waiting", r.text
    finally:
        await a.aclose()
        await b.aclose()


async def registered_pair(servers: list[Server]) -> tuple[Player, Player]:
    tag = secrets.token_hex(3)
    a = await Player.registered(servers[0].base, f"ch_a_{tag}")
    b = await Player.registered(servers[1].base, f"ch_b_{tag}")
    await a.connect(servers[0].ws_url)
    await b.connect(servers[1].ws_url)
    return a, b


async def test_challenge_accepted(servers: list[Server]) -> None:
    a, b = await registered_pair(servers)
    outsider = await Player.guest(servers[0].base)
    try:
        mark_b = len(b.frames)
        r = await a.http.post("/api/challenges", json={"username": b.me["username"]})
        assert r.status_code == 201, r.text
        table = r.json()
        assert table["private"] is True and table["kind"] == "challenge"
        challenge = await b.wait_frame(lambda f: f["type"] == "challenge", since=mark_b, timeout=3)
        assert challenge["table"]["id"] == table["id"]
        assert challenge["from"] == {"id": a.id, "name": a.me["username"]}
        # Private: not in the lobby, not for others to accept or watch.
        listed = (await outsider.http.get("/api/tables")).json()["tables"]
        assert table["id"] not in [t["id"] for t in listed]
        r = await outsider.http.post(f"/api/challenges/{table['id']}/accept")
        assert r.status_code == 403 and r.json()["error"]["code"] == "not_challenged"
        mark_a = len(a.frames)
        r = await b.http.post(f"/api/challenges/{table['id']}/accept")
        assert r.status_code == 200, r.text
        accepted = await a.wait_frame(
            lambda f: f["type"] == "challenge_accepted", since=mark_a, timeout=3
        )
        assert accepted["table"] == table["id"] and accepted["by"]["id"] == b.id
        snap = await b.watch(table["id"])
        assert snap["type"] == "snapshot" and snap["meta"]["status"] == "playing"
        assert snap["seat"] == 1
    finally:
        for p in (a, b, outsider):
            await p.aclose()


async def test_challenge_declined(servers: list[Server]) -> None:
    a, b = await registered_pair(servers)
    try:
        mark_b = len(b.frames)
        r = await a.http.post(
            "/api/challenges", json={"username": b.me["username"], "preset": "abierto"}
        )
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        await b.wait_frame(lambda f: f["type"] == "challenge", since=mark_b, timeout=3)
        mark_a = len(a.frames)
        r = await b.http.post(f"/api/challenges/{tid}/decline")
        assert r.status_code == 200 and r.json()["declined"] is True, r.text
        declined = await a.wait_frame(
            lambda f: f["type"] == "challenge_declined", since=mark_a, timeout=3
        )
        assert declined["table"] == tid and declined["by"]["id"] == b.id
        r = await b.http.post(f"/api/challenges/{tid}/accept")
        assert r.status_code == 409, r.text
        table = (await a.http.get(f"/api/tables/{tid}")).json()
        assert table["status"] == "closed" and table["close_reason"] == "declined"
    finally:
        await a.aclose()
        await b.aclose()


async def test_simultaneous_quick_plays_meet_at_one_table(servers: list[Server]) -> None:
    """Two quick plays of the same modality at the same moment, on two processes: one
    opens the table and the other sits at it (the search and the creation are atomic)."""
    a, b = await Player.guest(servers[0].base), await Player.guest(servers[1].base)
    try:
        body = {"preset": "brasil", "players": 2}  # a modality no other test plays quick
        ra, rb = await asyncio.gather(
            a.http.post("/api/quickplay", json=body), b.http.post("/api/quickplay", json=body)
        )
        assert ra.status_code == 200, ra.text
        assert rb.status_code == 200, rb.text
        assert ra.json()["id"] == rb.json()["id"]
        seated = (await a.http.get(f"/api/tables/{ra.json()['id']}")).json()
        assert {s["user_id"] for s in seated["seats"]} == {a.id, b.id}
    finally:
        await a.aclose()
        await b.aclose()


async def test_games_in_progress_are_listed_for_spectators(servers: list[Server]) -> None:
    a = await Player.guest(servers[0].base)
    b = await Player.guest(servers[1].base)
    try:
        await a.connect(servers[0].ws_url)
        await b.connect(servers[1].ws_url)
        r = await a.http.post(
            "/api/quickplay", json={"preset": "cerrado", "players": 2, "bots_after_seconds": 0}
        )
        tid = r.json()["id"]
        await a.watch(tid)
        await a.until(lambda: a.tables[tid].status == "playing", timeout=10)
        waiting = (await b.http.get("/api/tables")).json()["tables"]
        assert tid not in [t["id"] for t in waiting]
        playing = (await b.http.get("/api/tables", params={"status": "playing"})).json()
        assert tid in [t["id"] for t in playing["tables"]]
        snapshot = await b.watch(tid)
        assert snapshot["type"] == "snapshot" and snapshot["seat"] is None
        assert snapshot["game"]["hand"] is None  # a spectator sees no hand
        bad = await b.http.get("/api/tables", params={"status": "finished"})
        assert bad.status_code == 422
    finally:
        await a.aclose()
        await b.aclose()


async def test_bots_carry_the_chosen_strength(servers: list[Server]) -> None:
    """Quick play and "fill with bots" take ``bot_strength`` (default normal); every bot
    seat in the meta sent to clients carries it; a bad value is a 422 naming the field."""
    a = await Player.guest(servers[0].base)
    try:
        await a.connect(servers[0].ws_url)
        bad = await a.http.post(
            "/api/quickplay", json={"preset": "cerrado", "players": 4, "bot_strength": "godlike"}
        )
        error = bad.json()["error"]
        assert bad.status_code == 422 and error["code"] == "validation_error"
        assert "bot_strength" in error["message"] and "'strong'" in error["message"]
        r = await a.http.post(
            "/api/quickplay",
            json={
                "preset": "burraco",
                "players": 2,
                "bots_after_seconds": 0,
                "bot_strength": "easy",
            },
        )
        assert r.status_code == 200, r.text
        tid = r.json()["id"]
        await a.watch(tid)
        await a.until(lambda: a.tables[tid].status == "playing", timeout=10)
        seats = a.tables[tid].meta["seats"]
        assert [s["bot_strength"] for s in seats if s["bot"]] == ["easy"]
        assert [s["bot_strength"] for s in seats if not s["bot"]] == [None]
        await a.http.post(f"/api/tables/{tid}/leave")

        table = await create_table(a, preset="cerrado", players=4)
        for body, code in (({"bot_strength": "hard"}, 422), ({"strength": "easy"}, 422)):
            r = await a.http.post(f"/api/tables/{table['id']}/bots", json=body)
            assert r.status_code == code, r.text
        r = await a.http.post(f"/api/tables/{table['id']}/bots", json={"bot_strength": "strong"})
        assert r.status_code == 200, r.text
        assert [s["bot_strength"] for s in r.json()["seats"] if s["bot"]] == ["strong"] * 3
        await a.http.post(f"/api/tables/{table['id']}/leave")

        table = await create_table(a, preset="cerrado", players=2)
        r = await a.http.post(f"/api/tables/{table['id']}/bots")  # no body: normal
        assert r.status_code == 200, r.text
        assert [s["bot_strength"] for s in r.json()["seats"] if s["bot"]] == ["normal"]
        await a.http.post(f"/api/tables/{table['id']}/leave")
    finally:
        await a.aclose()
