"""Tournaments end to end over real server processes, one of them killed in each.

    python benchmarks/tournament.py [--sitgo 16] [--swiss 32] [--rounds 5]

Needs PostgreSQL on 127.0.0.1:5432 with an account that may create databases
(``BURACO_BENCH_DATABASE_URL`` names the scratch database, default
``postgresql+asyncpg://postgres@127.0.0.1:5432/buraco_bench_tournament``) and
redis-server installed. Makes that scratch database (dropped afterwards), a private
redis-server and two uvicorn processes of the app, then:

* a Sit & Go (knockout, ``--sitgo`` entrants, a buy-in): one scripted player opens it
  over HTTP and the others register all at once; it starts when full;
* a Swiss of ``--swiss`` entrants over ``--rounds`` rounds, scheduled by the operator's
  API a few seconds ahead; everyone registers at once; it starts at its time.

Every entrant is a scripted client (a guest with its own session): when a match of
theirs is playing, each of the two opens a WebSocket to a server (the two seats on
different processes), watches the table and plays it (loadbench's simple bot: draw,
add, lay runs of three, discard), as fast as the server answers (turbo tables, no bot
delay). One match of one hand per round. When a tournament reaches its second round,
one server process is killed with SIGKILL; its sockets reconnect to the other, which
carries on (a new process replaces the dead one before the next tournament).

The last line printed is one JSON object: sitgo_completed, swiss_completed,
swiss_rounds, repeat_pairings, prizes_paid, prizes_paid_twice (prize transfers beyond
one per paid place, from the ledger), wallets_match (each player's coins = start -
buy-ins + prizes), ledger_conserved (app/economy/audit.py), resumed_after_kill (rounds
were played after each kill), seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import orjson

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from loadbench.players import Table, open_ws, read_all  # noqa: E402
from loadbench.servers import ORIGIN, free_port, start_redis, stop, wait_ready  # noqa: E402
from loadbench.stats import Stats  # noqa: E402
from scratch import create_database, drop_database  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from app.core.db import create_engine, create_sessionmaker  # noqa: E402
from app.economy import audit  # noqa: E402
from app.economy.models import Account, Transfer  # noqa: E402
from app.tournaments.models import Payout  # noqa: E402
from app.tournaments.pairing import repeats  # noqa: E402

BASE_URL = os.environ.get(
    "BURACO_BENCH_DATABASE_URL",
    "postgresql+asyncpg://postgres@127.0.0.1:5432/buraco_bench_tournament",
)
WHO = "benchmarks/tournament.py"
TOKEN = "bench-operator"
BUY_IN = 1_000
PRESET = "abierto"  # the rules loadbench's bot plays


STARTED = time.perf_counter()


def note(line: str) -> None:
    """Progress on stderr (the last line of stdout is the result)."""
    print(f"{time.perf_counter() - STARTED:7.1f} s  {line}", file=sys.stderr, flush=True)


class Servers:
    """The app's processes; ``alive`` are the base URLs that answer."""

    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.env = env
        self.log_dir = log_dir
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def spawn(self) -> str:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        cmd = [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory"]
        cmd += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
        log = (self.log_dir / f"server-{port}.log").open("wb")
        proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        wait_ready(base + "/readyz", proc)
        self.procs[base] = proc
        return base

    def kill(self, base: str) -> None:
        proc = self.procs.pop(base)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)

    @property
    def alive(self) -> list[str]:
        return list(self.procs)

    def stop(self) -> None:
        stop(list(self.procs.values()))


class Player:
    def __init__(self, base: str) -> None:
        self.client = httpx.AsyncClient(base_url=base, timeout=60)
        self.user_id = 0
        self.cookie = ""

    async def sign_up(self) -> None:
        for _ in range(20):
            r = await self.client.post("/api/auth/guest")
            if r.status_code != 409:
                break
        r.raise_for_status()
        self.user_id = int(r.json()["id"])
        self.cookie = str(self.client.cookies.get("buraco_session"))
        (await self.client.get("/api/wallet")).raise_for_status()

    async def coins(self) -> int:
        return int((await self.client.get("/api/wallet")).json()["coins"])


async def request(servers: Servers, method: str, path: str, **kw: Any) -> httpx.Response:
    """A request to whichever process answers (one may have just been killed)."""
    for _ in range(30):
        for base in servers.alive:
            with contextlib.suppress(httpx.TransportError):
                async with httpx.AsyncClient(base_url=base, timeout=30) as c:
                    return await c.request(method, path, **kw)
        await asyncio.sleep(0.2)
    raise RuntimeError(f"no process answers {path}")


async def play_match(
    servers: Servers, table_id: str, seated: list[Player], over: asyncio.Event
) -> None:
    """The two seats of a match, each on its own socket (a different process each when
    two are alive), playing until the match is over; a socket whose process died is
    opened again on one that answers."""
    table = Table(table_id, len(seated))
    stats = Stats()
    readers: list[asyncio.Task[None] | None] = [None] * len(seated)

    async def connect(i: int) -> None:
        for _ in range(50):
            alive = servers.alive
            base = alive[i % len(alive)]
            try:
                seat = table.seats[i]
                seat.v = 0
                seat.ws = await open_ws(
                    base.replace("http", "ws") + "/ws",
                    {"Cookie": f"buraco_session={seated[i].cookie}", "Origin": ORIGIN},
                )
                await seat.ws.recv()  # hello
                readers[i] = asyncio.create_task(read_all(seat.ws, seat.reader(stats)))
                await seat.ws.send(orjson.dumps({"type": "watch", "table": table_id}).decode())
                return
            except OSError:
                await asyncio.sleep(0.2)
        raise RuntimeError("cannot reconnect")

    for i in range(len(seated)):
        await connect(i)
    try:
        while not over.is_set():
            for i, reader in enumerate(readers):
                if reader is not None and reader.done():  # the socket closed: again
                    await connect(i)
            if table.choose() is None or table.seats[table.turn].ws is None:
                await asyncio.sleep(0.02)
                continue
            with contextlib.suppress(Exception):
                await table.move(stats, 5.0, False)
    finally:
        for i, seat in enumerate(table.seats):
            with contextlib.suppress(Exception):
                await seat.ws.close()
            reader = readers[i]
            if reader is not None:
                reader.cancel()


async def follow(
    servers: Servers, tid: int, players: dict[int, Player], kill_at_round: int
) -> dict[str, Any]:
    """Plays the tournament's matches as they open, kills a process when round
    ``kill_at_round`` opens, and returns the finished tournament's detail."""
    matches: dict[str, tuple[asyncio.Task[None], asyncio.Event]] = {}
    killed_in = 0
    deadline = time.monotonic() + 900
    detail: dict[str, Any] = {}
    while time.monotonic() < deadline:
        r = await request(servers, "GET", f"/api/tournaments/{tid}")
        detail = r.json()
        for rnd in detail["rounds_list"]:
            for m in rnd["matches"]:
                table_id = m["table_id"]
                if table_id is None:
                    continue
                if m["state"] == "done":
                    if table_id in matches:
                        matches[table_id][1].set()
                    continue
                if m["state"] == "playing" and table_id not in matches:
                    users = m["a"]["user_ids"] + m["b"]["user_ids"]
                    seated = [players[u] for u in users]
                    over = asyncio.Event()
                    task = asyncio.create_task(play_match(servers, table_id, seated, over))
                    matches[table_id] = (task, over)
        if not killed_in and detail["current_round"] >= kill_at_round and len(servers.alive) > 1:
            servers.kill(servers.alive[-1])
            killed_in = detail["current_round"]
        if detail["state"] in ("finished", "cancelled"):
            break
        note(f"tournament {tid}: {detail['state']}, round {detail['current_round']}")
        await asyncio.sleep(0.3)
    for task, over in matches.values():
        over.set()
        with contextlib.suppress(Exception):
            await task
    detail["killed_in_round"] = killed_in
    return detail


async def sign_up_all(servers: Servers, n: int) -> list[Player]:
    players = [Player(servers.alive[i % len(servers.alive)]) for i in range(n)]
    await asyncio.gather(*(p.sign_up() for p in players))
    return players


async def sitgo(servers: Servers, n: int) -> tuple[dict[str, Any], list[Player]]:
    players = await sign_up_all(servers, n)
    host, rest = players[0], players[1:]
    body = {"entrants": n, "buy_in": BUY_IN, "hands": 1, "turbo": True, "preset": PRESET}
    r = await host.client.post("/api/tournaments", json=body)
    r.raise_for_status()
    tid = r.json()["id"]
    answers = await asyncio.gather(
        *(p.client.post(f"/api/tournaments/{tid}/register") for p in rest)
    )
    for a in answers:
        a.raise_for_status()
    by_id = {p.user_id: p for p in players}
    return await follow(servers, tid, by_id, kill_at_round=2), players


async def swiss(servers: Servers, n: int, rounds: int) -> tuple[dict[str, Any], list[Player]]:
    players = await sign_up_all(servers, n)
    # Time for everyone to register at once on a busy machine; it starts at that time.
    starts = datetime.now(UTC) + timedelta(seconds=4 + n / 2)
    body = {
        "name": "Bench Swiss",
        "format": "swiss",
        "preset": PRESET,
        "min_entrants": n,
        "max_entrants": n,
        "buy_in": BUY_IN,
        "rounds": rounds,
        "hands": 1,
        "turbo": True,
        "starts_at": starts.isoformat(),
    }
    r = await request(
        servers,
        "POST",
        "/api/admin/tournaments",
        json=body,
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    r.raise_for_status()
    tid = r.json()["id"]
    answers = await asyncio.gather(
        *(p.client.post(f"/api/tournaments/{tid}/register") for p in players)
    )
    for a in answers:
        if a.status_code != 200:
            raise SystemExit(f"registration refused: {a.status_code} {a.text}")
    note(f"swiss {tid}: {n} registered, starts at {starts.isoformat()}")
    by_id = {p.user_id: p for p in players}
    return await follow(servers, tid, by_id, kill_at_round=max(2, rounds // 2 + 1)), players


async def ledger_checks(db_url: str, ids: list[int]) -> dict[str, Any]:
    engine = create_engine(db_url, pool_size=1)
    try:
        async with create_sessionmaker(engine)() as db:
            report = await audit.reconcile(db)
            paid = await db.scalar(
                select(func.count())
                .select_from(Payout)
                .where(Payout.tournament_id.in_(ids), Payout.state == "paid", Payout.amount > 0)
            )
            transfers = await db.scalar(
                select(func.count())
                .select_from(Transfer)
                .where(Transfer.idempotency_key.like("tournament:prize:%"))
            )
            escrows = await db.scalar(
                select(func.coalesce(func.sum(Account.balance), 0)).where(
                    Account.key.in_([f"tournament:{i}" for i in ids])
                )
            )
            prizes = {
                int(u or 0): int(a)
                for u, a in (
                    await db.execute(
                        select(Payout.user_id, func.sum(Payout.amount))
                        .where(Payout.tournament_id.in_(ids), Payout.user_id.is_not(None))
                        .group_by(Payout.user_id)
                    )
                ).all()
            }
    finally:
        await engine.dispose()
    return {
        "ok": report.ok,
        "problems": report.problems[:5],
        "paid": int(paid or 0),
        "twice": int(transfers or 0) - int(paid or 0),
        "escrow_left": int(escrows or 0),
        "prizes": prizes,
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    log_dir = Path(tempfile.mkdtemp(prefix="buraco-bench-tournament-"))
    redis_proc, redis_url, redis_dir = start_redis(log_dir)
    await create_database(BASE_URL, WHO)
    env = {k: v for k, v in os.environ.items() if not k.startswith("BURACO_")}
    env.update(
        {
            "BURACO_ENV": "test",
            "BURACO_DATABASE_URL": BASE_URL,
            "BURACO_REDIS_URL": redis_url,
            "BURACO_TURN_SECONDS": "3600",
            "BURACO_TURBO_TURN_SECONDS": "3600",
            "BURACO_DISCONNECT_GRACE_SECONDS": "3600",
            "BURACO_BOT_DELAY_SECONDS": "0",
            "BURACO_SIGNUP_LIMIT_PER_IP": "1000000",
            "BURACO_WS_ALLOWED_ORIGINS": ORIGIN,
            "BURACO_WS_MAX_SOCKETS_PER_IP": "1000000",
            "BURACO_LOG_LEVEL": "WARNING",
            "BURACO_VAR_DIR": str(log_dir),
            "BURACO_FRONTEND_DIR": str(log_dir / "none"),
            "BURACO_OPERATOR_TOKEN": TOKEN,
            "BURACO_TOURNAMENT_TICK_SECONDS": "0.3",
            "BURACO_RECONCILE_INTERVAL_SECONDS": "2",
            "BURACO_RECONCILE_GRACE_SECONDS": "5",
        }
    )
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    servers = Servers(env, log_dir)
    try:
        servers.spawn()
        servers.spawn()
        one, sitgo_players = await sitgo(servers, args.sitgo)
        servers.spawn()  # the dead one's replacement
        two, swiss_players = await swiss(servers, args.swiss, args.rounds)
        everyone = sitgo_players + swiss_players
        coins = {}
        for p in everyone:
            p.client.base_url = httpx.URL(servers.alive[0])
            coins[p.user_id] = await p.coins()
        checks = await ledger_checks(BASE_URL, [one["id"], two["id"]])
        start_coins = await start_grant(servers)
        wallets_match = all(
            coins[p.user_id] == start_coins - BUY_IN + checks["prizes"].get(p.user_id, 0)
            for p in everyone
        )
        pairings = [
            [(m["a"]["side"], m["b"]["side"] if m["b"] else None) for m in r["matches"]]
            for r in two["rounds_list"]
        ]
        return {
            "sitgo_completed": one["state"] == "finished",
            "swiss_completed": two["state"] == "finished",
            "sitgo_rounds": len(one["rounds_list"]),
            "swiss_rounds": len(two["rounds_list"]),
            "repeat_pairings": repeats(pairings),
            "prizes_paid": checks["paid"],
            "prizes_paid_twice": checks["twice"],
            "escrow_left": checks["escrow_left"],
            "wallets_match": wallets_match,
            "ledger_conserved": checks["ok"],
            "ledger_problems": checks["problems"],
            "killed_in_rounds": [one["killed_in_round"], two["killed_in_round"]],
            "resumed_after_kill": (
                0 < one["killed_in_round"] <= len(one["rounds_list"])
                and 0 < two["killed_in_round"] <= len(two["rounds_list"])
                and one["state"] == "finished"
                and two["state"] == "finished"
            ),
            "seconds": round(time.perf_counter() - started, 1),
        }
    finally:
        servers.stop()
        stop([redis_proc])
        shutil.rmtree(redis_dir, ignore_errors=True)
        await drop_database(BASE_URL, WHO)


async def start_grant(servers: Servers) -> int:
    """What a new wallet starts with (a fresh guest's coins)."""
    fresh = Player(servers.alive[0])
    await fresh.sign_up()
    return await fresh.coins()


def cli() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sitgo", type=int, default=16, choices=[4, 8, 16])
    parser.add_argument("--swiss", type=int, default=32, help="entrants of the Swiss")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the Swiss")
    return parser.parse_args()


if __name__ == "__main__":
    result = asyncio.run(main(cli()))
    print(json.dumps(result), flush=True)
