"""1,000+ hostile frames against a real process in the middle of a game: malformed JSON,
unknown types, oversized frames, floods, commands for another seat, out of turn, for
unknown, private or finished tables, replayed command ids, bad cards; plus tables created
with impossible options over REST. Every one gets an error frame with a stable code (or
a closed socket: 1009 too big, 1008 flooding or refused), the table's version in Redis
never moves, and the processes go on serving."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import orjson
import pytest
import redis
import websockets

from app.tables.storage.store import k_cids, k_hash, k_log
from tests.tables.conftest import no_crash
from tests.tables.harness import ORIGIN, Player, Server, create_table
from tests.tables.test_games import SHORT_2P, seat_players

ERROR_CODES = {
    "bad_json",
    "bad_message",
    "bad_card",
    "table_not_found",
    "table_not_playing",
    "not_seated",
    "not_your_turn",
    "must_draw_first",
    "not_invited",
    "card_not_in_hand",
    "rate_limited",
}


def v_of(r: redis.Redis, tid: str) -> tuple[int, int, int]:
    return (int(r.hget(k_hash(tid), "v") or 0), r.hlen(k_cids(tid)), r.llen(k_log(tid)))


def garbage(tid: str, finished: str, private: str) -> list[str | dict[str, Any]]:
    """Frames anyone may send: none may change anything."""
    cmd = {"type": "command", "table": tid, "cid": "h1", "command": {"type": "draw"}}
    return [
        "{",
        "nul",
        "[]",
        "42",
        '"text"',
        '{"type": }',
        "\x00\x01",
        "{" * 3000,
        "[" * 2000 + "]" * 2000,
        '{"type": "ping", "type": "explode"}',
        {"type": "explode"},
        {"type": "command"},
        {"type": None},
        {"nope": 1},
        {**cmd, "seat": 0},
        {**cmd, "table": "../../etc"},
        {**cmd, "cid": "bad cid!"},
        {**cmd, "cid": "x" * 65},
        {**cmd, "command": {"type": "shuffle"}},
        {**cmd, "command": {"type": "take_discard", "depth": 500}},
        {**cmd, "command": {"type": "add", "team": 9, "meld": 0, "cards": ["AS"]}},
        {**cmd, "command": {"type": "meld", "cards": []}},
        {**cmd, "command": {"type": "meld", "cards": ["AS"] * 40}},
        {**cmd, "table": "nosuchtable1"},
        {**cmd, "table": finished},
        {**cmd, "table": private},
        {"type": "watch", "table": private},
        {"type": "watch", "table": "nosuchtable1"},
        {"type": "watch", "table": tid, "last_v": -5},
        {"type": "legal", "table": "nosuchtable1"},
        {"type": "legal", "table": finished},
        {"type": "leave", "table": "nosuchtable1"},
        {"type": "unwatch", "table": "a" * 100},
        {"type": "lobby", "on": "maybe"},
    ]


def as_text(frame: str | dict[str, Any]) -> str:
    return frame if isinstance(frame, str) else orjson.dumps(frame).decode()


async def hostile_socket(
    player: Player, server: Server, frames: list[str | dict[str, Any]], replay: dict[str, int]
) -> tuple[int, list[dict[str, Any]]]:
    """Send ``frames`` (paced under the limit) on a new socket; return how many were sent
    and the replies. ``replay`` maps replayed command ids to the version they made."""
    tab = player.tab()
    await tab.connect(server.ws_url)
    start = len(tab.frames)
    for frame in frames:
        await tab.send(as_text(frame))
    await tab.send({"type": "ping"})  # answered in order: everything before is answered
    await tab.wait_frame(lambda f: f["type"] == "pong", since=start, timeout=20)
    replies = [f for f in tab.frames[start:] if f["type"] in ("error", "ack")]
    await tab.disconnect()
    for reply in replies:
        if reply["type"] == "ack":
            assert reply["cid"] in replay and reply["v"] == replay[reply["cid"]], reply
        else:
            assert reply["code"] in ERROR_CODES, reply
            assert reply["message"]
    assert len(replies) == len(frames), (len(replies), len(frames), replies[-3:])
    return len(frames), replies


async def expect_close(
    server: Server, player: Player, payloads: list[str | bytes], pace: float = 0.0
) -> int | None:
    ws = await websockets.connect(
        server.ws_url,
        additional_headers={"Cookie": f"buraco_session={player.cookie}", "Origin": ORIGIN},
        ping_interval=None,
    )
    codes: list[str] = []
    try:
        for payload in payloads:
            await ws.send(payload)
            if pace:
                await asyncio.sleep(pace)
        while True:
            reply = orjson.loads(await asyncio.wait_for(ws.recv(), 10))
            codes.append(reply.get("code", reply["type"]))
    except websockets.ConnectionClosed:
        pass
    if payloads and len(payloads) > 50:
        assert "rate_limited" in codes
    return ws.close_code


async def finished_table(server: Server) -> str:
    host = await Player.guest(server.base)
    try:
        table = await create_table(host, preset="abierto", players=2, rules=SHORT_2P)
        tid = table["id"]
        assert (await host.http.post(f"/api/tables/{tid}/bots")).status_code == 200
        assert (await host.http.post(f"/api/tables/{tid}/leave")).status_code == 200
        for _ in range(200):
            meta = (await host.http.get(f"/api/tables/{tid}")).json()
            if meta["status"] == "finished":
                return tid
            await asyncio.sleep(0.1)
        raise AssertionError("the bots never finished")
    finally:
        await host.aclose()


IMPOSSIBLE: list[dict[str, Any]] = [
    {"rules": {"hand_size": 50}},
    {"rules": {"muertos": 3}},
    {"rules": {"nonsense": 1}},
    {"rules": {"discard_pile": "sideways"}},
    {"rules": {"hand_size": "big"}},
    {"players": 4, "rules": {"hand_size": 20, "muerto_size": 20}},
    {"preset": "poker"},
    {"players": 3},
    {"players": 5},
    {"bet": 5},
    {"target_score": -1},
    {"rules": {"jokers": 2}},
    {"rules": {"group_max": 2}},
    {"seat": 7},
    {"rules": []},
    {"name": "x" * 500},
    {"surprise": True},
]


async def test_a_thousand_hostile_frames_change_nothing(
    servers: list[Server], redis_sync: redis.Redis
) -> None:
    tid, people = await seat_players(servers, "cerrado", 2, SHORT_2P)
    outsider = await Player.guest(servers[0].base)
    closed_table = await finished_table(servers[1])
    private_host = await Player.guest(servers[0].base)
    private = (await create_table(private_host, private=True))["id"]
    try:
        # One real turn, so that its command ids can be replayed.
        t = people[0].tables[tid]
        waiter = people[t.turn]
        drew = await waiter.command(tid, {"type": "draw"}, cid="real-1")
        await waiter.until(lambda: waiter.tables[tid].v >= drew["v"])
        card = sorted(waiter.tables[tid].hand)[0]
        threw = await waiter.command(tid, {"type": "discard", "card": card}, cid="real-2")
        assert drew["type"] == threw["type"] == "ack"
        replay = {"real-1": drew["v"], "real-2": threw["v"]}
        mover = next(p for p in people if p is not waiter)
        await mover.until(lambda: mover.tables[tid].v >= threw["v"])
        assert mover.tables[tid].my_turn() and mover.tables[tid].phase == "draw"
        hand = sorted(mover.tables[tid].hand)

        before = {x: v_of(redis_sync, x) for x in (tid, closed_table, private)}
        common = garbage(tid, closed_table, private)
        cmd = {"type": "command", "table": tid}
        out_of_turn = [
            {**cmd, "cid": f"w{i}", "command": c}
            for i, c in enumerate(
                [
                    {"type": "draw"},
                    {"type": "discard", "card": "AS"},
                    {"type": "take_discard", "meld": ["AS", "AS"]},
                    {"type": "meld", "cards": ["3H", "4H", "5H"]},
                    {"type": "discard", "card": "ZZ"},
                    {"type": "draw"},
                    {"type": "draw"},
                ]
            )
        ] + [
            {**cmd, "cid": "real-1", "command": {"type": "draw"}},
            {**cmd, "cid": "real-2", "command": {"type": "discard", "card": card}},
        ]
        before_draw = [
            {**cmd, "cid": f"m{i}", "command": c}
            for i, c in enumerate(
                [
                    {"type": "discard", "card": hand[0]},
                    {"type": "meld", "cards": hand[:3]},
                    {"type": "add", "team": 0, "meld": 0, "cards": hand[:1]},
                    {"type": "discard", "card": "1X"},
                    {"type": "meld", "cards": ["QQ", "AS"]},
                ]
            )
        ]
        outsider_only = [
            {**cmd, "cid": "o1", "command": {"type": "draw"}},
            {"type": "legal", "table": tid},
            {"type": "leave", "table": tid},
            {"type": "watch", "table": private},
        ]
        plans = [
            (waiter, servers[0], common + out_of_turn),
            (waiter, servers[1], out_of_turn * 4 + common),
            (mover, servers[1], common + before_draw * 4),
            (mover, servers[0], before_draw * 3 + common),
            (outsider, servers[0], common + outsider_only * 5),
            (outsider, servers[1], outsider_only * 5 + common),
            (outsider, servers[0], common * 2),
            (outsider, servers[1], common * 2),
        ]
        results = await asyncio.gather(*(hostile_socket(p, s, f, replay) for p, s, f in plans))
        sent = sum(n for n, _ in results)
        acks = [r for _, replies in results for r in replies if r["type"] == "ack"]
        assert len(acks) == 10  # the replays, each answered with the version it made

        # Too big: 1009. Flooding: rate_limited errors, then 1008.
        big = "x" * (16 * 1024 + 1)
        closes = await asyncio.gather(
            expect_close(servers[0], outsider, [big]),
            expect_close(servers[1], waiter, [big.encode()]),
            expect_close(servers[0], mover, ['{"type": "ping", "pad": "' + "é" * 9000 + '"}']),
            expect_close(servers[1], outsider, [orjson.dumps({"type": "ping"}).decode()] * 400),
            expect_close(servers[0], waiter, [as_text(f) for f in out_of_turn] * 40),
        )
        assert closes == [1009, 1009, 1009, 1008, 1008], closes
        sent += 1 + 1 + 1 + 400 + len(out_of_turn) * 40

        # Refused sockets: a foreign Origin is accepted and closed at once with 4003 (so
        # the page can read why); no cookie is refused at the handshake.
        evil = {"Cookie": f"buraco_session={outsider.cookie}", "Origin": "http://evil.test"}
        async with websockets.connect(servers[0].ws_url, additional_headers=evil) as ws:
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 5)
            assert (ws.close_code, ws.close_reason) == (4003, "bad_origin")
        with pytest.raises(websockets.InvalidStatus):
            async with websockets.connect(servers[0].ws_url, additional_headers={"Origin": ORIGIN}):
                pass

        # Impossible tables over REST: 422 with a code, never a 500, nothing created.
        lobby_before = redis_sync.zcard("lobby:tables")
        for body in IMPOSSIBLE:
            r = await outsider.http.post("/api/tables", json=body)
            assert r.status_code == 422, (body, r.status_code, r.text)
            assert r.json()["error"]["code"], r.text
        assert redis_sync.zcard("lobby:tables") == lobby_before
        sent += len(IMPOSSIBLE)
        assert sent >= 1000, sent

        # Nothing moved: versions, command ids, streams.
        assert {x: v_of(redis_sync, x) for x in before} == before
        for p in people:
            assert p.problems == []
        # Still serving: both processes ready, and a normal move goes through.
        async with httpx.AsyncClient() as http:
            for s in servers:
                assert (await http.get(s.base + "/readyz")).status_code == 200
        ok = await mover.command(tid, {"type": "draw"})
        assert ok["type"] == "ack" and ok["v"] == before[tid][0] + 1, ok
        for s in servers:
            no_crash(s)
    finally:
        for p in [*people, outsider, private_host]:
            await p.aclose()
