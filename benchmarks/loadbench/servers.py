"""The machine under the benchmark: its processes (the servers, Redis, a Redis Cluster,
valgrind's callgrind), the Postgres database it makes, and the counters read from
/proc and Redis (CPU seconds, resident memory, Redis commands).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import redis
from scratch import create_database

REPO = Path(__file__).resolve().parents[2]
WHO = "benchmarks/load.py"

ORIGIN = "http://load.test"
TARGET_SCORE = 100_000  # a match of many hands: tables keep playing however long the run
CLIENT = ["lean"]  # --client: the simulated players' WebSocket client
MAX_CONNECTIONS = 128  # the servers' and the baseline's Redis pool (blocking)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    return sum(cpu_split(pid))


def cpu_split(pid: int) -> tuple[float, float]:
    """(user, kernel) CPU seconds of a process: its kernel share is mostly the loopback
    TCP stack its sends and receives run through, which no user-space change shortens."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def io_calls(pid: int) -> tuple[int, int]:
    """(read, write) system calls a process has made (``/proc/PID/io``'s syscr and syscw:
    read, recv and the like; write, send and the like), or (0, 0) where it cannot be
    read. A move's writes are its frames and its commit; its reads, the command and the
    commit's answer: the kernel's share of a move goes mostly through them."""
    try:
        with open(f"/proc/{pid}/io") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        return int(fields["syscr"]), int(fields["syscw"])
    except (OSError, KeyError, ValueError):
        return 0, 0


def runqueue_seconds(pid: int) -> float:
    """Seconds the process's threads have spent runnable but waiting for a CPU (each
    ``/proc/PID/task/TID/schedstat``'s second field; 0 where the kernel keeps none). On a
    full machine a process waits there however little it asks for: a tail that grows
    with it is the machine's run queue, not the process's own work."""
    total = 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile
    return total / 1e9


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


# Commands Redis counts that are not round trips of their own: those the scripts run
# inside Redis (the commit's HMGET of the version, the saved state's version and the only
# watcher, its HGET of the command id; the load's HMGET and HGET; on one server also the
# ZADD of a new turn clock), and on a cluster the ZADD that goes beside the EVALSHA. A
# move on a cached table is one round trip: its EVALSHA. (LRANGE is counted: the load
# script's is rare, and the log reads that fill a socket's gap are round trips.)
NOT_ROUND_TRIPS = {
    "hmget",
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

    def local_pids(self) -> list[int]:
        """The nodes' process ids when they run on this machine (INFO's ``process_id``,
        a redis-server here), else none."""
        pids = []
        for c in self.clients:
            pid = int(c.info("server")["process_id"])
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().strip().startswith("redis-server"):
                        pids.append(pid)
            except OSError:
                continue
        return pids

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
        raise SystemExit(
            "this benchmark starts a private redis-server and needs it installed (Debian's "
            "package redis-server); benchmarks/load.py can use another Redis: --redis-url"
        )
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


def database_url(admin_url: str, name: str) -> str:
    return admin_url.rsplit("/", 1)[0] + "/" + name


async def fresh_database(admin_url: str, name: str) -> str:
    """The run's own database, made empty and migrated (``run`` drops it at the end)."""
    url = database_url(admin_url, name)
    await create_database(url, WHO)
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
