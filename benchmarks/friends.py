"""Playing with friends, timed on a real uvicorn process:
``python benchmarks/friends.py [--emotes N] [--rematches R]``.

Needs PostgreSQL on 127.0.0.1:5432 with an account that may create databases
(``BURACO_BENCH_DATABASE_URL`` names the scratch database, default
``postgresql+asyncpg://postgres@127.0.0.1:5432/buraco_bench_friends``) and redis-server
installed. Creates that scratch database (dropped afterwards) and migrates it, starts a
private redis-server on a free port (stopped afterwards), then measures:

- emote latency: from a player's ``emote`` frame to the moment both the opponent and a
  spectator have the ``emote`` frame (p50, p99 over N emotes, one every 20 ms);
- rematch: from the last player's yes (``POST /api/tables/{id}/rematch``) to the moment
  the other player has the ``started`` push, and to the new game's first dealt hand on
  its socket (p50 and max over R rematches; each rematch is the previous game replayed,
  so the stakes are held and escrowed again every time).

The last line is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from loadbench.servers import start_redis  # noqa: E402  (benchmarks/, beside this file)
from scratch import create_database, drop_database  # noqa: E402

from tests.support import run_alembic  # noqa: E402
from tests.tables.harness import Player, Server, create_table, sit, start_servers  # noqa: E402

PG = os.environ.get(
    "BURACO_BENCH_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/buraco_bench_friends"
)
WHO = "benchmarks/friends.py"
RULES = {"hand_size": 20, "muerto_size": 11, "stock_end": 20}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def emotes(server: Server, n: int) -> dict[str, float]:
    players = [await Player.guest(server.base) for _ in range(3)]
    a_, b_, w_ = players
    for p in players:
        await p.connect(server.ws_url)
    tid = (await create_table(a_, name="bench", rules=RULES))["id"]
    await a_.watch(tid)
    await b_.watch(tid)
    await sit(b_, tid, 1)
    await w_.watch(tid)
    lat = []
    for i in range(n):
        mb, mw = len(b_.frames), len(w_.frames)
        await a_.send({"type": "emote", "table": tid, "emote": "basic_hola"})
        t0 = time.perf_counter()  # after the harness's own pacing (18 frames/s)
        for p, mark in ((b_, mb), (w_, mw)):
            await p.wait_frame(lambda f: f["type"] == "emote", since=mark)
        lat.append((time.perf_counter() - t0) * 1000)
        await asyncio.sleep(0.02)
        if i % 50 == 49:
            await asyncio.sleep(0.5)  # stay under the per-socket message rate
    for p in players:
        await p.aclose()
    return {
        "emote_p50_ms": round(statistics.median(lat), 2),
        "emote_p99_ms": round(pct(lat, 0.99), 2),
    }


async def rematches(server: Server, r: int) -> dict[str, float]:
    a, b = await Player.guest(server.base), await Player.guest(server.base)
    for p in (a, b):
        await p.connect(server.ws_url)
    tid = (await create_table(a, name="bench", rules=RULES))["id"]
    for p in (a, b):
        await p.watch(tid)
    await sit(b, tid, 1)
    pushed, dealt = [], []
    for _ in range(r):
        for p in (a, b):
            await p.until(lambda p=p, t=tid: p.tables[t].status == "playing")
            await p.http.post(f"/api/tables/{tid}/leave")
        for p in (a, b):
            await p.until(lambda p=p, t=tid: p.tables[t].status == "finished", timeout=60)
        await a.http.post(f"/api/tables/{tid}/rematch")
        mark = len(a.frames)
        t0 = time.perf_counter()
        answer = (await b.http.post(f"/api/tables/{tid}/rematch")).json()
        await a.wait_frame(lambda f: f["type"] == "rematch" and f["state"] == "started", since=mark)
        pushed.append((time.perf_counter() - t0) * 1000)
        tid = answer["new_table"]
        await a.watch(tid)
        await a.until(lambda t=tid: a.tables[t].phase == "draw" or a.tables[t].over)
        dealt.append((time.perf_counter() - t0) * 1000)
        await b.watch(tid)
    for p in (a, b):
        await p.aclose()
    return {
        "rematch_started_p50_ms": round(statistics.median(pushed), 1),
        "rematch_started_max_ms": round(max(pushed), 1),
        "rematch_dealt_p50_ms": round(statistics.median(dealt), 1),
        "rematch_dealt_max_ms": round(max(dealt), 1),
    }


async def main(args: argparse.Namespace) -> dict[str, float]:
    await create_database(PG, WHO)
    var = Path(tempfile.mkdtemp(prefix="friends-bench-"))
    redis_proc, redis_url, redis_dir = start_redis(var)
    try:
        run_alembic(PG, "upgrade", "head")
        server = start_servers(
            1,
            PG,
            redis_url,
            var,
            turn_seconds=300,
            turbo_turn_seconds=300,
            disconnect_grace_seconds=300,
            emote_limit=100_000,
            emote_window_seconds=1,
        )[0]
        try:
            out = await emotes(server, args.emotes)
            out.update(await rematches(server, args.rematches))
            return out
        finally:
            server.stop()
    finally:
        redis_proc.terminate()
        redis_proc.wait()
        for folder in (redis_dir, var):
            shutil.rmtree(folder, ignore_errors=True)
        await drop_database(PG, WHO)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--emotes", type=int, default=200)
    parser.add_argument("--rematches", type=int, default=5)
    result = asyncio.run(main(parser.parse_args()))
    for key, value in result.items():
        print(f"{key:>26}: {value}")
    print(json.dumps(result))
