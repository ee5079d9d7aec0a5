"""The bare baseline: a WebSocket server doing one script call on Redis per move and
sending the version to the table's four sockets, and its players, in a process of
their own driven one window at a time over a pipe (``BaselinePlayers``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import orjson

from app.main import GC_THRESHOLDS
from loadbench.players import expire, gather_limited, listen, open_ws, pace, quiet_client_gc
from loadbench.servers import CALLGRIND, CLIENT, MAX_CONNECTIONS, REPO, free_port, start
from loadbench.stats import Stats

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


# ---------------------------------------------------------------- the baseline


class EchoTable:
    def __init__(self, tid: str) -> None:
        self.tid = tid
        self.socks: list[Any] = []
        self.v = 0
        self.counts: dict[int, list[float]] = {}
        # the move in flight: its version, when it was sent, and what it waits for (the
        # latency once all sockets have it, or the server's error)
        self.waiting: tuple[int, float, asyncio.Future[float | str]] | None = None

    def take(self, raw: bytes | str) -> None:
        msg = orjson.loads(raw)
        if "error" in msg:
            if self.waiting is not None and not self.waiting[2].done():
                self.waiting[2].set_result(str(msg["error"]))
            return
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
        fut: asyncio.Future[float | str] = loop.create_future()
        t0 = time.perf_counter()
        self.waiting = (v, t0, fut)
        timer = loop.call_later(timeout, expire, [fut])  # as the main run's players
        try:
            await self.socks[v % len(self.socks)].send(orjson.dumps({"m": v}).decode())
            outcome: float | str = await fut
        except TimeoutError:
            outcome = "timeout"
        finally:
            timer.cancel()
        self.counts.pop(v - 4, None)
        if isinstance(outcome, float):
            if counted:
                stats.served += 1
                stats.record(outcome * 1000)
            return
        stats.failed(outcome, timeout, counted)
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
        reader = listen(ws, table.take)
        if reader is not None:
            readers.append(reader)

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
                str(Path(__file__).resolve().parents[1] / "load.py"),
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
