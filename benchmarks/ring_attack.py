"""The ring attack (chip dumping): how many coins ten fresh guests from one address can
funnel to one receiver, who then passes them on as a gift, in two minutes.

    python benchmarks/ring_attack.py [--quick] [--guests 10] [--minutes 2] [--game-seconds 8]

Creates a scratch database (dropped afterwards) and flushes a scratch Redis database
(``BURACO_BENCH_DATABASE_URL``, ``BURACO_BENCH_REDIS_URL``), starts the app in process
with its default settings, and plays the attacker:

* the guests sign up over HTTP (``POST /api/auth/guest``), all from one client address;
  the receiver is an established account (30 days old, the attacker's best case) with a
  friend to pass the coins on to;
* each guest plays the receiver back to back, as many games as ``--minutes`` allow at
  ``--game-seconds`` a game (8 s: the issue's fast custom tables), all guests at once.
  Each game first asks for the attacker's bet (1,000,000,000), then, refused, for the
  largest bet the guest's wallet (``GET /api/wallet``) says is allowed;
* what it simulates: a game's seats, escrow and settlement go through the live tables'
  economy hooks (``reserve_seat``, ``start_game``, ``settle_game``: the same calls, in
  the same order, as a table's service makes), the guest losing every game; the cards
  in between are not played, so each game settles as soon as it starts (which counts as
  a quick game: the attacker's best case is 8-12 s, detection treats both alike);
* at the end the receiver gives its friend, over HTTP (``POST /api/gifts``), as many
  coins as the gift endpoint accepts: first all it has, then the amount the refusal
  names (``not_giftable``).

``funnelled_coins`` is what that gift moved: the coins the ring got through to be passed
on. The last line printed is one JSON object ({"funnelled_coins": N, "seconds": S, ...});
the exit status is 1 when N reaches the 20,000-coin bound (docs/economy.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from asgi_lifespan import LifespanManager
from redis.asyncio import Redis
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.core.config import Settings  # noqa: E402
from app.core.db import utcnow  # noqa: E402
from app.core.errors import AppError  # noqa: E402
from app.core.ids import UserId  # noqa: E402
from app.economy import holds  # noqa: E402
from app.economy.hooks import EconomyTables  # noqa: E402
from app.economy.models import Account, IntegrityFlag  # noqa: E402
from app.main import create_app  # noqa: E402
from app.social.models import Friendship  # noqa: E402
from app.tables.play.hooks import GameResult  # noqa: E402
from app.users.models import User  # noqa: E402
from app.users.service import start_session  # noqa: E402
from app.users.tokens import SESSION_COOKIE  # noqa: E402

BASE_URL = os.environ.get(
    "BURACO_BENCH_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/buraco_bench_ring"
)
REDIS_URL = os.environ.get("BURACO_BENCH_REDIS_URL", "redis://127.0.0.1:6379/12")
ATTACKER_BET = 1_000_000_000
BOUND = 20_000


def migrate() -> None:
    from alembic import command
    from alembic.config import Config

    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("sqlalchemy.url", BASE_URL)
    cfg.attributes["configure_logger"] = False
    command.upgrade(cfg, "head")


class Attack:
    def __init__(self, app: Any, econ: EconomyTables) -> None:
        self.app = app
        self.econ = econ
        self.maker = app.state.sessionmaker
        self.games = 0
        self.refused: dict[str, int] = {}
        self.n = 0

    def client(self) -> httpx.AsyncClient:
        # One client address for everyone: the ring's shared connection.
        transport = httpx.ASGITransport(app=self.app, client=("203.0.113.7", 4242))
        return httpx.AsyncClient(transport=transport, base_url="http://bench")

    async def established(self, nickname: str) -> tuple[int, httpx.AsyncClient]:
        async with self.maker() as db:
            user = User(
                username=nickname,
                username_lower=nickname.lower(),
                nickname=nickname,
                created_at=utcnow() - timedelta(days=30),
            )
            db.add(user)
            await db.flush()
            token = await start_session(db, UserId(user.id), 1)
            await db.commit()
        client = self.client()
        client.cookies.set(SESSION_COOKIE, token)
        return user.id, client

    async def guest(self) -> tuple[int, httpx.AsyncClient]:
        client = self.client()
        me = await client.post("/api/auth/guest")
        me.raise_for_status()
        return int(me.json()["id"]), client

    async def game(self, guest: int, guest_client: httpx.AsyncClient, receiver: int) -> None:
        self.n += 1
        table, game = f"ring-t{self.n}", f"ring-g{self.n}"
        try:
            await self.econ.reserve_seat(guest, table, ATTACKER_BET)
            bet = ATTACKER_BET
        except AppError as refused:
            self.refused[refused.code] = self.refused.get(refused.code, 0) + 1
            wallet = (await guest_client.get("/api/wallet")).json()
            bet = min(wallet["max_bet"] or wallet["coins"], wallet["coins"])
            if bet <= 0:
                return
            await self.econ.reserve_seat(guest, table, bet)
        try:
            await self.econ.reserve_seat(receiver, table, bet)
        except AppError as short:  # the receiver's coins are all on other tables now
            key = f"receiver_{short.code}"
            self.refused[key] = self.refused.get(key, 0) + 1
            await self.econ.release_seat(guest, table)
            return
        if await self.econ.start_game(game, table, bet, [receiver, guest]):
            return
        await self.econ.settle_game(
            GameResult(
                game_id=game,
                table_id=table,
                preset="abierto",
                bet=bet,
                teams={receiver: 0, guest: 1},
                abandoned=frozenset(),
                winner_team=0,
                bots=0,
            )
        )
        self.games += 1

    async def pass_on(self, client: httpx.AsyncClient, friend: int) -> int:
        wallet = (await client.get("/api/wallet")).json()
        amount = wallet["coins"]
        for _ in range(2):
            body = {"to_user_id": friend, "currency": "coins", "amount": amount}
            sent = await client.post("/api/gifts", json=body)
            if sent.status_code == 201:
                return int(amount)
            error = sent.json()["error"]
            named = re.search(r"give up to (\d+)", error["message"])
            if error["code"] != "not_giftable" or named is None:
                return 0
            amount = int(named.group(1))
            if amount <= 0:
                return 0
        return 0


async def run(args: argparse.Namespace) -> dict[str, Any]:
    await recreate_scratch()
    redis = Redis.from_url(REDIS_URL)
    await redis.flushdb()
    await redis.aclose()
    var = Path(tempfile.mkdtemp(prefix="ring-attack-"))
    settings = Settings(
        env="test",
        database_url=BASE_URL,
        redis_url=REDIS_URL,
        var_dir=var,
        frontend_dir=var / "no-frontend",
    )
    app = create_app(settings)
    started = time.perf_counter()
    try:
        async with LifespanManager(app):
            econ = app.state.tables.hooks  # the live tables' own economy hooks
            assert isinstance(econ, EconomyTables)
            attack = Attack(app, econ)
            receiver, receiver_client = await attack.established("Receiver")
            friend, _ = await attack.established("Accomplice")
            async with attack.maker() as db:
                db.add_all(
                    [
                        Friendship(user_id=receiver, friend_id=friend),
                        Friendship(user_id=friend, friend_id=receiver),
                    ]
                )
                await db.commit()
            ring = [await attack.guest() for _ in range(args.guests)]
            rounds = int(args.minutes * 60 // args.game_seconds)

            async def lose(guest: int, client: httpx.AsyncClient) -> None:
                for _ in range(rounds):
                    await attack.game(guest, client, receiver)

            await asyncio.gather(*(lose(g, c) for g, c in ring))
            funnelled = await attack.pass_on(receiver_client, friend)
            async with attack.maker() as db:
                held = (
                    await db.execute(
                        select(Account.balance).where(Account.key == holds.withheld(receiver).key)
                    )
                ).scalar_one_or_none() or 0
                flags = (
                    await db.execute(select(func.count()).select_from(IntegrityFlag))
                ).scalar_one()
            for _, client in ring:
                await client.aclose()
            await receiver_client.aclose()
    finally:
        await recreate_scratch(drop_only=True)
    seconds = time.perf_counter() - started
    print(
        f"{args.guests} guests, {attack.games} games lost on purpose in "
        f"{args.minutes} simulated minute(s); refused stakes {attack.refused}; "
        f"held {held:,}; funnelled {funnelled:,} coins ({seconds:.1f} s)"
    )
    return {
        "funnelled_coins": funnelled,
        "seconds": round(seconds, 2),
        "simulated_seconds": args.minutes * 60,
        "guests": args.guests,
        "games": attack.games,
        "refused_stakes": attack.refused.get("stake_too_high", 0),
        "receiver_short": sum(n for k, n in attack.refused.items() if k.startswith("receiver_")),
        "held_coins": int(held),
        "flags": int(flags),
        "bound": BOUND,
    }


async def recreate_scratch(drop_only: bool = False) -> None:
    url = make_url(BASE_URL)
    admin = url.set(drivername="postgresql", database="postgres")
    conn = await asyncpg.connect(admin.render_as_string(hide_password=False))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{url.database}" WITH (FORCE)')
        if not drop_only:
            await conn.execute(f'CREATE DATABASE "{url.database}"')
    finally:
        await conn.close()
    if not drop_only:
        await asyncio.to_thread(migrate)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CI: 3 guests, 30 seconds")
    parser.add_argument("--guests", type=int, default=10)
    parser.add_argument("--minutes", type=float, default=2)
    parser.add_argument("--game-seconds", type=float, default=8)
    args = parser.parse_args()
    if args.quick:
        args.guests, args.minutes = 3, 0.5
    out = asyncio.run(run(args))
    print(json.dumps(out))
    sys.exit(1 if out["funnelled_coins"] >= BOUND else 0)
