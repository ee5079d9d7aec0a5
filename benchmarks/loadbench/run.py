"""One run: the servers and the baseline started, then the measured windows alternated
between them, and the figures gathered into the summary.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from scratch import drop_database

from app.tables.live.detach import WS_PROTOCOL
from loadbench.baseline import BaselinePlayers, start_baseline
from loadbench.players import pace, quiet_client_gc, setup_tables
from loadbench.servers import (
    CALLGRIND,
    MAX_CONNECTIONS,
    ORIGIN,
    WHO,
    RedisNodes,
    callgrind,
    cpu_seconds,
    cpu_split,
    database_url,
    free_port,
    fresh_database,
    idle_instructions,
    instructions,
    io_calls,
    machine_jiffies,
    rss_mib,
    runqueue_seconds,
    start,
    start_cluster,
    start_redis,
    stop,
    wait_ready,
)
from loadbench.stats import Stats, gc_pauses, pct, print_anatomy, summary

# ---------------------------------------------------------------- the run


async def window(
    system: Stats,
    players: list[Any] | BaselinePlayers,
    seconds: float,
    timeout: float,
    pids: list[int],
    nodes: RedisNodes,
    client_pid: int,
) -> None:
    """One measured window of one system: a short warm-up, then ``seconds`` counted.
    ``players``: the tables this process plays, or the baseline's players process;
    ``client_pid``: the baseline's players process (the clients' CPU is this process's
    and that one's, whichever system plays)."""
    warm = min(3.0, seconds / 4)
    if isinstance(players, BaselinePlayers):
        await players.begin(seconds, warm, timeout)  # back when it starts counting
    else:
        task = asyncio.create_task(pace(players, system, seconds + warm, timeout))
        await asyncio.sleep(warm)
    cpu0, rcpu0, cmd0 = sum(cpu_seconds(p) for p in pids), nodes.cpu(), nodes.commands()
    sys0 = sum(cpu_split(p)[1] for p in pids)
    io0 = [io_calls(p) for p in pids]
    redis_pids = nodes.local_pids()
    wait0 = sum(runqueue_seconds(p) for p in pids)
    rwait0 = sum(runqueue_seconds(p) for p in redis_pids)
    calls0 = nodes.commandstats()
    for p in pids if CALLGRIND else ():
        callgrind(p, "-z")
        callgrind(p, "-i", "on")
    first = len(system.latencies)
    busy0, steal0 = machine_jiffies()
    client0 = time.process_time() + cpu_seconds(client_pid)
    system.measuring = True
    t0 = time.perf_counter()
    await asyncio.sleep(seconds)
    system.measuring = False
    system.client_cpu += time.process_time() + cpu_seconds(client_pid) - client0
    busy1, steal1 = machine_jiffies()
    tick = os.sysconf("SC_CLK_TCK")
    system.machine_busy += (busy1 - busy0) / tick
    system.machine_steal += (steal1 - steal0) / tick
    for p in pids if CALLGRIND else ():
        system.instructions += instructions(p)
        callgrind(p, "-i", "off")
    system.seconds += time.perf_counter() - t0
    system.cpu += sum(cpu_seconds(p) for p in pids) - cpu0
    system.cpu_kernel += sum(cpu_split(p)[1] for p in pids) - sys0
    for (r0, w0), (r1, w1) in zip(io0, (io_calls(p) for p in pids), strict=True):
        system.read_calls += max(0, r1 - r0)
        system.write_calls += max(0, w1 - w0)
    system.runqueue += max(0.0, sum(runqueue_seconds(p) for p in pids) - wait0) / max(len(pids), 1)
    if redis_pids:
        system.redis_runqueue += max(
            0.0, sum(runqueue_seconds(p) for p in redis_pids) - rwait0
        ) / len(redis_pids)
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
            # The server cuts each deck at once: the scripted players never cut, and the
            # per-move figures measure moves, not a cut window.
            "BURACO_CUT_SECONDS": "0",
            "BURACO_TURBO_CUT_SECONDS": "0",
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
        await drop_database(database_url(args.pg_admin_url, args.database), WHO)


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
                WS_PROTOCOL if args.ws == "detach" else args.ws,
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
        await window(
            main_stats,
            tables,
            each,
            args.move_timeout,
            [p.pid for p in procs],
            nodes,
            base_players.pid,
        )
        await asyncio.sleep(0.6)  # the servers move their pauses into the metric every 0.5 s
        after = await gc_pauses(bases)
        main_stats.gc.update({k: after[k] - before[k] for k in after})
        main_stats.window_gc.append(
            (
                int(sum(after[f"count{g}"] - before[f"count{g}"] for g in range(3))),
                (after["seconds"] - before["seconds"]) * 1000,
            )
        )
        await window(
            base_stats, base_players, each, args.move_timeout, base_pids, nodes, base_players.pid
        )
    client_cpu = time.process_time() + cpu_seconds(base_players.pid) - client0
    rss = [rss_mib(p.pid) for p in procs]
    if args.anatomy:
        await print_anatomy(bases, args.anatomy)
    for table in tables:
        for seat in table.seats:
            await seat.ws.close()
    await base_players.close()
    for reader in readers:
        reader.cancel()
    gc.unfreeze()
    gc.enable()
    return summary(args, main_stats, base_stats, client_cpu, rss, idle_rss, len(tables))
