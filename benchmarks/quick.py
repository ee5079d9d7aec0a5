"""Every benchmark once at its smallest size: ``python benchmarks/quick.py [NAME ...]``.

``make bench-quick`` runs it and CI runs that after the tests, so that a change which
breaks a benchmark fails the submission. Each command in ``QUICK`` must exit 0 and end
with a JSON line. A file of benchmarks/ with an ``if __name__ == "__main__":`` entry
point that is not in ``QUICK`` fails the run before anything is started: a new
benchmark joins the list or the run says it was left out.

Needs what the benchmarks need: PostgreSQL on 127.0.0.1:5432 with an account that may
create databases (``--pg`` for another server) and redis-server installed. Each
benchmark makes its own scratch database (``buraco_quick_<name>``) and redis-server and
removes them. The figures of such small runs mean nothing; only that they came.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The ones that take longest at their smallest size: started first (``main``).
SLOW = {"tournament.py"}

# The smallest run of each benchmark: a few hands, tables or requests, one window.
QUICK: dict[str, list[str]] = {
    "engine.py": ["--quick"],
    "bots_strength.py": ["--hands", "2", "--jobs", "1"],
    "bots_ladder.py": ["--hands", "1", "--loop-hands", "1", "--jobs", "1", "--budget", "0.002"],
    "guards.py": ["--requests", "500"],
    "commit.py": ["--tables", "20", "--hands", "2"],
    "economy.py": ["--games", "20", "--gifts", "10", "--connections", "2"],
    "friends.py": ["--emotes", "5", "--rematches", "1"],
    "load.py": ["--tables", "4", "--seconds", "2", "--rounds", "1"],
    "ring_attack.py": ["--quick"],
    "tournament.py": ["--sitgo", "4", "--swiss", "4", "--rounds", "2"],
}
TIMEOUT = 300  # seconds for one benchmark; its smallest run takes well under a minute


def entry_points(folder: Path = HERE) -> set[str]:
    """The files of ``folder`` that run as a program (this one aside)."""
    return {
        p.name
        for p in folder.glob("*.py")
        if p.name != Path(__file__).name and 'if __name__ == "__main__":' in p.read_text()
    }


def left_out(folder: Path = HERE) -> list[str]:
    return sorted(entry_points(folder) - QUICK.keys())


def command(name: str, pg: str, scratch: Path) -> tuple[list[str], dict[str, str]]:
    """The benchmark's command line and environment, with its own scratch database."""
    database = "buraco_quick_" + name.removesuffix(".py")
    env = {**os.environ, "BURACO_BENCH_DATABASE_URL": f"{pg}/{database}"}
    args = list(QUICK[name])
    if name == "load.py":
        args += ["--pg-admin-url", f"{pg}/postgres", "--database", database]
        args += ["--log-dir", str(scratch / "load")]
    return [sys.executable, str(HERE / name), *args], env


def run(name: str, pg: str, scratch: Path) -> str:
    """An empty string when the benchmark ran and ended with a JSON line, else why not."""
    cmd, env = command(name, pg, scratch)
    try:
        done = subprocess.run(
            cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT, cwd=HERE.parent
        )
    except subprocess.TimeoutExpired:
        return f"still running after {TIMEOUT} s"
    lines = done.stdout.strip().splitlines()
    tail = "\n".join([*lines[-5:], *done.stderr.strip().splitlines()[-15:]])
    if done.returncode != 0:
        return f"exit status {done.returncode}:\n{tail}"
    try:
        if not lines or not isinstance(json.loads(lines[-1]), dict):
            raise ValueError
    except ValueError:
        return f"its last line is not a JSON object:\n{tail}"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("names", nargs="*", help="only these (engine.py, load.py...)")
    parser.add_argument(
        "--pg",
        default="postgresql+asyncpg://postgres@127.0.0.1:5432",
        help="the PostgreSQL server, without a database",
    )
    args = parser.parse_args()
    missing = left_out()
    if missing:
        print(f"not in benchmarks/quick.py's QUICK list: {', '.join(missing)}", file=sys.stderr)
        return 1
    unknown = sorted(set(args.names) - QUICK.keys())
    if unknown:
        print(f"no such benchmark: {', '.join(unknown)}", file=sys.stderr)
        return 2
    failed = []
    names = args.names or list(QUICK)
    # Two at a time, the longest first: each has its own database and redis-server, and
    # the figures of such small runs mean nothing, so sharing the machine costs nothing
    # but halves the wait (the tournaments alone take most of a minute and a half).
    names.sort(key=lambda n: n not in SLOW)

    def one(name: str, scratch: str) -> tuple[str, str, float]:
        started = time.perf_counter()
        why = run(name, args.pg.rstrip("/"), Path(scratch))
        return name, why, time.perf_counter() - started

    with (
        tempfile.TemporaryDirectory(prefix="buraco-bench-quick-") as scratch,
        ThreadPoolExecutor(max_workers=2) as pool,
    ):
        for name, why, took in pool.map(lambda n: one(n, scratch), names):
            print(f"{name}: {'FAILED' if why else 'ok'} in {took:.1f} s", flush=True)
            if why:
                print(why, flush=True)
                failed.append(name)
    if failed:
        print(f"benchmarks FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
