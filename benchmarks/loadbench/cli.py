"""``load.py``'s command line: its flags, then the run or, with ``--baseline-players``,
the baseline's players' own process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import json
import os
import resource
import sys
import tempfile
from collections.abc import Iterator

from app.core.config import Settings
from loadbench.baseline import baseline_players
from loadbench.run import run
from loadbench.servers import CALLGRIND, CLIENT, callgrind_prefix


def main(description: str) -> None:
    parser = argparse.ArgumentParser(description=description)
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
        default="table",
        help="table: a table's sockets all on one process, as the deployed balancer routes "
        "them (deploy/Caddyfile hashes /ws?table=ID; the default); split: each table's "
        "sockets on every process in turn, as a balancer without that routing would spread "
        "them (the worst case: every process receives every move)",
    )
    parser.add_argument(
        "--ws",
        choices=("detach", "websockets-sansio", "websockets"),
        default="detach",
        help="uvicorn's WebSocket implementation: detach is what make run and the image "
        "run (websockets-sansio, whose sockets outlive the app's call: "
        "app/tables/live/detach.py); websockets-sansio is what uvicorn picks by itself; "
        "websockets is the legacy one",
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
    parser.add_argument(
        "--anatomy",
        type=int,
        default=0,
        metavar="TYPES",
        help="after the windows, print where each server's memory goes: the TYPES types "
        "holding the most bytes (GET /metrics/memory), per table and per socket it serves",
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
    with only_run(args.database):
        result = asyncio.run(run(args))
    print(json.dumps(result))


@contextlib.contextmanager
def only_run(database: str) -> Iterator[None]:
    """One run at a time on a scratch database: a second one would drop the first's
    database under its servers (each run makes it again at its start) and share its
    cores, so both runs' figures would be worthless. The second is refused at once."""
    path = os.path.join(tempfile.gettempdir(), f"buraco-load-{database}.lock")
    with open(path, "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "?"
            sys.exit(
                f"load.py: another run (pid {holder}) is using the database {database!r}; "
                "two runs at once would drop each other's database and share the cores. "
                "Wait for it to end, or give this one --database of its own."
            )
        lock.truncate(0)
        lock.write(str(os.getpid()))
        lock.flush()
        yield
