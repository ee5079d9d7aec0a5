"""A block keeps hiding chat and emotes after Redis is flushed, on a real uvicorn
process: the live filter (chat:hidden:*) is restored from Postgres, for a chat message
or an emote before it is published and for everything else by each process's check of
its marker."""

from __future__ import annotations

import asyncio
import secrets
import time
from pathlib import Path

import redis

from app.social.hidden import READY_KEY
from app.social.presence import hidden_key
from tests.tables.conftest import LONG
from tests.tables.harness import Player, close_all, create_table, sit, start_servers


def _name(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(3)}"


async def test_a_flush_does_not_bring_blocked_chat_back(
    pg_url: str, ops_redis: str, var: Path
) -> None:
    servers = start_servers(1, pg_url, ops_redis, var, hidden_check_seconds=0.2)
    base, ws_url = servers[0].base, servers[0].ws_url
    store = redis.Redis.from_url(ops_redis)
    people: list[Player] = []
    try:
        ana, bea, cris = [await Player.registered(base, _name(p)) for p in ("ana", "bea", "cris")]
        people = [ana, bea, cris]
        a, b = ana.me["id"], bea.me["id"]
        assert (await ana.http.post("/api/blocks", json={"user_id": b})).status_code == 204
        for p in (ana, cris):
            await p.connect(ws_url)
            await p.send({"type": "lobby"})
            await p.wait_frame(lambda f: f["type"] == "lobby")

        for round_ in range(2):
            store.flushdb()
            assert not store.exists(hidden_key(a))
            text = f"tras el vaciado {round_}"
            assert (await bea.http.post("/api/chat/lobby", json={"text": text})).status_code == 201
            # Cris (not blocked) gets it; Ana, who blocked Bea, never does.
            await cris.wait_frame(lambda f, t=text: f.get("text") == t)
            await asyncio.sleep(0.3)
            assert not [f for f in ana.frames if f.get("text") == text]
            # The whole filter comes back within a few checks, both ways.
            deadline = time.monotonic() + 5
            while not store.exists(READY_KEY) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert store.sismember(hidden_key(a), str(b))
            assert store.sismember(hidden_key(b), str(a))
        # Ana's own chat still reaches Cris.
        assert (await ana.http.post("/api/chat/lobby", json={"text": "hola"})).status_code == 201
        await cris.wait_frame(lambda f: f.get("text") == "hola")
    finally:
        store.close()
        await close_all(people, servers)


async def test_a_flush_does_not_bring_a_blocked_players_emotes_back(
    pg_url: str, ops_redis: str, var: Path
) -> None:
    # The marker check is a minute away: only the emote's own restore can hide it.
    servers = start_servers(1, pg_url, ops_redis, var, hidden_check_seconds=60, **LONG)
    base, ws_url = servers[0].base, servers[0].ws_url
    store = redis.Redis.from_url(ops_redis)
    people: list[Player] = []
    try:
        ana, bea, cris = [await Player.registered(base, _name(p)) for p in ("ana", "bea", "cris")]
        people = [ana, bea, cris]
        for p in people:
            await p.connect(ws_url)
        rules = {"hand_size": 20, "muerto_size": 11, "stock_end": 20}
        tid = (await create_table(ana, name="emotes", rules=rules))["id"]
        for p in people:
            await p.watch(tid)
        await sit(bea, tid, 1)
        await ana.until(lambda: ana.tables[tid].status == "playing")
        # Cris watches and blocks Ana; then Redis loses the filter.
        assert (
            await cris.http.post("/api/blocks", json={"user_id": ana.me["id"]})
        ).status_code == 204
        store.flushdb()
        assert not store.exists(hidden_key(cris.me["id"]))
        mark_b, mark_c = len(bea.frames), len(cris.frames)
        await ana.send({"type": "emote", "table": tid, "emote": "basic_hola"})
        await bea.send({"type": "emote", "table": tid, "emote": "basic_uy"})
        await bea.wait_frame(lambda f: f.get("emote") == "basic_hola", since=mark_b)
        # Bea's emote went out after Ana's: once Cris has it, Ana's would be in too.
        await cris.wait_frame(lambda f: f.get("emote") == "basic_uy", since=mark_c)
        assert not [f for f in cris.frames[mark_c:] if f.get("emote") == "basic_hola"]
    finally:
        store.close()
        await close_all(people, servers)
