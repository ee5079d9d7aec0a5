"""Server load benchmark:
``python benchmarks/load.py --tables K --processes P --seconds S``.

Starts its own Redis (``redis-server`` on a free port, never a shared one; or, with
``--redis-cluster 3``, a fresh local cluster of three masters; or ``--redis-url``, e.g. a
``redis+cluster://`` URL, which it never flushes), P uvicorn
processes (uvloop, a Postgres database it creates and migrates), seats 4 scripted
players at each of K tables (4K WebSockets, spread over the processes) and has each
table play one move a second for S seconds. Hands are real: 11 cards and 11-card
muertos (``--hand-size`` shrinks both), matches of several hands; the bot on turn draws,
adds a card to its side's melds or lays a new sequence when it can (keeping three cards)
and discards. Clocks are long so nothing times out on the server.

The bare baseline, a WebSocket server doing one EVALSHA per move and sending the
version to the table's four sockets, runs as many processes as the app (each table's
sockets all on one of them), on the same loop (uvloop) and pool (a blocking pool of the
same size) in the same invocation, ALTERNATED with the main run: both are
set up first, then ``--rounds`` windows of each, one after the other, so the machine's
other load hits both alike. It measures, per system:

- moves offered (one per table per second, including the ticks a slow move made the
  table miss), moves served in time (``--move-timeout``), served_ratio;
- latency from sending a command to the moment the LAST of the table's four sockets has
  the update (p50, p99); a move that times out or is refused counts at the time-out in
  the percentiles (never dropped) and as a failure;
- server CPU per move, Redis CPU per move (INFO used_cpu_* over the window), resident
  memory per server process;
- Redis commands per move, lost or duplicated updates (contiguous versions per socket);
- the p99 of each window apart, and how many cores the whole machine kept busy during
  each system's windows (``/proc/stat``: this benchmark, the kernel's loopback network
  and anything else running) with the share stolen by the hypervisor, so a run's tail
  can be told apart from the machine it ran on.

The client runs on the same 2 cores, on a lean WebSocket client (benchmarks/wsclient.py;
``--client websockets`` for the library's): the servers' players in this process, the
baseline's in a process of their own (``BaselinePlayers``: one process could not hold
both systems' sockets past 2,500 tables); it prints the two processes' CPU share and
the load average. The LAST line is one JSON object (see ``summary``).
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
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
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
import wsclient  # noqa: E402  (benchmarks/, beside this file)
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from app.core.config import Settings  # noqa: E402
from app.main import GC_THRESHOLDS  # noqa: E402
from app.rules.cards import NAME, SUIT, WILD_CAPABLE, parse, parse_many  # noqa: E402
from app.rules.errors import RuleViolation  # noqa: E402
from app.rules.melds import Meld, add_to_meld, build_meld  # noqa: E402
from app.rules.ruleset import RuleSet, ruleset_from_dict  # noqa: E402

ORIGIN = "http://load.test"
TARGET_SCORE = 100_000  # a match of many hands: tables keep playing however long the run
CLIENT = ["lean"]  # --client: the simulated players' WebSocket client
MAX_CONNECTIONS = 128  # the servers' and the baseline's Redis pool (blocking)


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


def machine_jiffies() -> tuple[int, int]:
    """(busy, stolen) clock ticks of all CPUs since boot (``/proc/stat``; (0, 0) where
    there is none). Busy is user, nice, system, irq and softirq; idle and iowait are
    not; steal is time the hypervisor gave another guest while this one had work."""
    try:
        with open("/proc/stat") as f:
            user, nice, system, _idle, _iowait, irq, softirq, steal = (
                int(x) for x in f.readline().split()[1:9]
            )
    except (OSError, ValueError):
        return 0, 0
    return user + nice + system + irq + softirq, steal


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


# ---------------------------------------------------------------- Redis


# Commands Redis counts that are not round trips of their own: those the commit script
# runs inside Redis (on one server also the ZADD of a new turn clock), and those the app
# pipelines behind another (HGET of the command id behind the load's HMGET; on a cluster
# the ZADD goes beside the EVALSHA).
NOT_ROUND_TRIPS = {
    "hset",
    "rpush",
    "expire",
    "publish",
    "spublish",
    "hget",
    "zadd",
    "info",
    "hello",
}


def round_trips(calls: Counter[str]) -> int:
    """Client round trips in a window, from INFO commandstats (see NOT_ROUND_TRIPS; this
    counts the timer loop's polls and claims too)."""
    return sum(n for name, n in calls.items() if name not in NOT_ROUND_TRIPS)


class RedisNodes:
    """The Redis server(s) the run uses, for INFO: its own, or every master of a cluster."""

    def __init__(self, url: str) -> None:
        self.url = url
        if "+cluster://" in url:
            scheme = "rediss" if url.startswith("rediss") else "redis"
            first = url.split("://", 1)[1].split(",")[0].split("/")[0]
            host, port = first.rsplit(":", 1)
            seed = redis.Redis(host=host, port=int(port), ssl=scheme == "rediss")
            nodes = seed.execute_command("CLUSTER NODES")  # redis-py parses it: addr -> info
            masters = [
                addr.split("@")[0] for addr, info in nodes.items() if "master" in str(info["flags"])
            ]
            self.clients = [
                redis.Redis(
                    host=m.rsplit(":", 1)[0], port=int(m.rsplit(":", 1)[1]), ssl=scheme == "rediss"
                )
                for m in masters
            ]
        else:
            self.clients = [redis.Redis.from_url(url)]

    def cpu(self) -> float:
        total = 0.0
        for c in self.clients:
            info = c.info("cpu")
            total += float(info["used_cpu_sys"]) + float(info["used_cpu_user"])
        return total

    def commands(self) -> int:
        return sum(int(c.info("stats")["total_commands_processed"]) for c in self.clients)

    def commandstats(self) -> Counter[str]:
        calls: Counter[str] = Counter()
        for c in self.clients:
            for key, value in c.info("commandstats").items():
                calls[key.removeprefix("cmdstat_")] += int(value["calls"])
        return calls


def redis_server(
    binary: str, port: int, workdir: Path, log: Path, *extra: str
) -> subprocess.Popen[bytes]:
    """A redis-server on 127.0.0.1:``port``, keeping nothing on disk."""
    return subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", *extra]
        + ["--save", "", "--appendonly", "no", "--dir", str(workdir), "--maxclients", "20000"],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )


def start_redis(log_dir: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    """A private redis-server on a free port, no persistence: the run owns all of it."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed; pass --redis-url")
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="buraco-load-redis-"))
    proc = redis_server(binary, port, workdir, log_dir / "redis.log")
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(100):
        with contextlib.suppress(redis.ConnectionError):
            if redis.Redis.from_url(url).ping():
                return proc, url, workdir
        time.sleep(0.05)
    raise RuntimeError("redis-server did not start")


def cluster_ports(n: int) -> list[int]:
    """``n`` ports free on 127.0.0.1 together with their cluster-bus ports (+10000)."""
    ports: list[int] = []
    rng = random.Random()
    while len(ports) < n:
        port = rng.randrange(20000, 30000)
        if port in ports:
            continue
        try:
            for p in (port, port + 10000):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
        except OSError:
            continue
        ports.append(port)
    return ports


def start_cluster(log_dir: Path, masters: int) -> tuple[list[subprocess.Popen[bytes]], str, Path]:
    """A private Redis Cluster of ``masters`` masters (no replicas) on free ports, no
    persistence, made fresh for this run: a cluster that earlier runs left their tables,
    timers and dead processes' registrations in would have this run's servers sweep and
    play those (none of them measured, all of them load)."""
    binary, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if binary is None or cli is None:
        raise SystemExit("redis-server and redis-cli are needed; pass --redis-url")
    workdir = Path(tempfile.mkdtemp(prefix="buraco-load-cluster-"))
    ports = cluster_ports(masters)
    procs = [
        redis_server(
            binary,
            port,
            workdir,
            log_dir / f"redis-{port}.log",
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            str(workdir / f"nodes-{port}.conf"),
        )
        for port in ports
    ]
    try:
        for port in ports:
            for _ in range(100):
                with contextlib.suppress(redis.ConnectionError):
                    if redis.Redis(port=port).ping():
                        break
                time.sleep(0.05)
        nodes = [f"127.0.0.1:{port}" for port in ports]
        subprocess.run(
            [cli, "--cluster", "create", *nodes, "--cluster-replicas", "0", "--cluster-yes"],
            check=True,
            stdout=(log_dir / "cluster-create.log").open("wb"),
            stderr=subprocess.STDOUT,
        )
        for _ in range(200):
            infos = [redis.Redis(port=port).cluster("info") for port in ports]
            if all(str(i.get("cluster_state")) == "ok" for i in infos):
                return procs, "redis+cluster://" + ",".join(nodes), workdir
            time.sleep(0.05)
        raise RuntimeError("the cluster did not come up")
    except BaseException:
        stop(procs)
        shutil.rmtree(workdir, ignore_errors=True)
        raise


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
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
    )
    return url


def start(cmd: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


# With --callgrind every server and the baseline run under valgrind's callgrind with its
# counting switched off, switched on only inside the measured windows: instructions per
# move are the same whatever else the machine is doing, where CPU seconds are not.
CALLGRIND: list[str] = []
# With --ramp-seconds: the moves of the tables already playing while the later ones
# arrived, all of them and those done after the last table that got in, when every
# later one was refused (summary).
RAMP: dict[str, Any] = {}


def callgrind_prefix(out_dir: str) -> list[str]:
    if not shutil.which("valgrind") or not shutil.which("callgrind_control"):
        raise SystemExit("--callgrind needs valgrind (Debian's package valgrind)")
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    return [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={out_dir}/callgrind.%p.out",
    ]


def callgrind(pid: int, *args: str) -> str:
    return subprocess.run(
        ["callgrind_control", *args, str(pid)], capture_output=True, text=True, check=False
    ).stdout


async def idle_instructions(pids: list[int], seconds: float) -> float:
    """Instructions per second of these processes while no table moves."""
    for p in pids:
        callgrind(p, "-z")
        callgrind(p, "-i", "on")
    t0 = time.perf_counter()
    await asyncio.sleep(seconds)
    total = sum(instructions(p) for p in pids)
    elapsed = time.perf_counter() - t0
    for p in pids:
        callgrind(p, "-i", "off")
    return total / elapsed


def instructions(pid: int) -> int:
    """Instructions counted in every thread of ``pid`` since its counters were zeroed."""
    total = 0
    for line in callgrind(pid, "-e", "Ir").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "Th":
            total += int(parts[2].replace(",", ""))
    return total


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)
        if proc.poll() is None:
            proc.kill()


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


# The baseline: what any durable server must do per move at the least (one script call
# on Redis, one frame to each of the table's sockets), on the loop and pool the app
# servers use. A Redis error is answered with an error frame and counted.
BASELINE_SERVER = textwrap.dedent("""
    import asyncio, gc, sys, orjson, uvloop, websockets
    from app.core.redis import create_redis
    SCRIPT = "redis.call('HINCRBY', KEYS[1], 'v', 1); return redis.call('HGET', KEYS[1], 'v')"
    async def main(port, url, pool):
        r = create_redis(url, max_connections=pool, timeout=5.0)
        script = r.register_script(SCRIPT)
        # One call before the first move, as a server's start-up makes: on a cluster,
        # redis-py's client learns the slots then, and a burst of first calls racing
        # that discovery set off a cascade of reconnections and errors it never left
        # (5,104 failed baseline moves at 1,000 tables).
        await script(keys=["{b:warm-up}"])
        tables = {}
        async def handler(ws):
            msg = orjson.loads(await ws.recv())
            tid = msg["table"]
            tables.setdefault(tid, set()).add(ws)
            try:
                async for raw in ws:
                    msg = orjson.loads(raw)
                    try:
                        v = int(await script(keys=[f"{{b:{tid}}}"]))
                    except Exception as exc:
                        await ws.send(orjson.dumps({"error": type(exc).__name__}).decode())
                        continue
                    frame = orjson.dumps({"type": "event", "table": tid, "v": v}).decode()
                    for peer in list(tables[tid]):
                        try:
                            await peer.send(frame)
                        except Exception:
                            pass
            finally:
                tables[tid].discard(ws)
        async with websockets.serve(handler, "127.0.0.1", port, max_queue=None,
                                    compression=None):
            await asyncio.Future()
    uvloop.install()
    gc.collect(); gc.freeze(); gc.set_threshold(*GC_THRESHOLDS)  # as app.main._tune_gc
    asyncio.run(main(int(sys.argv[1]), sys.argv[2], int(sys.argv[3])))
""").replace("GC_THRESHOLDS", repr(GC_THRESHOLDS))


# ---------------------------------------------------------------- the client


async def open_ws(url: str, headers: dict[str, str] | None = None) -> Any:
    """A player's socket: the lean client (benchmarks/wsclient.py) or, with ``--client
    websockets``, the websockets library's; both used alike, by main run and baseline."""
    if CLIENT[0] == "lean":
        return await wsclient.connect(url, headers, open_timeout=60)
    return await websockets.connect(
        url,
        additional_headers=headers,
        ping_interval=None,
        max_queue=None,
        open_timeout=60,
        compression=None,
    )


class Stats:
    """One system's figures, counted only while its window is measured."""

    def __init__(self) -> None:
        self.latencies: list[float] = []  # ms; a failed move counts at the time-out
        self.done_at: list[float] = []  # perf_counter() when each of those was done
        self.offered = 0
        self.served = 0
        self.errors: Counter[str] = Counter()
        self.kinds: Counter[str] = Counter()  # commands sent, by type
        self.gaps = 0
        self.dups = 0
        self.measuring = False
        self.seconds = 0.0
        self.cpu = 0.0
        self.redis_cpu = 0.0
        self.commands = 0
        self.calls: Counter[str] = Counter()  # Redis commands by name
        self.instructions = 0  # with --callgrind
        self.idle_rate = 0.0  # instructions per second with no moves (--callgrind)
        self.window_p99: list[float] = []  # ms, one per measured window
        self.machine_busy = 0.0  # CPU seconds the whole machine spent busy in the windows
        self.machine_steal = 0.0  # CPU seconds stolen by the hypervisor in the windows
        self.gc: Counter[str] = Counter()  # the servers' collector pauses in the windows

    def record(self, ms: float) -> None:
        """A counted move's latency, and when it was done."""
        self.latencies.append(ms)
        self.done_at.append(time.perf_counter())

    def failed(self, code: str, timeout: float, counted: bool) -> None:
        if counted:
            self.errors[code] += 1
            self.record(timeout * 1000)


def natural(card: int) -> bool:
    return not WILD_CAPABLE[card]


class Seat:
    def __init__(self, table: Table, index: int) -> None:
        self.table = table
        self.index = index
        self.ws: Any = None
        self.v = 0
        self.hand: list[int] = []
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
            if f.get("kind") == "game":
                self.fold(f["event"])
            self.table.arrived(v)
        elif typ == "snapshot":
            self.v = f["v"]
            t = self.table
            t.rules = ruleset_from_dict(f["meta"]["rules"])
            game = f.get("game")
            if game:
                self.hand = list(parse_many(game["hand"] or []))
                t.phase, t.turn = game["phase"], game["turn"]
                t.melds = [[] for _ in range(t.rules.teams)]
                if any(game["melds"]):
                    t.stale_melds = True  # not rebuilt from a snapshot: the bot only draws
            t.arrived(self.v)
        elif typ in ("ack", "error"):
            fut = self.acks.pop(f.get("cid", ""), None)
            if fut is not None and not fut.done():
                fut.set_result(f)

    def fold(self, e: dict[str, Any]) -> None:
        """Keep this seat's hand, and (seat 0, for the table) phase, turn and melds."""
        t = self.table
        kind = e["type"]
        own = e.get("seat") == self.index
        lead = self.index == 0
        if kind == "drew":
            if own:
                self.hand.append(parse(e["card"]))
            t.phase = "play"
        elif kind == "discarded":
            if own:
                self.hand.remove(parse(e["card"]))
            t.phase, t.turn = "draw", (e["seat"] + 1) % len(t.seats)
        elif kind in ("took_pile", "muerto_taken"):
            if own and e.get("cards"):
                self.hand += parse_many(e["cards"])
        elif kind in ("melded", "added"):
            cards = parse_many(e["cards"])
            if own:
                for c in cards:
                    self.hand.remove(c)
            if lead:
                t.fold_meld(kind, e, cards)
        elif kind == "hand_ended":
            t.phase = "over"
        elif kind == "hand_started":
            self.hand = list(parse_many(e["hand"] or []))
            t.phase, t.turn = "draw", e["first"]
            t.melds = [[] for _ in range(t.rules.teams)] if t.rules else []
            t.stale_melds = False


class Table:
    def __init__(self, tid: str, seats: int) -> None:
        self.tid = tid
        self.seats = [Seat(self, i) for i in range(seats)]
        self.phase = ""
        self.turn = -1
        self.rules: RuleSet | None = None
        self.melds: list[list[Meld]] = []
        self.stale_melds = False
        self.arrivals: dict[int, list[float]] = {}  # v -> [count, last arrival]
        self.waiting: tuple[int, float, asyncio.Future[float]] | None = None
        self.n = 0

    def fold_meld(self, kind: str, e: dict[str, Any], cards: tuple[int, ...]) -> None:
        """The same meld the server built (every seat is one of these bots, so no wild is
        ever placed by choice and the build is deterministic)."""
        assert self.rules is not None
        try:
            if kind == "melded":
                team = self.rules.team_of(e["seat"])
                self.melds[team].append(build_meld(cards, self.rules, team))
            else:
                team, index = e["team"], e["index"]
                self.melds[team][index] = add_to_meld(self.melds[team][index], cards, self.rules)
        except (RuleViolation, IndexError):
            self.stale_melds = True

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

    def choose(self) -> dict[str, Any] | None:
        """The bot's next command: draw; then add, lay or discard (keeping 3 cards)."""
        if self.phase == "draw":
            return {"type": "draw"}
        if self.phase != "play":
            return None
        hand = self.seats[self.turn].hand
        if not hand:
            return None
        assert self.rules is not None
        team = self.rules.team_of(self.turn)
        if not self.stale_melds and len(hand) >= 4:
            for card in sorted(set(filter(natural, hand))):
                for i, meld in enumerate(self.melds[team]):
                    with contextlib.suppress(RuleViolation):
                        add_to_meld(meld, [card], self.rules)
                        return {"type": "add", "team": team, "meld": i, "cards": [NAME[card]]}
        if not self.stale_melds and len(hand) >= 6:
            run = self._sequence(hand, team)
            if run:
                return {"type": "meld", "cards": [NAME[c] for c in run]}
        return {"type": "discard", "card": NAME[random.choice(hand)]}

    def _sequence(self, hand: list[int], team: int) -> list[int] | None:
        assert self.rules is not None
        by_suit: dict[int, list[int]] = {}
        for card in sorted(set(filter(natural, hand))):
            by_suit.setdefault(SUIT[card], []).append(card)
        for cards in by_suit.values():
            for i in range(len(cards) - 2):
                window = cards[i : i + 3]
                with contextlib.suppress(RuleViolation):
                    build_meld(window, self.rules, team)
                    return window
        return None

    async def move(self, stats: Stats, timeout: float, counted: bool) -> None:
        """One move; ``counted``: it was offered inside the measured window."""
        command = self.choose()
        if command is None:
            stats.failed("not_playable", timeout, counted)
            return
        seat = self.seats[self.turn]
        self.n += 1
        cid = f"m{self.n}"
        loop = asyncio.get_running_loop()
        ack_fut: asyncio.Future[dict[str, Any]] = loop.create_future()
        seat.acks[cid] = ack_fut
        t0 = time.perf_counter()
        await seat.ws.send(
            orjson.dumps(
                {"type": "command", "table": self.tid, "cid": cid, "command": command}
            ).decode()
        )
        try:
            ack = await asyncio.wait_for(ack_fut, timeout)
        except TimeoutError:
            seat.acks.pop(cid, None)
            stats.failed("timeout", timeout, counted)
            return
        if ack["type"] != "ack":
            stats.failed(ack.get("code", "error"), timeout, counted)
            return
        done: asyncio.Future[float] = loop.create_future()
        self.waiting = (ack["v"], t0, done)
        self._check()
        try:
            latency = await asyncio.wait_for(done, max(0.01, t0 + timeout - time.perf_counter()))
        except TimeoutError:
            self.waiting = None
            stats.failed("timeout", timeout, counted)
            return
        for old in [k for k in self.arrivals if k < ack["v"] - 8]:
            del self.arrivals[old]
        if counted:
            stats.served += 1
            stats.kinds[command["type"]] += 1
            stats.record(latency * 1000)


async def pace(
    tables: list[Any],
    stats: Stats,
    seconds: float,
    timeout: float,
    stop: asyncio.Event | None = None,
) -> None:
    """Each table is offered one move a second, at its own phase within the second; a
    move slower than a second makes its table miss ticks, which count as offered. Until
    ``seconds`` have passed, or ``stop`` is set."""

    async def one(table: Any, offset: float) -> None:
        await asyncio.sleep(offset)
        start = time.perf_counter()
        k = 0
        while time.perf_counter() - start < seconds and not (stop and stop.is_set()):
            counted = stats.measuring
            if counted:
                stats.offered += 1
            try:
                await table.move(stats, timeout, counted)
            except (websockets.ConnectionClosed, OSError):
                stats.failed("closed", timeout, counted)
            k += 1
            behind = int(time.perf_counter() - start) - k
            if behind > 0:  # ticks missed while the move waited
                if counted:
                    stats.offered += behind
                    stats.errors["missed_tick"] += behind
                k += behind
            await asyncio.sleep(max(0.0, start + k - time.perf_counter()))

    await asyncio.gather(*(one(t, random.random()) for t in tables))


def gc_pause_figures(text: str) -> Counter[str]:
    """From one server's /metrics: its ``buraco_gc_pause_seconds`` as how many pauses,
    their seconds in all (also by generation: ``count0``, ``seconds0``...), and how many
    took up to 5 and up to 10 ms."""
    out: Counter[str] = Counter()
    for family in text_string_to_metric_families(text):
        if family.name != "buraco_gc_pause_seconds":
            continue
        for sample in family.samples:
            kind = sample.name.removeprefix(family.name)
            generation = sample.labels.get("generation", "")
            if kind in ("_count", "_sum"):
                what = "count" if kind == "_count" else "seconds"
                out[what] += sample.value
                out[what + generation] += sample.value
            elif kind == "_bucket" and sample.labels["le"] in ("0.005", "0.01"):
                out["upto_5ms" if sample.labels["le"] == "0.005" else "upto_10ms"] += sample.value
    return out


async def gc_pauses(bases: list[str]) -> Counter[str]:
    """``gc_pause_figures`` summed over the servers."""
    out: Counter[str] = Counter()
    async with httpx.AsyncClient(timeout=10) as http:
        for base in bases:
            out.update(gc_pause_figures((await http.get(base + "/metrics")).text))
    return out


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


def refused(r: httpx.Response) -> bool:
    """A saturated process's refusal of a new table or seat (503 ``server_busy``)."""
    if r.status_code != 503:
        return False
    with contextlib.suppress(ValueError, AttributeError):
        return bool(r.json()["error"]["code"] == "server_busy")
    return False


async def setup_tables(
    bases: list[str],
    k: int,
    hand_size: int,
    stats: Stats,
    layout: str = "split",
    ramp_seconds: float = 0,
    timeout: float = 5.0,
) -> tuple[list[Table], list[asyncio.Task[None]], int]:
    """Guests, then tables as players make them: a table is created (4 seats, each table
    on a process in turn), its three other players sit, and its four sockets watch it at
    once, so a process counts its tables as they come. A table a saturated process
    refuses (``server_busy`` at its creation or at a seat) is counted and left out: the
    tables that got in are the ones played. ``split``: a table's four sockets alternate
    between the processes (each process serves half of every table: every move is
    received by all of them); ``table``: all four on the process that made it (a
    balancer that routes by table). With ``ramp_seconds``, tables arrive at a steady
    rate over that time and each one plays (a move a second, not measured) as soon as
    it is dealt, so the processes are loaded while the later ones arrive, as when
    players come in the evening: what refuses them then is the loop's lag, not a cap.
    Returns the tables, their readers and how many were refused."""
    # Idle connections are let go well before uvicorn's 5 s keep-alive ends, so a
    # request never goes out on a connection the server is closing (httpx.ReadError).
    limits = httpx.Limits(max_connections=32, keepalive_expiry=1.0)
    clients = [httpx.AsyncClient(base_url=b, timeout=60, limits=limits) for b in bases]
    ws_urls = [b.replace("http", "ws") + "/ws" for b in bases]
    rules = {"hand_size": hand_size, "muerto_size": hand_size}

    # One connection pool per process for every guest's sign-up (a client of its own per
    # guest keeps the cookie jars apart; building a transport each time costs the client
    # an SSL context, which made the set-up of 4,000 guests take minutes).
    transports = [httpx.AsyncHTTPTransport(limits=limits) for _ in bases]

    async def guest(i: int) -> str:
        # Not closed: closing a client closes its transport, which the others share.
        c = httpx.AsyncClient(
            base_url=bases[i % len(bases)], timeout=60, transport=transports[i % len(bases)]
        )
        for _ in range(20):  # guest nicknames may collide under a burst (409): again
            r = await c.post("/api/auth/guest")
            if r.status_code != 409:
                break
        r.raise_for_status()
        return str(c.cookies.get("buraco_session"))

    cookies = await gather_limited([guest(i) for i in range(4 * k)])
    for t in transports:
        await t.aclose()
    readers: list[asyncio.Task[None]] = []

    async def open_seat(t: int, seat: Seat) -> None:
        at = t if layout == "table" else t + seat.index
        url = ws_urls[at % len(ws_urls)]
        seat.ws = await open_ws(
            url, {"Cookie": f"buraco_session={cookies[4 * t + seat.index]}", "Origin": ORIGIN}
        )
        await seat.ws.recv()  # hello
        readers.append(asyncio.create_task(seat.run(stats)))
        await seat.ws.send(orjson.dumps({"type": "watch", "table": seat.table.tid}).decode())

    async def post(c: httpx.AsyncClient, url: str, **kw: Any) -> httpx.Response:
        """A POST, sent again when its pooled connection was closed under it (the
        keep-alive race, seen on loaded servers; a create sent twice leaves one table
        nobody watches, a sit sent twice is told its seat is taken: by us) or when the
        table says ``table_busy`` (its change lost a race: "try again")."""
        resent = False
        for attempt in range(6):
            try:
                r = await c.post(url, **kw)
            except httpx.TransportError:
                if attempt == 5:
                    raise
                resent = True
                continue
            code = r.json().get("error", {}).get("code") if r.status_code == 409 else None
            if code == "table_busy" and attempt < 5:
                await asyncio.sleep(0.1 * (attempt + 1))
                continue
            if resent and code in ("already_seated", "seat_taken"):
                return httpx.Response(200, request=r.request)
            return r
        raise AssertionError("unreachable")

    unfilled: Counter[str] = Counter()  # seats refused with a 409 while tables arrive
    last_in = [0.0]  # perf_counter() when the last table that got in was made

    async def make(t: int) -> Table | None:
        c = clients[t % len(clients)]
        own = cookies[4 * t : 4 * t + 4]
        r = await post(
            c,
            "/api/tables",
            json={"players": 4, "rules": rules, "name": "load", "target_score": TARGET_SCORE},
            cookies={"buraco_session": own[0]},
        )
        if refused(r):
            return None
        r.raise_for_status()
        tid = r.json()["id"]
        table = Table(tid, 4)
        await open_seat(t, table.seats[0])  # the maker watches the table it made
        for seat in (1, 2, 3):
            r = await post(
                c,
                f"/api/tables/{tid}/sit",
                json={"seat": seat},
                cookies={"buraco_session": own[seat]},
            )
            if refused(r) or (ramp_seconds and r.status_code == 409):
                # A table that cannot fill is not played: its players go. (While tables
                # arrive under load, a seat may also be refused with a 409, counted.)
                if not refused(r):
                    unfilled[r.json().get("error", {}).get("code", "409")] += 1
                for gone in table.seats[:seat]:
                    await gone.ws.close()
                return None
            r.raise_for_status()
            await open_seat(t, table.seats[seat])
        return table

    if ramp_seconds <= 0:
        made = await gather_limited([make(t) for t in range(k)], 32)
    else:
        ramped = Stats()  # moves while the tables arrive: counted apart, not measured
        ramped.measuring = True
        stop = asyncio.Event()
        playing: list[asyncio.Task[None]] = []

        async def arrive(t: int) -> Table | None:
            await asyncio.sleep(t * ramp_seconds / k)
            table = await make(t)
            if table is not None:
                last_in[0] = time.perf_counter()
                until = time.monotonic() + 60
                while table.phase != "draw" or any(s.v == 0 for s in table.seats):
                    if time.monotonic() > until:
                        raise RuntimeError("a table did not start")
                    await asyncio.sleep(0.2)
                playing.append(
                    asyncio.create_task(pace([table], ramped, float("inf"), timeout, stop))
                )
            return table

        try:
            made = list(await asyncio.gather(*(arrive(t) for t in range(k))))
        finally:
            stop.set()
            await asyncio.gather(*playing)
        # the tail as the ramp went on: the p99 of the moves done in each fifth of it
        t_first = min(ramped.done_at, default=0.0)
        span = max(ramped.done_at, default=0.0) - t_first
        fifths: list[list[float]] = [[] for _ in range(5)]
        for ms, at in zip(ramped.latencies, ramped.done_at, strict=True):
            fifths[min(4, int(5 * (at - t_first) / max(span, 1e-9)))].append(ms)
        RAMP["ramp_p99_ms_by_fifth"] = [round(pct(f, 0.99), 2) for f in fifths]
        # once the last table that got in was made, every later one was refused
        refusing = [
            ms for ms, at in zip(ramped.latencies, ramped.done_at, strict=True) if at > last_in[0]
        ]
        RAMP.update(
            ramp_p99_ms=round(pct(ramped.latencies, 0.99), 2),
            ramp_failures=sum(ramped.errors.values()),
            ramp_refusing_moves=len(refusing),
            ramp_refusing_p99_ms=round(pct(refusing, 0.99), 2) if refusing else None,
        )
        print(
            f"while they arrived: {ramped.served}/{ramped.offered} moves served in time, "
            f"p99 {RAMP['ramp_p99_ms']:.1f} ms, failures {dict(ramped.errors)}; "
            f"after the last table got in (every later one refused): {len(refusing)} moves, p99 "
            f"{RAMP['ramp_refusing_p99_ms']} ms; by fifth of the ramp "
            f"{RAMP['ramp_p99_ms_by_fifth']} ms; seats refused otherwise: {dict(unfilled)}",
            flush=True,
        )
    for c in clients:
        await c.aclose()
    tables = [t for t in made if t is not None]
    deadline = time.monotonic() + 120
    dealt = lambda t: t.phase == "draw" and all(s.v for s in t.seats)  # noqa: E731
    while not ramp_seconds and not all(dealt(t) for t in tables):
        if time.monotonic() > deadline:
            raise RuntimeError("tables did not start")
        await asyncio.sleep(0.2)
    return tables, readers, k - len(tables)


# ---------------------------------------------------------------- the baseline


class EchoTable:
    def __init__(self, tid: str) -> None:
        self.tid = tid
        self.socks: list[Any] = []
        self.v = 0
        self.counts: dict[int, list[float]] = {}
        self.waiting: tuple[int, float, asyncio.Future[float]] | None = None
        self.error: asyncio.Future[str] | None = None

    async def read(self, ws: Any) -> None:
        async for raw in ws:
            msg = orjson.loads(raw)
            if "error" in msg:
                if self.error is not None and not self.error.done():
                    self.error.set_result(msg["error"])
                continue
            v = msg["v"]
            if v > self.v:  # a move that timed out was applied later: follow it
                self.v = v
            entry = self.counts.setdefault(v, [0, 0.0])
            entry[0] += 1
            entry[1] = time.perf_counter()
            if self.waiting and self.waiting[0] == v and entry[0] >= len(self.socks):
                _, t0, fut = self.waiting
                if not fut.done():
                    fut.set_result(entry[1] - t0)

    async def move(self, stats: Stats, timeout: float, counted: bool) -> None:
        v = self.v + 1  # one sender per table at a time, so versions are predictable
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[float] = loop.create_future()
        self.error = loop.create_future()
        t0 = time.perf_counter()
        self.waiting = (v, t0, fut)
        await self.socks[v % len(self.socks)].send(orjson.dumps({"m": v}).decode())
        waiters: set[asyncio.Future[Any]] = {fut, self.error}
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        self.counts.pop(v - 4, None)
        if fut in done:
            if counted:
                stats.served += 1
                stats.record(fut.result() * 1000)
            return
        stats.failed(self.error.result() if self.error in done else "timeout", timeout, counted)
        self.v = max(self.v, v)


async def start_baseline(
    k: int, redis_url: str, log_dir: Path, processes: int
) -> tuple[list[subprocess.Popen[bytes]], BaselinePlayers]:
    """``processes`` baseline servers, as many as the app's, so the baseline has the
    same cores to spread over; it has no way to reach another process's sockets, so
    each table's four sockets go to one of them (table t on process t mod P), the
    layout that favours it."""
    run_id = os.urandom(4).hex()  # fresh keys: versions start at 1 even if Redis kept old ones
    ports = [free_port() for _ in range(processes)]
    procs = [
        start(
            [
                *CALLGRIND,
                sys.executable,
                "-c",
                BASELINE_SERVER,
                str(port),
                redis_url,
                str(MAX_CONNECTIONS),
            ],
            {**os.environ, "PYTHONPATH": str(REPO)},
            log_dir / f"baseline-{i}.log",
        )
        for i, port in enumerate(ports)
    ]
    for port in ports:
        for _ in range(2000 if CALLGRIND else 200):
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            time.sleep(0.1)
    players = await BaselinePlayers.start(ports, k, run_id, log_dir)
    return procs, players


async def open_echo_tables(
    ports: list[int], k: int, run_id: str
) -> tuple[list[EchoTable], list[Any]]:
    """The baseline's ``k`` tables, four sockets each, table t on server t mod P."""
    tables = [EchoTable(f"e{run_id}:{t}") for t in range(k)]
    readers = []

    async def open_sock(t: int, table: EchoTable) -> None:
        ws = await open_ws(f"ws://127.0.0.1:{ports[t % len(ports)]}")
        await ws.send(orjson.dumps({"table": table.tid}).decode())
        table.socks.append(ws)
        readers.append(asyncio.create_task(table.read(ws)))

    await gather_limited(
        [open_sock(t, table) for t, table in enumerate(tables) for _ in range(4)], 64
    )
    return tables, readers


class BaselinePlayers:
    """The baseline's simulated players, in a process of their own (this file with
    ``--baseline-players``), driven over its stdin and stdout one JSON line at a time.

    A process may hold only so many sockets (the hard limit on open files, 20,000 on
    this machine, which a process without CAP_SYS_RESOURCE cannot raise): at 2,500
    tables and more, the servers' 4 sockets a table and the baseline's 4 more do not fit
    in one. Each system's players now have a loop of their own, which is also what
    each system gets from real players; the two processes' CPU is the client's."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @property
    def pid(self) -> int:
        return self.proc.pid

    @classmethod
    async def start(cls, ports: list[int], k: int, run_id: str, log_dir: Path) -> BaselinePlayers:
        config = {"ports": ports, "tables": k, "run_id": run_id, "client": CLIENT[0]}
        with (log_dir / "baseline-players.log").open("ab") as log:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                str(Path(__file__).resolve()),
                "--baseline-players",
                json.dumps(config),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                limit=1 << 28,  # a window's latencies come back on one line
            )
        players = cls(proc)
        ready = await players._read()
        if ready.get("ready") != k:
            raise RuntimeError(f"the baseline's players did not start: {ready}")
        return players

    async def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the baseline's players exited (see baseline-players.log)")
        return dict(json.loads(line))

    async def _write(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        await self.proc.stdin.drain()

    async def begin(self, seconds: float, warm: float, timeout: float) -> None:
        """Start a window; returns when the players start counting (after ``warm``)."""
        await self._write({"window": seconds, "warm": warm, "timeout": timeout})
        started = await self._read()
        assert started.get("measuring"), started

    async def finish(self, stats: Stats) -> None:
        """The window's figures, once its moves in flight are done, added to ``stats``."""
        result = await self._read()
        stats.latencies += result["latencies"]
        stats.done_at += result["done_at"]  # perf_counter() is the machine's monotonic clock
        stats.offered += result["offered"]
        stats.served += result["served"]
        stats.errors.update(result["errors"])

    async def close(self) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            await self._write({"close": True})
        try:
            await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


async def baseline_players(config: dict[str, Any]) -> None:
    """The ``--baseline-players`` process: opens the baseline's sockets, then plays one
    window per request read from stdin and writes its figures to stdout."""
    CLIENT[0] = config["client"]
    tables, readers = await open_echo_tables(config["ports"], config["tables"], config["run_id"])
    quiet_client_gc()
    out = sys.stdout

    def say(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    say({"ready": len(tables)})
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            break
        request = json.loads(line)
        if request.get("close"):
            break
        stats = Stats()
        seconds, warm = request["window"], request["warm"]
        task = asyncio.create_task(pace(tables, stats, seconds + warm, request["timeout"]))
        await asyncio.sleep(warm)
        stats.measuring = True
        say({"measuring": True})
        await asyncio.sleep(seconds)
        stats.measuring = False
        await task
        say(
            {
                "latencies": stats.latencies,
                "done_at": stats.done_at,
                "offered": stats.offered,
                "served": stats.served,
                "errors": dict(stats.errors),
            }
        )
    for t in tables:
        for ws in t.socks:
            await ws.close()
    for reader in readers:
        reader.cancel()


# ---------------------------------------------------------------- main


async def window(
    system: Stats,
    players: list[Any] | BaselinePlayers,
    seconds: float,
    timeout: float,
    pids: list[int],
    nodes: RedisNodes,
) -> None:
    """One measured window of one system: a short warm-up, then ``seconds`` counted.
    ``players``: the tables this process plays, or the baseline's players process."""
    warm = min(3.0, seconds / 4)
    if isinstance(players, BaselinePlayers):
        await players.begin(seconds, warm, timeout)  # back when it starts counting
    else:
        task = asyncio.create_task(pace(players, system, seconds + warm, timeout))
        await asyncio.sleep(warm)
    cpu0, rcpu0, cmd0 = sum(cpu_seconds(p) for p in pids), nodes.cpu(), nodes.commands()
    calls0 = nodes.commandstats()
    for p in pids if CALLGRIND else ():
        callgrind(p, "-z")
        callgrind(p, "-i", "on")
    first = len(system.latencies)
    busy0, steal0 = machine_jiffies()
    system.measuring = True
    t0 = time.perf_counter()
    await asyncio.sleep(seconds)
    system.measuring = False
    busy1, steal1 = machine_jiffies()
    tick = os.sysconf("SC_CLK_TCK")
    system.machine_busy += (busy1 - busy0) / tick
    system.machine_steal += (steal1 - steal0) / tick
    for p in pids if CALLGRIND else ():
        system.instructions += instructions(p)
        callgrind(p, "-i", "off")
    system.seconds += time.perf_counter() - t0
    system.cpu += sum(cpu_seconds(p) for p in pids) - cpu0
    system.redis_cpu += nodes.cpu() - rcpu0
    system.commands += nodes.commands() - cmd0
    system.calls += nodes.commandstats() - calls0
    # the moves in flight finish (uncounted) before the other system starts
    if isinstance(players, BaselinePlayers):
        await players.finish(system)
    else:
        await task
    # every move offered in this window has its latency now (served or failed)
    system.window_p99.append(pct(system.latencies[first:], 0.99))


def app_env(
    db_url: str,
    redis_url: str,
    log_dir: Path,
    max_tables: int = 0,
    max_lag_ms: float = 200,
    max_cpu_demand: float = 0,
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BURACO_")}
    env.update(
        {
            "BURACO_ENV": "test",
            "BURACO_DATABASE_URL": db_url,
            "BURACO_REDIS_URL": redis_url,
            "BURACO_TURN_SECONDS": "3600",
            "BURACO_TURBO_TURN_SECONDS": "3600",
            "BURACO_DISCONNECT_GRACE_SECONDS": "3600",
            "BURACO_BOT_DELAY_SECONDS": "0",
            "BURACO_SIGNUP_LIMIT_PER_IP": "1000000",
            "BURACO_WS_ALLOWED_ORIGINS": ORIGIN,
            "BURACO_LOG_LEVEL": "WARNING",
            "BURACO_VAR_DIR": str(log_dir),
            "BURACO_FRONTEND_DIR": str(log_dir / "none"),
            "BURACO_REDIS_MAX_CONNECTIONS": str(MAX_CONNECTIONS),
            # Guests may not open 4-seat (special) tables with the economy on; the economy
            # only acts when a game starts and ends, never on a move, so it is off here.
            "BURACO_ECONOMY_ENABLED": "false",
            # Every simulated player connects from 127.0.0.1 (docs/security.md: per address).
            "BURACO_WS_MAX_SOCKETS_PER_IP": "1000000",
            # When a process refuses new tables (app/tables/live/overload.py)
            "BURACO_MAX_TABLES_PER_PROCESS": str(max_tables),
            "BURACO_MAX_LOOP_LAG_MS": str(max_lag_ms),
            "BURACO_MAX_CPU_DEMAND": str(max_cpu_demand),
        }
    )
    return env


async def run(args: argparse.Namespace) -> dict[str, Any]:
    log_dir = Path(args.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    owned: list[subprocess.Popen[bytes]] = []
    redis_dir: Path | None = None
    redis_url = args.redis_url
    if args.redis_cluster:
        cluster_procs, redis_url, redis_dir = start_cluster(log_dir, args.redis_cluster)
        owned.extend(cluster_procs)
    elif not redis_url:
        redis_proc, redis_url, redis_dir = start_redis(log_dir)
        owned.append(redis_proc)
    try:
        return await measure(args, log_dir, redis_url, owned)
    finally:
        stop(owned)
        if redis_dir is not None:
            shutil.rmtree(redis_dir, ignore_errors=True)


async def measure(
    args: argparse.Namespace, log_dir: Path, redis_url: str, owned: list[subprocess.Popen[bytes]]
) -> dict[str, Any]:
    nodes = RedisNodes(redis_url)
    db_url = await fresh_database(args.pg_admin_url, args.database)
    env = app_env(
        db_url,
        redis_url,
        log_dir,
        args.max_tables_per_process,
        args.max_loop_lag_ms,
        args.max_cpu_demand,
    )
    ports = [free_port() for _ in range(args.processes)]
    profile = (
        (lambda p: ["-m", "cProfile", "-o", f"{args.profile}/server-{p}.prof"])
        if args.profile
        else (lambda p: [])
    )
    procs = [
        start(
            [
                *CALLGRIND,
                sys.executable,
                *profile(p),
                "-m",
                "uvicorn",
                "app.main:create_app",
                "--factory",
                "--host",
                "127.0.0.1",
                "--port",
                str(p),
                "--no-access-log",
                "--log-level",
                "warning",
                "--loop",
                "uvloop",
                "--ws",
                args.ws,
                "--backlog",
                "4096",
                "--ws-per-message-deflate",
                "false",
            ],
            env,
            log_dir / f"uvicorn-{p}.log",
        )
        for p in ports
    ]
    owned.extend(procs)
    for p, proc in zip(ports, procs, strict=True):
        wait_ready(f"http://127.0.0.1:{p}/readyz", proc, 600 if CALLGRIND else 60)
    bases = [f"http://127.0.0.1:{p}" for p in ports]
    idle_rss = [rss_mib(p.pid) for p in procs]  # each process before any table or socket
    print(
        f"starting {args.tables} tables ({4 * args.tables} sockets) on "
        f"{args.processes} processes, hands of {args.hand_size}",
        flush=True,
    )
    main_stats, base_stats = Stats(), Stats()
    tables, readers, refusals = await setup_tables(
        bases,
        args.tables,
        args.hand_size,
        main_stats,
        args.layout,
        args.ramp_seconds,
        args.move_timeout,
    )
    if refusals:
        print(f"{refusals} tables refused (server_busy); {len(tables)} playing", flush=True)
    if not tables:
        raise SystemExit("every table was refused")
    # the baseline plays as many tables as got in
    base_procs, base_players = await start_baseline(len(tables), redis_url, log_dir, args.processes)
    owned.extend(base_procs)
    base_pids = [p.pid for p in base_procs]
    print("all tables playing; alternating windows", flush=True)
    quiet_client_gc()
    client0 = time.process_time() + cpu_seconds(base_players.pid)
    each = args.seconds / args.rounds
    if CALLGRIND:  # what each system does with no move at all (timers, heartbeats)
        for stats, pids in ((main_stats, [p.pid for p in procs]), (base_stats, base_pids)):
            stats.idle_rate = await idle_instructions(pids, each)
    for _ in range(args.rounds):
        before = await gc_pauses(bases)
        await window(main_stats, tables, each, args.move_timeout, [p.pid for p in procs], nodes)
        await asyncio.sleep(0.6)  # the servers move their pauses into the metric every 0.5 s
        after = await gc_pauses(bases)
        main_stats.gc.update({k: after[k] - before[k] for k in after})
        await window(base_stats, base_players, each, args.move_timeout, base_pids, nodes)
    client_cpu = time.process_time() + cpu_seconds(base_players.pid) - client0
    rss = [rss_mib(p.pid) for p in procs]
    for table in tables:
        for seat in table.seats:
            await seat.ws.close()
    await base_players.close()
    for reader in readers:
        reader.cancel()
    gc.unfreeze()
    gc.enable()
    return summary(args, main_stats, base_stats, client_cpu, rss, idle_rss, len(tables))


def instruction_figures(m: Stats, b: Stats) -> dict[str, Any]:
    """Instructions per move, and per move beyond what the system does with no move at
    all (the "marginal" ones: its timers and heartbeats, a fixed cost per second, left
    out; at thousands of tables that cost spreads over thousands of moves a second)."""
    out: dict[str, Any] = {}
    for name, s in (("server", m), ("baseline", b)):
        n = max(s.served, 1)
        out[f"{name}_instructions_per_move"] = round(s.instructions / n)
        out[f"{name}_idle_instructions_per_second"] = round(s.idle_rate)
        out[f"{name}_marginal_instructions_per_move"] = round(
            max(0.0, s.instructions - s.idle_rate * s.seconds) / n
        )
    out["instructions_ratio"] = round(
        out["server_instructions_per_move"] / max(out["baseline_instructions_per_move"], 1), 2
    )
    out["marginal_instructions_ratio"] = round(
        out["server_marginal_instructions_per_move"]
        / max(out["baseline_marginal_instructions_per_move"], 1),
        2,
    )
    return out


def summary(
    args: argparse.Namespace,
    m: Stats,
    b: Stats,
    client_cpu: float,
    rss: list[float],
    idle_rss: list[float],
    playing: int,
) -> dict[str, Any]:
    served, base_served = max(m.served, 1), max(b.served, 1)
    p99, base_p99 = pct(m.latencies, 0.99), pct(b.latencies, 0.99)
    cpu_us, base_cpu_us = m.cpu / served * 1e6, b.cpu / base_served * 1e6
    print(
        f"server: {m.served}/{m.offered} moves served in {m.seconds:.1f}s "
        f"({dict(m.kinds)}), failures {dict(m.errors)}, gaps {m.gaps}, duplicates "
        f"{m.dups}",
        flush=True,
    )
    print(
        f"server CPU {cpu_us:.0f} us/move, Redis CPU {m.redis_cpu / served * 1e6:.0f} "
        f"us/move, Redis commands/move {m.commands / served:.2f}: "
        f"{ {k: round(v / served, 2) for k, v in m.calls.most_common(12) if v > 0} }",
        flush=True,
    )
    print(
        f"baseline: {b.served}/{b.offered} moves, failures {dict(b.errors)}, p50 "
        f"{pct(b.latencies, 0.5):.2f} ms, p99 {base_p99:.2f} ms, CPU {base_cpu_us:.0f} "
        f"us/move, Redis CPU {b.redis_cpu / base_served * 1e6:.0f} us/move",
        flush=True,
    )
    elapsed = m.seconds + b.seconds
    print(
        f"client CPU {client_cpu:.2f}s ({client_cpu / max(elapsed, 1e-9):.0%} of a core); "
        f"load average {os.getloadavg()[0]:.2f}; RSS per process {rss}",
        flush=True,
    )
    busy, base_busy = m.machine_busy / max(m.seconds, 1e-9), b.machine_busy / max(b.seconds, 1e-9)
    steal = (m.machine_steal + b.machine_steal) / max(elapsed * (os.cpu_count() or 1), 1e-9)
    print(
        f"p99 by window (ms): server {[round(x, 1) for x in m.window_p99]}, baseline "
        f"{[round(x, 1) for x in b.window_p99]}; machine busy {busy:.2f} of "
        f"{os.cpu_count()} cores in the server's windows, {base_busy:.2f} in the "
        f"baseline's; stolen {steal:.1%}",
        flush=True,
    )
    gc_count = int(m.gc["count"])
    print(
        f"servers' collector in their windows: {gc_count} pauses, "
        f"{m.gc['seconds'] * 1000:.1f} ms in all, "
        f"{gc_count - int(m.gc['upto_5ms'])} over 5 ms, "
        f"{gc_count - int(m.gc['upto_10ms'])} over 10 ms; by generation "
        + ", ".join(
            f"{g}: {int(m.gc[f'count{g}'])} ({m.gc[f'seconds{g}'] * 1000:.1f} ms)" for g in range(3)
        ),
        flush=True,
    )
    return {
        "tables": playing,
        "tables_offered": args.tables,
        "tables_refused": args.tables - playing,
        "max_tables_per_process": args.max_tables_per_process,
        "max_loop_lag_ms": args.max_loop_lag_ms,
        "max_cpu_demand": args.max_cpu_demand,
        "ramp_seconds": args.ramp_seconds,
        "processes": args.processes,
        "layout": args.layout,
        "ws": args.ws,
        "client": args.client,
        "hand_size": args.hand_size,
        "moves_per_s": round(m.served / max(m.seconds, 1e-9), 1),
        "p50_ms": round(pct(m.latencies, 0.5), 2),
        "p99_ms": round(p99, 2),
        "served_ratio": round(m.served / max(m.offered, 1), 4),
        "redis_round_trips_per_move": round(round_trips(m.calls) / served, 2),
        "redis_commands_per_move": round(m.commands / served, 2),
        "baseline_p99_ms": round(base_p99, 2),
        "baseline_errors": sum(b.errors.values()),
        "overhead_ratio": round(p99 / max(base_p99, 1e-9), 2),
        "server_cpu_us_per_move": round(cpu_us),
        "baseline_cpu_us_per_move": round(base_cpu_us),
        "cpu_ratio": round(cpu_us / max(base_cpu_us, 1e-9), 2),
        "redis_cpu_us_per_move": round(m.redis_cpu / served * 1e6),
        "baseline_redis_cpu_us_per_move": round(b.redis_cpu / base_served * 1e6),
        "rss_mib_per_process": round(sum(rss) / max(len(rss), 1), 1),
        "idle_rss_mib_per_process": round(sum(idle_rss) / max(len(idle_rss), 1), 1),
        # what the tables add to a process, over the process before them: the issue's
        # "KiB per table per process" (RSS grown while playing / tables)
        "kib_per_table_per_process": round(
            (sum(rss) - sum(idle_rss)) * 1024 / max(len(rss), 1) / max(playing, 1), 1
        ),
        "lost": m.gaps,
        "duplicated": m.dups,
        "failures": sum(m.errors.values()),
        "client_cpu_share": round(client_cpu / max(elapsed, 1e-9), 2),
        "load_average": round(os.getloadavg()[0], 2),
        "p99_ms_windows": [round(x, 2) for x in m.window_p99],
        "baseline_p99_ms_windows": [round(x, 2) for x in b.window_p99],
        "machine_busy_cores": round(busy, 2),
        "baseline_machine_busy_cores": round(base_busy, 2),
        "steal_share": round(steal, 4),
        "server_gc_pauses": gc_count,
        "server_gc_pause_ms": round(m.gc["seconds"] * 1000, 1),
        "server_gc_pauses_over_5ms": gc_count - int(m.gc["upto_5ms"]),
        "server_gc_pauses_over_10ms": gc_count - int(m.gc["upto_10ms"]),
        "server_gc_pauses_by_generation": [int(m.gc[f"count{g}"]) for g in range(3)],
        **(instruction_figures(m, b) if CALLGRIND else {}),
        **RAMP,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--seconds",
        type=float,
        default=20,
        help="measured seconds per system, split over the rounds",
    )
    parser.add_argument(
        "--rounds", type=int, default=2, help="alternations of the main run and the baseline"
    )
    parser.add_argument(
        "--hand-size",
        type=int,
        default=11,
        help="cards per hand and per muerto (11 in every real preset)",
    )
    parser.add_argument(
        "--move-timeout",
        type=float,
        default=5.0,
        help="a move not seen by all four sockets by then has failed",
    )
    parser.add_argument(
        "--redis-url",
        default="",
        help="a Redis (or redis+cluster://) to use instead of starting one; never flushed",
    )
    parser.add_argument(
        "--redis-cluster",
        type=int,
        default=0,
        metavar="MASTERS",
        help="start a fresh local Redis Cluster of this many masters for the run (3 for "
        "the issue's figures) and remove it after",
    )
    parser.add_argument(
        "--pg-admin-url", default="postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
    )
    parser.add_argument("--database", default="buraco_load")
    parser.add_argument("--log-dir", default="/tmp/buraco-load")
    parser.add_argument(
        "--profile", default="", help="a folder: run the servers under cProfile and write there"
    )
    parser.add_argument(
        "--layout",
        choices=("split", "table"),
        default="split",
        help="split: each table's sockets on every process in turn (the default, the "
        "worst case: every process receives every move); table: a table's sockets all on "
        "one process (a balancer routing by table)",
    )
    parser.add_argument(
        "--ws",
        choices=("websockets-sansio", "websockets"),
        default="websockets-sansio",
        help="uvicorn's WebSocket implementation: websockets-sansio is what uvicorn picks "
        "by itself (make run, the image); websockets is the legacy one",
    )
    parser.add_argument(
        "--client",
        choices=("lean", "websockets"),
        default="lean",
        help="the simulated players' WebSocket client: lean (benchmarks/wsclient.py, a "
        "bare asyncio protocol: the instrument takes less of the cores it shares with "
        "the servers) or websockets (the library's asyncio client)",
    )
    parser.add_argument(
        "--max-tables-per-process",
        type=int,
        default=0,
        help="the servers' cap on the tables a process serves (BURACO_MAX_TABLES_PER_PROCESS; "
        "0: none): past it, new tables are refused with server_busy and left out of the run",
    )
    parser.add_argument(
        "--ramp-seconds",
        type=float,
        default=0,
        help="tables arrive over this many seconds, each playing (unmeasured) from its "
        "deal while the later ones come; 0: every table is seated before the first move",
    )
    parser.add_argument(
        "--max-loop-lag-ms",
        type=float,
        default=200,
        help="the servers' event-loop lag past which new tables are refused "
        "(BURACO_MAX_LOOP_LAG_MS)",
    )
    parser.add_argument(
        "--max-cpu-demand",
        type=float,
        default=None,
        help="the servers' CPU demand (share of time the event loop ran or waited to run) "
        "past which new tables are refused (BURACO_MAX_CPU_DEMAND); default: the "
        "servers' own default with --ramp-seconds, 0 (off) without, where every table is "
        "seated in one burst before the first move and a burst is not what is measured",
    )
    parser.add_argument(
        "--callgrind",
        default="",
        help="a folder: run the servers and the baseline under valgrind's callgrind and "
        "count instructions per move in the measured windows (slow: use few tables)",
    )
    parser.add_argument("--baseline-players", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.max_cpu_demand is None:
        server_default = Settings.model_fields["max_cpu_demand"].default
        args.max_cpu_demand = server_default if args.ramp_seconds else 0.0
    CLIENT[0] = args.client
    if args.callgrind:
        CALLGRIND.extend(callgrind_prefix(args.callgrind))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    import uvloop

    uvloop.install()
    if args.baseline_players:  # the baseline's players' own process (BaselinePlayers)
        asyncio.run(baseline_players(json.loads(args.baseline_players)))
        return
    result = asyncio.run(run(args))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
