"""Running ``benchmarks/load.py`` from a test: a small run on real servers, real Redis
and the real Postgres, and the checks every such run must pass whatever it measures."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def run_load(
    pg_url: str, log_dir: Path, database: str, *args: str, open_files: int = 0
) -> tuple[dict[str, Any], list[str]]:
    """Run the benchmark with ``args`` (its own database per xdist worker, its logs in
    ``log_dir``); return its summary (the last line) and all its output lines, once it
    played every move with nothing lost, duplicated or failed. ``open_files``: a hard
    limit on open files for the benchmark and every process it starts."""

    def limit() -> None:
        if open_files:
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    admin = pg_url.rsplit("/", 1)[0] + "/postgres"
    run = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "load.py"),
            *args,
            *("--pg-admin-url", admin, "--database", f"{database}_{worker}"),
            *("--log-dir", str(log_dir)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        preexec_fn=limit,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    lines = run.stdout.strip().splitlines()
    summary = json.loads(lines[-1])
    assert summary["served_ratio"] == 1.0, summary
    assert summary["lost"] == summary["duplicated"] == summary["failures"] == 0, summary
    assert summary["baseline_errors"] == 0, summary
    return summary, lines
