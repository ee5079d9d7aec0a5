"""The commit's cost inside Redis: ``python benchmarks/commit.py [--tables N] [--hands H]``.

Needs redis-server installed: it starts a private one on a free port and stops it after.

It plays real hands (every seat a GreedyBot, Cerrado, 4 players) and commits every
command's records, and the new state when one is due (every ``--state-every``
versions: by default the server's own ``STATE_EVERY``), to a private redis-server
through the server's own ``TableStore.commit``, as a live table does, many tables at
once. Then it reads what
Redis itself counted: microseconds per commit script call (``INFO commandstats``, time
inside Redis only, so the client's speed and most of the machine's noise stay out of
it) and Redis memory per table (``MEMORY USAGE`` of every key, summed).

Human-readable lines first; the LAST line is one JSON object: ``{"tables": ...,
"commits": ..., "records_per_table": ..., "redis_us_per_commit": ...,
"redis_kib_per_table": ..., "state_every": ...}``.

Measured with ``--tables 1000 --hands 20`` (143 records a table, one hand each), runs
alternated: with each record also added to a capped stream beside the log (the code of
9fc668d^; 9fc668d, of 2026-12-03, removed the stream) 41.4, 42.2, 36.4 and 37.5 µs per
commit and 46.35 KiB per table; with the log alone 35.4, 36.0, 33.8 and 28.2 µs and
21.56 KiB (the first two pairs' memory was read as ``used_memory`` growth: 43.95 and
21.86 KiB).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
import redis

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from loadbench.servers import start_redis  # noqa: E402

from app.core.redis import close_redis, create_redis  # noqa: E402
from app.rules import commands as C  # noqa: E402
from app.rules.deal import random_deal  # noqa: E402
from app.rules.engine import apply  # noqa: E402
from app.rules.greedy import GreedyBot  # noqa: E402
from app.rules.ruleset import make_ruleset  # noqa: E402
from app.rules.serialize import state_to_dict  # noqa: E402
from app.rules.state import DRAW, PLAY, initial_state  # noqa: E402
from app.tables.play.service import game_records  # noqa: E402
from app.tables.storage.store import STATE_EVERY, TableStore  # noqa: E402


def hand(seed: int) -> list[tuple[list[dict[str, Any]], bytes]]:
    """One GreedyBot hand: each command's records and the state after it."""
    rules = make_ruleset("cerrado", 4)
    deal = random_deal(rules, first=seed % 4, rng=random.Random(seed))
    events, state = apply(initial_state(rules), C.SYSTEM, deal)
    steps = [(game_records(events), orjson.dumps(state_to_dict(state)))]
    bots = [GreedyBot() for _ in range(4)]
    while state.phase in (DRAW, PLAY) and len(steps) < 2_000:
        seat = state.turn
        events, state = apply(state, seat, bots[seat].choose(state, seat))
        steps.append((game_records(events), orjson.dumps(state_to_dict(state))))
    return steps


async def play(
    url: str, tables: int, hands: list[list[Any]], concurrency: int, state_every: int
) -> int:
    """Every table commits its hand's steps in order; ``concurrency`` tables at a time.
    The state goes with the first commit and with each that crosses a multiple of
    ``state_every`` versions, as ``TableService.mutate`` saves it during a hand."""
    client = create_redis(url, max_connections=concurrency)
    store = TableStore(client)
    commits = 0

    async def table(t: int) -> None:
        nonlocal commits
        v = 0
        for records, state in hands[t % len(hands)]:
            for i, r in enumerate(records):
                r["v"] = v + 1 + i
            due = v == 0 or (v + len(records)) // state_every != v // state_every
            v = await store.commit(f"b{t}", v, records, state=state if due else None, cid=f"c{v}")
            commits += 1

    sem = asyncio.Semaphore(concurrency)

    async def limited(t: int) -> None:
        async with sem:
            await table(t)

    await asyncio.gather(*(limited(t) for t in range(tables)))
    await close_redis(client)
    return commits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--hands", type=int, default=20, help="distinct hands, reused")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument(
        "--state-every",
        type=int,
        default=STATE_EVERY,
        help="save the state every this many versions (1: with every commit)",
    )
    args = parser.parse_args(argv)
    hands = [hand(seed) for seed in range(args.hands)]
    logs = Path(tempfile.mkdtemp(prefix="buraco-commit-"))
    proc, url, workdir = start_redis(logs)  # a private redis-server, nothing on disk
    try:
        r = redis.Redis.from_url(url)
        r.config_resetstat()
        t0 = time.perf_counter()
        commits = asyncio.run(play(url, args.tables, hands, args.concurrency, args.state_every))
        wall = time.perf_counter() - t0
        stats = r.info("commandstats")
        script = stats.get("cmdstat_evalsha") or stats.get("cmdstat_eval") or {}
        # What the tables' own keys take (MEMORY USAGE, every element counted), not the
        # server's buffers and caches, which do not grow with the tables.
        used = sum(int(r.memory_usage(k, samples=0) or 0) for k in r.scan_iter(count=1000))
        records = sum(len(recs) for h in hands for recs, _ in h) / len(hands)
    finally:
        proc.terminate()
        proc.wait()
        for folder in (workdir, logs):
            shutil.rmtree(folder, ignore_errors=True)
    out = {
        "tables": args.tables,
        "commits": commits,
        "records_per_table": round(records, 1),
        "redis_us_per_commit": round(float(script.get("usec_per_call", 0.0)), 2),
        "redis_kib_per_table": round(used / args.tables / 1024, 2),
        "state_every": args.state_every,
    }
    print(
        f"{commits} commits of {args.tables} tables ({records:.0f} records each) in "
        f"{wall:.1f} s: {out['redis_us_per_commit']} µs per commit inside Redis, "
        f"{out['redis_kib_per_table']} KiB of Redis per table"
    )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
