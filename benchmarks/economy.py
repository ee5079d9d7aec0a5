"""Economy benchmark on the real PostgreSQL (and Redis for the pushes).

    python benchmarks/economy.py [--games 2000] [--gifts 1000] [--connections 8]

Creates a scratch database (dropped afterwards), migrates it, then measures:

* settlements per second: 2-player games already escrowed are settled through
  ``EconomyTables.settle_game`` (each its own transaction: lock, pay, record results and
  XP, commit, push the wallets), ``--connections`` at a time;
* gift latency: ``gifts.send`` as the endpoint runs it (transaction, commit, pushes),
  one after another; p50 and p99.

The last line printed is one JSON object: {"settlements_per_s": ..., "gift_p99_ms": ...}.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

import asyncpg
from alembic import command
from alembic.config import Config
from redis.asyncio import Redis
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.core.config import Settings  # noqa: E402
from app.core.db import create_engine, create_sessionmaker  # noqa: E402
from app.economy import gifts  # noqa: E402
from app.economy.hooks import EconomyTables  # noqa: E402
from app.economy.notify import Notifier, Outbox  # noqa: E402
from app.social.models import Friendship  # noqa: E402
from app.tables.play.hooks import GameResult  # noqa: E402
from app.users.models import User  # noqa: E402

BASE_URL = os.environ.get(
    "BURACO_BENCH_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/buraco_bench_economy"
)
REDIS_URL = os.environ.get("BURACO_BENCH_REDIS_URL", "redis://127.0.0.1:6379/12")
BET = 6_000


def _dsn(database: str) -> str:
    return (
        make_url(BASE_URL)
        .set(drivername="postgresql", database=database)
        .render_as_string(hide_password=False)
    )


async def recreate(drop_only: bool = False) -> None:
    name = make_url(BASE_URL).database
    conn = await asyncpg.connect(_dsn("postgres"))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


def migrate() -> None:
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("sqlalchemy.url", BASE_URL)
    cfg.attributes["configure_logger"] = False
    command.upgrade(cfg, "head")


async def make_users(maker, n: int) -> list[int]:  # type: ignore[no-untyped-def]
    async with maker() as db:
        users = [
            User(username=f"b{i}", username_lower=f"b{i}", nickname=f"Bench{i}") for i in range(n)
        ]
        db.add_all(users)
        await db.commit()
        return [u.id for u in users]


async def bench_settlements(
    econ: EconomyTables, users: list[int], games: int, connections: int
) -> float:
    pairs = [
        (users[2 * (i % (len(users) // 2))], users[2 * (i % (len(users) // 2)) + 1])
        for i in range(games)
    ]
    for i, (a, b) in enumerate(pairs):  # setup, not timed
        for u in (a, b):
            await econ.reserve_seat(u, f"t{i}", BET)
        assert await econ.start_game(f"g{i}", f"t{i}", BET, [a, b]) == []
    # The setup just created thousands of rows in fresh tables: give the planner the
    # statistics autovacuum keeps on a live database (else it scans ``accounts``).
    async with econ.engine.connect() as conn:
        await conn.exec_driver_sql("ANALYZE")
    gate = asyncio.Semaphore(connections)

    async def settle(i: int, a: int, b: int) -> None:
        async with gate:
            await econ.settle_game(
                GameResult(
                    game_id=f"g{i}",
                    table_id=f"t{i}",
                    preset="abierto",
                    bet=BET,
                    teams={a: 0, b: 1},
                    abandoned=frozenset(),
                    winner_team=i % 2,
                    bots=0,
                )
            )

    start = time.perf_counter()
    await asyncio.gather(*(settle(i, a, b) for i, (a, b) in enumerate(pairs)))
    return games / (time.perf_counter() - start)


async def bench_gifts(
    maker,
    settings: Settings,
    notifier: Notifier,  # type: ignore[no-untyped-def]
    users: list[int],
    count: int,
) -> list[float]:
    a, b = users[-2], users[-1]
    async with maker() as db:
        db.add_all([Friendship(user_id=a, friend_id=b), Friendship(user_id=b, friend_id=a)])
        await db.commit()
    times = []
    for i in range(count):
        started = time.perf_counter()
        outbox = Outbox()
        async with maker() as db:
            sender = await db.get(User, a)
            order = gifts.GiftOrder(b, currency="coins", amount=1)
            await gifts.send(db, settings, outbox, sender, order, f"bench-{i}")
            await db.commit()
            await outbox.flush(db, notifier)
        times.append((time.perf_counter() - started) * 1000)
    return times


async def main(args: argparse.Namespace) -> dict[str, float]:
    await recreate()
    await asyncio.to_thread(migrate)
    settings = Settings(
        env="test", database_url=BASE_URL, redis_url=REDIS_URL, starting_coins=10**9
    )
    engine = create_engine(BASE_URL, pool_size=args.connections)
    maker = create_sessionmaker(engine)
    redis = Redis.from_url(REDIS_URL)
    notifier = Notifier(redis)
    econ = EconomyTables(maker, settings, notifier)
    try:
        users = await make_users(maker, 2 * args.connections * 4 + 2)
        rate = await bench_settlements(econ, users[:-2], args.games, args.connections)
        print(f"settlements: {args.games} over {args.connections} connections: {rate:,.0f}/s")
        times = await bench_gifts(maker, settings, notifier, users, args.gifts)
        p50 = statistics.median(times)
        p99 = statistics.quantiles(times, n=100)[98]
        print(f"gifts: {args.gifts} one after another: p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    finally:
        await redis.aclose()
        await engine.dispose()
        await recreate(drop_only=True)
    return {"settlements_per_s": round(rate, 1), "gift_p99_ms": round(p99, 2)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--gifts", type=int, default=1000)
    parser.add_argument("--connections", type=int, default=8)
    print(json.dumps(asyncio.run(main(parser.parse_args()))))
