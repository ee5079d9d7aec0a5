"""Economy benchmark on the real PostgreSQL (and Redis for the pushes).

    python benchmarks/economy.py [--games 2000] [--gifts 1000] [--connections 8]

Needs PostgreSQL on 127.0.0.1:5432 with an account that may create databases
(``BURACO_BENCH_DATABASE_URL`` names the scratch database, default
``postgresql+asyncpg://postgres@127.0.0.1:5432/buraco_bench_economy``) and redis-server
installed. Creates that scratch database (dropped afterwards) and migrates it, starts a
private redis-server on a free port for the pushes (stopped afterwards), then measures:

* settlements per second: 2-player games already escrowed are settled through
  ``EconomyTables.settle_game`` (each its own transaction: lock, pay, record results and
  XP, commit, push the wallets), ``--connections`` at a time; once between established
  players (the one-statement path, fastsettle.py), once with new accounts on the losing
  side (the chip-dumping checks' generic path, integrity.py);
* gift latency: ``gifts.send`` as the endpoint runs it (transaction, commit, pushes),
  one after another; p50 and p99. Only coins won at tables or received as gifts may be
  given (app/economy/giftable.py), so the sender first wins enough of them at tables
  against the recipient (settled games, not timed), as a player must.

The last line printed is one JSON object: {"settlements_per_s": ...,
"new_account_settlements_per_s": ..., "gift_p99_ms": ...}.
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
from datetime import timedelta
from pathlib import Path

from alembic import command
from alembic.config import Config
from redis.asyncio import Redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loadbench.servers import start_redis  # noqa: E402  (benchmarks/, beside this file)
from scratch import create_database, drop_database  # noqa: E402

from app.core.config import Settings  # noqa: E402
from app.core.db import create_engine, create_sessionmaker, utcnow  # noqa: E402
from app.economy import giftable, gifts, ledger  # noqa: E402
from app.economy.hooks import EconomyTables  # noqa: E402
from app.economy.notify import Notifier, Outbox  # noqa: E402
from app.social.models import Friendship  # noqa: E402
from app.tables.play.hooks import GameResult  # noqa: E402
from app.users.models import User  # noqa: E402

BASE_URL = os.environ.get(
    "BURACO_BENCH_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/buraco_bench_economy"
)
BET = 6_000
WHO = "benchmarks/economy.py"


def migrate() -> None:
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("sqlalchemy.url", BASE_URL)
    cfg.attributes["configure_logger"] = False
    command.upgrade(cfg, "head")


async def make_users(maker, n: int, tag: str, age_days: float = 0) -> list[int]:  # type: ignore[no-untyped-def]
    """``n`` registered players who signed up ``age_days`` ago."""
    born = utcnow() - timedelta(days=age_days)
    async with maker() as db:
        users = [
            User(
                username=f"{tag}{i}",
                username_lower=f"{tag}{i}",
                nickname=f"Bench{tag}{i}",
                created_at=born,
            )
            for i in range(n)
        ]
        db.add_all(users)
        await db.commit()
        return [u.id for u in users]


async def bench_settlements(
    econ: EconomyTables, users: list[int], games: int, connections: int, tag: str
) -> float:
    pairs = [
        (users[2 * (i % (len(users) // 2))], users[2 * (i % (len(users) // 2)) + 1])
        for i in range(games)
    ]
    for i, (a, b) in enumerate(pairs):  # setup, not timed
        for u in (a, b):
            await econ.reserve_seat(u, f"{tag}t{i}", BET)
        assert await econ.start_game(f"{tag}g{i}", f"{tag}t{i}", BET, [a, b]) == []
    # The setup just created thousands of rows in fresh tables: give the planner the
    # statistics autovacuum keeps on a live database (else it scans ``accounts``).
    async with econ.engine.connect() as conn:
        await conn.exec_driver_sql("ANALYZE")
    gate = asyncio.Semaphore(connections)

    async def settle(i: int, a: int, b: int) -> None:
        async with gate:
            await econ.settle_game(game(f"{tag}g{i}", f"{tag}t{i}", {a: 0, b: 1}, i % 2))

    start = time.perf_counter()
    await asyncio.gather(*(settle(i, a, b) for i, (a, b) in enumerate(pairs)))
    return games / (time.perf_counter() - start)


def game(game_id: str, table_id: str, teams: dict[int, int], winner_team: int) -> GameResult:
    return GameResult(
        game_id=game_id,
        table_id=table_id,
        preset="abierto",
        bet=BET,
        teams=teams,
        abandoned=frozenset(),
        winner_team=winner_team,
        bots=0,
    )


async def giftable_coins(maker, user_id: int) -> int:  # type: ignore[no-untyped-def]
    """What the anti-farming policy lets ``user_id`` give away now."""
    async with maker() as db:
        w = ledger.wallet(user_id, "coins")
        locked = await ledger.lock(db, [w.key])  # none yet: no wallet, nothing won
        allowed = await giftable.allowance(db, locked[w.key]) if locked else 0
        await db.rollback()
        return allowed


async def win_coins(econ: EconomyTables, winner: int, loser: int, amount: int) -> int:
    """``winner`` beats ``loser`` at tables until it may give ``amount`` coins: how many
    games that took."""
    games, before = 0, -1
    while (allowed := await giftable_coins(econ.sessionmaker, winner)) < amount:
        if allowed <= before:
            raise SystemExit(f"economy.py: winning a game left {allowed} coins giftable")
        before = allowed
        for u in (winner, loser):
            await econ.reserve_seat(u, f"gift-t{games}", BET)
        assert await econ.start_game(f"gift-g{games}", f"gift-t{games}", BET, [winner, loser]) == []
        await econ.settle_game(game(f"gift-g{games}", f"gift-t{games}", {winner: 0, loser: 1}, 0))
        games += 1
    return games


async def bench_gifts(
    econ: EconomyTables,
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
    won = await win_coins(econ, a, b, count)  # one coin per gift
    print(f"gifts: the sender won {won} game(s) at {BET:,} coins to have {count} giftable")
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
    await create_database(BASE_URL, WHO)
    logs = Path(tempfile.mkdtemp(prefix="buraco-economy-"))
    redis_proc, redis_url, redis_dir = start_redis(logs)
    try:
        return await measure(args, redis_url)
    finally:
        redis_proc.terminate()
        redis_proc.wait()
        for folder in (redis_dir, logs):
            shutil.rmtree(folder, ignore_errors=True)
        await drop_database(BASE_URL, WHO)


async def measure(args: argparse.Namespace, redis_url: str) -> dict[str, float]:
    await asyncio.to_thread(migrate)
    settings = Settings(
        env="test", database_url=BASE_URL, redis_url=redis_url, starting_coins=10**9
    )
    engine = create_engine(BASE_URL, pool_size=args.connections)
    maker = create_sessionmaker(engine)
    redis = Redis.from_url(redis_url)
    notifier = Notifier(redis)
    econ = EconomyTables(maker, settings, notifier)
    try:
        per_side = 2 * args.connections * 4
        # Players past the new-account window: the one-statement settlement (fastsettle.py).
        old = await make_users(maker, per_side, "o", settings.new_account_days + 30)
        rate = await bench_settlements(econ, old, args.games, args.connections, "o")
        print(
            f"settlements, established players: {args.games} over {args.connections} "
            f"connections: {rate:,.0f}/s"
        )
        # New accounts on the losing side: the generic path, each winner checked for chip
        # dumping under its wallet's row lock (integrity.py).
        young = await make_users(maker, per_side + 2, "n")
        new_rate = await bench_settlements(econ, young[:-2], args.games, args.connections, "n")
        print(
            f"settlements, new accounts: {args.games} over {args.connections} "
            f"connections: {new_rate:,.0f}/s"
        )
        users = young
        times = await bench_gifts(econ, maker, settings, notifier, users, args.gifts)
        p50 = statistics.median(times)
        p99 = statistics.quantiles(times, n=100)[98] if len(times) > 1 else times[0]
        print(f"gifts: {args.gifts} one after another: p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    finally:
        await redis.aclose()
        await engine.dispose()
    return {
        "settlements_per_s": round(rate, 1),
        "new_account_settlements_per_s": round(new_rate, 1),
        "gift_p99_ms": round(p99, 2),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--gifts", type=int, default=1000)
    parser.add_argument("--connections", type=int, default=8)
    print(json.dumps(asyncio.run(main(parser.parse_args()))))
