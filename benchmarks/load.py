"""Server load benchmark:
``python benchmarks/load.py --tables K --processes P --seconds S``.

Starts P uvicorn processes itself (real Redis, a Postgres database it creates and
migrates), seats 4 scripted players at each of K tables (4K WebSockets, spread over the
processes) and has each table play one move a second (the seat on turn draws, then
discards) for S seconds. Clocks are long so nothing times out. It measures:

- moves/s, and the latency from sending a command to the moment the LAST of the table's
  four sockets has the update (p50, p99);
- Redis commands per move (``total_commands_processed`` delta over the window, divided by
  the moves; a pipeline counts each of its commands, so this bounds the round trips from
  above), with the INFO commandstats breakdown;
- lost or duplicated updates (every socket checks that versions are contiguous);
- in the same run, a raw baseline: a bare WebSocket echo server process doing one
  EVALSHA per message, driven by the same client at the same rate, so the overhead is a
  ratio (p99 ratio, and server CPU per move ratio).

The client runs in this process (uvloop) on the same 2 cores as the servers and Redis,
so the figures include its cost; it prints its own CPU share (about 30% of a core at
1,000 tables, so one process is enough) and the load average, since other work on the
machine shows up directly in p99. The LAST line is one JSON object:
{"tables": K, "processes": P, "moves_per_s": ..., "p50_ms": ..., "p99_ms": ...,
 "redis_round_trips_per_move": ..., "baseline_p99_ms": ..., "overhead_ratio": ...}
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import asyncpg  # noqa: E402
import httpx  # noqa: E402
import orjson  # noqa: E402
import redis  # noqa: E402
import websockets  # noqa: E402

ORIGIN = "http://load.test"
RULES = {"hand_size": 5, "muerto_size": 5}  # a long stock: hands last minutes at 1 move/s


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# Commands Redis counts that are not round trips of their own: those the commit script
# runs inside Redis, and those the app pipelines behind another (HGET of the command id
# behind the load's HMGET; ZADD of a new turn clock behind the commit's EVALSHA).
NOT_ROUND_TRIPS = {"hset", "xadd", "rpush", "expire", "publish", "hget", "zadd", "info"}


def round_trips(before: dict[str, Any], after: dict[str, Any]) -> int:
    """Client round trips in the window, from INFO commandstats (see NOT_ROUND_TRIPS;
    this counts the timer loop's polls and claims too)."""
    total = 0
    for key, value in after.items():
        name = key.removeprefix("cmdstat_")
        if name not in NOT_ROUND_TRIPS:
            total += value["calls"] - before.get(key, {}).get("calls", 0)
    return total


# ---------------------------------------------------------------- services


async def fresh_database(admin_url: str, name: str) -> str:
    conn = await asyncpg.connect(admin_url.replace("postgresql+asyncpg", "postgresql"))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    url = admin_url.rsplit("/", 1)[0] + "/" + name
    env = {**os.environ, "BURACO_DATABASE_URL": url}
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=REPO, env=env,
                   check=True, capture_output=True)
    return url


def start(cmd: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log.open("wb"),
                            stderr=subprocess.STDOUT)


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url}: process exited")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"{url} not ready")


BASELINE_SERVER = textwrap.dedent('''
    import asyncio, sys, orjson, redis.asyncio as aredis, websockets
    SCRIPT = "redis.call('HINCRBY', KEYS[1], 'v', 1); return redis.call('HGET', KEYS[1], 'v')"
    async def main(port, url):
        r = aredis.Redis.from_url(url)
        script = r.register_script(SCRIPT)
        tables = {}
        async def handler(ws):
            msg = orjson.loads(await ws.recv())
            tid = msg["table"]
            tables.setdefault(tid, set()).add(ws)
            try:
                async for raw in ws:
                    msg = orjson.loads(raw)
                    v = int(await script(keys=[f"{{b:{tid}}}"]))
                    frame = orjson.dumps({"type": "event", "table": tid, "v": v})
                    for peer in list(tables[tid]):
                        try:
                            await peer.send(frame.decode())
                        except Exception:
                            pass
            finally:
                tables[tid].discard(ws)
        async with websockets.serve(handler, "127.0.0.1", port, max_queue=None):
            await asyncio.Future()
    asyncio.run(main(int(sys.argv[1]), sys.argv[2]))
''')


# ---------------------------------------------------------------- the client


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.moves = 0
        self.errors: Counter[str] = Counter()
        self.gaps = 0
        self.dups = 0
        self.measuring = False


class Seat:
    def __init__(self, table: Table, index: int) -> None:
        self.table = table
        self.index = index
        self.ws: Any = None
        self.v = 0
        self.hand: list[str] = []
        self.acks: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def run(self, stats: Stats) -> None:
        async for raw in self.ws:
            message = orjson.loads(raw)
            if message["type"] == "batch":  # several records of one commit
                for f in message["frames"]:
                    self.receive(f, stats)
            else:
                self.receive(message, stats)

    def receive(self, f: dict[str, Any], stats: Stats) -> None:
        typ = f["type"]
        if typ == "event":
            v = f["v"]
            if v <= self.v:
                stats.dups += 1
                return
            if v != self.v + 1 and self.v:
                stats.gaps += 1
            self.v = v
            self.table.arrived(v)
            if f.get("kind") == "game":
                self.fold(f["event"])
        elif typ == "snapshot":
            self.v = f["v"]
            self.table.arrived(self.v)
            game = f.get("game")
            if game:
                self.hand = list(game["hand"] or [])
                self.table.phase, self.table.turn = game["phase"], game["turn"]
        elif typ in ("ack", "error"):
            fut = self.acks.pop(f.get("cid", ""), None)
            if fut is not None and not fut.done():
                fut.set_result(f)
            if typ == "error":
                stats.errors[f["code"]] += 1

    def fold(self, e: dict[str, Any]) -> None:
        t = self.table
        kind = e["type"]
        if kind == "drew":
            if e["seat"] == self.index:
                self.hand.append(e["card"])
            t.phase = "play"
        elif kind == "discarded":
            if e["seat"] == self.index:
                self.hand.remove(e["card"])
            t.phase, t.turn = "draw", (e["seat"] + 1) % 4
        elif kind == "took_pile" and e["seat"] == self.index:
            self.hand += e["cards"] or []
        elif kind == "hand_ended":
            t.phase = "over"
        elif kind == "hand_started":
            if e.get("hand") is not None:
                self.hand = list(e["hand"])
            t.phase, t.turn = "draw", e["first"]


class Table:
    def __init__(self, tid: str, seats: int) -> None:
        self.tid = tid
        self.seats = [Seat(self, i) for i in range(seats)]
        self.phase = ""
        self.turn = -1
        self.arrivals: dict[int, list[float]] = {}  # v -> [count, last arrival]
        self.waiting: tuple[int, float, asyncio.Future[float]] | None = None
        self.n = 0

    def arrived(self, v: int) -> None:
        entry = self.arrivals.setdefault(v, [0, 0.0])
        entry[0] += 1
        entry[1] = time.perf_counter()
        self._check()

    def _check(self) -> None:
        if self.waiting is None:
            return
        v, t0, fut = self.waiting
        entry = self.arrivals.get(v)
        if entry and entry[0] >= len(self.seats) and not fut.done():
            fut.set_result(entry[1] - t0)
            self.waiting = None

    async def move(self, stats: Stats) -> None:
        if self.phase not in ("draw", "play"):
            return
        seat = self.seats[self.turn]
        if self.phase == "draw":
            command: dict[str, Any] = {"type": "draw"}
        else:
            command = {"type": "discard", "card": random.choice(seat.hand)}
        self.n += 1
        cid = f"m{self.n}"
        loop = asyncio.get_running_loop()
        ack_fut: asyncio.Future[dict[str, Any]] = loop.create_future()
        seat.acks[cid] = ack_fut
        t0 = time.perf_counter()
        await seat.ws.send(orjson.dumps({"type": "command", "table": self.tid, "cid": cid,
                                         "command": command}).decode())
        ack = await asyncio.wait_for(ack_fut, 10)
        if ack["type"] != "ack":
            return
        done: asyncio.Future[float] = loop.create_future()
        self.waiting = (ack["v"], t0, done)
        self._check()
        latency = await asyncio.wait_for(done, 10)
        for old in [k for k in self.arrivals if k < ack["v"] - 8]:
            del self.arrivals[old]
        if stats.measuring:
            stats.moves += 1
            stats.latencies.append(latency * 1000)


async def pace(tables: list[Any], stats: Stats, seconds: float, move: Any) -> None:
    """Each table moves once a second, at its own phase within the second."""
    async def one(table: Any, offset: float) -> None:
        await asyncio.sleep(offset)
        start = time.perf_counter()
        k = 0
        while time.perf_counter() - start < seconds:
            try:
                await move(table, stats)
            except (TimeoutError, websockets.ConnectionClosed, IndexError, ValueError):
                stats.errors["client_timeout_or_closed"] += 1
            k += 1
            await asyncio.sleep(max(0.0, start + k - time.perf_counter()))

    await asyncio.gather(*(one(t, random.random()) for t in tables))


def quiet_client_gc() -> None:
    """The client is the measuring instrument: with 4,000 sockets, a full collection of
    its own heap stops it for 200-300 ms (seen with gc.callbacks), and every move in
    flight then shows that pause as server latency. So, as the server does at start-up
    (DESIGN.md), freeze what the set-up made and keep the collector off while measuring;
    reference counting still frees everything but cycles."""
    gc.collect()
    gc.freeze()
    gc.disable()


async def gather_limited(coros: list[Any], limit: int = 64) -> list[Any]:
    sem = asyncio.Semaphore(limit)

    async def run(c: Any) -> Any:
        async with sem:
            return await c

    return await asyncio.gather(*(run(c) for c in coros))


async def setup_tables(bases: list[str], k: int) -> tuple[list[Table], list[str]]:
    """Guests, tables (4 seats, each on a process in turn), sockets watching."""
    clients = [httpx.AsyncClient(base_url=b, timeout=30,
                                 limits=httpx.Limits(max_connections=32)) for b in bases]

    async def guest(i: int) -> str:
        async with httpx.AsyncClient(base_url=bases[i % len(bases)], timeout=30) as c:
            for _ in range(20):  # guest nicknames may collide under a burst (409): again
                r = await c.post("/api/auth/guest")
                if r.status_code != 409:
                    break
            r.raise_for_status()
            return str(c.cookies.get("buraco_session"))

    cookies = await gather_limited([guest(i) for i in range(4 * k)])
    tables: list[Table] = []

    async def make(t: int) -> Table:
        c = clients[t % len(clients)]
        own = cookies[4 * t: 4 * t + 4]
        r = await c.post("/api/tables", json={"players": 4, "rules": RULES, "name": "load"},
                         cookies={"buraco_session": own[0]})
        r.raise_for_status()
        tid = r.json()["id"]
        for seat in (1, 2, 3):
            r = await c.post(f"/api/tables/{tid}/sit", json={"seat": seat},
                             cookies={"buraco_session": own[seat]})
            r.raise_for_status()
        return Table(tid, 4)

    tables = await gather_limited([make(t) for t in range(k)], 32)
    for c in clients:
        await c.aclose()
    return tables, cookies


async def connect_seats(tables: list[Table], cookies: list[str], ws_urls: list[str],
                        stats: Stats) -> list[asyncio.Task[None]]:
    readers = []

    async def open_seat(t: int, seat: Seat) -> None:
        url = ws_urls[(t + seat.index) % len(ws_urls)]
        seat.ws = await websockets.connect(
            url, additional_headers={"Cookie": f"buraco_session={cookies[4 * t + seat.index]}",
                                     "Origin": ORIGIN},
            ping_interval=None, max_queue=None, open_timeout=60,
            compression=None)
        await seat.ws.recv()  # hello
        readers.append(asyncio.create_task(seat.run(stats)))
        await seat.ws.send(orjson.dumps({"type": "watch", "table": seat.table.tid}).decode())

    await gather_limited([open_seat(t, s) for t, table in enumerate(tables)
                          for s in table.seats], 64)
    deadline = time.monotonic() + 60
    while any(t.phase != "draw" or any(s.v == 0 for s in t.seats) for t in tables):
        if time.monotonic() > deadline:
            raise RuntimeError("tables did not start")
        await asyncio.sleep(0.2)
    return readers


# ---------------------------------------------------------------- the baseline


class EchoTable:
    def __init__(self, tid: str) -> None:
        self.tid = tid
        self.socks: list[Any] = []
        self.v = 0
        self.counts: dict[int, list[float]] = {}
        self.waiting: tuple[int, float, asyncio.Future[float]] | None = None

    async def read(self, ws: Any) -> None:
        async for raw in ws:
            v = orjson.loads(raw)["v"]
            entry = self.counts.setdefault(v, [0, 0.0])
            entry[0] += 1
            entry[1] = time.perf_counter()
            if self.waiting and self.waiting[0] == v and entry[0] >= len(self.socks):
                _, t0, fut = self.waiting
                if not fut.done():
                    fut.set_result(entry[1] - t0)

    async def move(self, stats: Stats) -> None:
        self.v += 1  # one sender per table at a time, so versions are predictable
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[float] = loop.create_future()
        t0 = time.perf_counter()
        self.waiting = (self.v, t0, fut)
        await self.socks[self.v % len(self.socks)].send(orjson.dumps({"m": self.v}).decode())
        latency = await asyncio.wait_for(fut, 10)
        self.counts.pop(self.v - 4, None)
        if stats.measuring:
            stats.moves += 1
            stats.latencies.append(latency * 1000)


async def baseline(k: int, seconds: float, redis_url: str, log_dir: Path) -> tuple[Stats, float]:
    run_id = os.urandom(4).hex()  # fresh keys: versions start at 1 even if Redis kept old ones
    port = free_port()
    proc = start([sys.executable, "-c", BASELINE_SERVER, str(port), redis_url], dict(os.environ),
                 log_dir / "baseline.log")
    try:
        for _ in range(100):
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            time.sleep(0.1)
        tables = [EchoTable(f"e{run_id}:{t}") for t in range(k)]
        readers = []

        async def open_sock(table: EchoTable) -> None:
            ws = await websockets.connect(f"ws://127.0.0.1:{port}", ping_interval=None,
                                          max_queue=None, open_timeout=60, compression=None)
            await ws.send(orjson.dumps({"table": table.tid}).decode())
            table.socks.append(ws)
            readers.append(asyncio.create_task(table.read(ws)))

        await gather_limited([open_sock(t) for t in tables for _ in range(4)], 64)
        quiet_client_gc()
        await asyncio.sleep(0.5)
        stats = Stats()
        warm = min(3.0, seconds / 4)
        task = asyncio.create_task(pace(tables, stats, seconds + warm, EchoTable.move))
        await asyncio.sleep(warm)
        stats.measuring = True
        cpu0 = cpu_seconds(proc.pid)
        await task
        cpu = cpu_seconds(proc.pid) - cpu0
        for t in tables:
            for ws in t.socks:
                await ws.close()
        for r in readers:
            r.cancel()
        return stats, cpu
    finally:
        proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)
        if proc.poll() is None:
            proc.kill()


# ---------------------------------------------------------------- main


async def run(args: argparse.Namespace) -> dict[str, Any]:
    log_dir = Path(args.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    db_url = await fresh_database(args.pg_admin_url, args.database)
    r = redis.Redis.from_url(args.redis_url)
    r.flushdb()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BURACO_")}
    env.update({
        "BURACO_ENV": "test", "BURACO_DATABASE_URL": db_url, "BURACO_REDIS_URL": args.redis_url,
        "BURACO_TURN_SECONDS": "3600", "BURACO_TURBO_TURN_SECONDS": "3600",
        "BURACO_DISCONNECT_GRACE_SECONDS": "3600", "BURACO_BOT_DELAY_SECONDS": "0",
        "BURACO_SIGNUP_LIMIT_PER_IP": "1000000", "BURACO_WS_ALLOWED_ORIGINS": ORIGIN,
        "BURACO_LOG_LEVEL": "WARNING", "BURACO_VAR_DIR": str(log_dir),
        "BURACO_FRONTEND_DIR": str(log_dir / "none"), "BURACO_REDIS_MAX_CONNECTIONS": "128",
        # Guests may not open 4-seat (special) tables with the economy on; the economy
        # only acts when a game starts and ends, never on a move, so it is off here.
        "BURACO_ECONOMY_ENABLED": "false",
        # Every simulated player connects from 127.0.0.1 (docs/security.md: per address).
        "BURACO_WS_MAX_SOCKETS_PER_IP": "1000000",
    })
    ports = [free_port() for _ in range(args.processes)]
    procs = [start([sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory",
                    "--host", "127.0.0.1", "--port", str(p), "--no-access-log",
                    "--log-level", "warning", "--loop", "uvloop", "--ws", "websockets",
                    "--backlog", "4096", "--ws-per-message-deflate", "false"],
                   env, log_dir / f"uvicorn-{p}.log") for p in ports]
    try:
        for p, proc in zip(ports, procs, strict=True):
            wait_ready(f"http://127.0.0.1:{p}/readyz", proc)
        bases = [f"http://127.0.0.1:{p}" for p in ports]
        print(f"starting {args.tables} tables ({4 * args.tables} sockets) on "
              f"{args.processes} processes", flush=True)
        tables, cookies = await setup_tables(bases, args.tables)
        stats = Stats()
        readers = await connect_seats(tables, cookies, [b.replace("http", "ws") + "/ws"
                                                        for b in bases], stats)
        print("all tables playing; warming up", flush=True)
        quiet_client_gc()
        warm = min(5.0, args.seconds / 4)
        task = asyncio.create_task(pace(tables, stats, args.seconds + warm, Table.move))
        await asyncio.sleep(warm)
        info0 = r.info("stats")["total_commands_processed"]
        cmd0 = r.info("commandstats")
        cpu0 = sum(cpu_seconds(p.pid) for p in procs)
        client0 = time.process_time()
        stats.measuring = True
        t0 = time.perf_counter()
        await asyncio.sleep(args.seconds)
        stats.measuring = False
        elapsed = time.perf_counter() - t0
        cpu = sum(cpu_seconds(p.pid) for p in procs) - cpu0
        client_cpu = time.process_time() - client0
        info1 = r.info("stats")["total_commands_processed"]
        cmd1 = r.info("commandstats")
        await task
        for table in tables:
            for seat in table.seats:
                await seat.ws.close()
        for reader in readers:
            reader.cancel()
        moves = max(stats.moves, 1)
        per_cmd = {k.removeprefix("cmdstat_"): round((v["calls"] - cmd0.get(k, {}).get("calls", 0))
                                                     / moves, 3)
                   for k, v in cmd1.items() if v["calls"] - cmd0.get(k, {}).get("calls", 0)}
        print(f"server: {stats.moves} moves in {elapsed:.1f}s, errors {dict(stats.errors)}, "
              f"gaps {stats.gaps}, duplicates {stats.dups}", flush=True)
        trips = round_trips(cmd0, cmd1) / moves
        print(f"server CPU {cpu:.2f}s = {cpu / moves * 1e6:.0f} us/move; Redis commands/move "
              f"{(info1 - info0) / moves:.2f} (script-internal included): {per_cmd}; "
              f"round trips/move {trips:.2f}", flush=True)
        # The client shares the 2 cores: when it nears one core, latency is its queueing.
        print(f"client CPU {client_cpu:.2f}s ({client_cpu / elapsed:.0%} of a core); load "
              f"average {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)
            if proc.poll() is None:
                proc.kill()
    gc.unfreeze()
    gc.enable()
    base_stats, base_cpu = await baseline(args.tables, args.seconds, args.redis_url, log_dir)
    gc.enable()
    base_moves = max(base_stats.moves, 1)
    print(f"baseline: {base_stats.moves} moves, p50 {pct(base_stats.latencies, .5):.2f} ms, "
          f"p99 {pct(base_stats.latencies, .99):.2f} ms, CPU {base_cpu / base_moves * 1e6:.0f} "
          "us/move", flush=True)
    p99, base_p99 = pct(stats.latencies, .99), pct(base_stats.latencies, .99)
    cpu_ratio = (cpu / moves) / max(base_cpu / base_moves, 1e-9)
    print(f"overhead: p99 x{p99 / max(base_p99, 1e-9):.2f}, server CPU per move "
          f"x{cpu_ratio:.2f}", flush=True)
    return {
        "tables": args.tables, "processes": args.processes,
        "moves_per_s": round(stats.moves / elapsed, 1),
        "p50_ms": round(pct(stats.latencies, .5), 2), "p99_ms": round(p99, 2),
        "redis_round_trips_per_move": round(trips, 2),
        "baseline_p99_ms": round(base_p99, 2),
        "overhead_ratio": round(p99 / max(base_p99, 1e-9), 2),
        "cpu_ratio": round(cpu_ratio, 2), "lost": stats.gaps, "duplicated": stats.dups,
        "server_cpu_us_per_move": round(cpu / moves * 1e6),
        "client_cpu_share": round(client_cpu / elapsed, 2),
        "load_average": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/10")
    parser.add_argument("--pg-admin-url",
                        default="postgresql+asyncpg://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="buraco_load")
    parser.add_argument("--log-dir", default="/tmp/buraco-load")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    result = asyncio.run(run(args))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
