"""Two ``benchmarks/load.py`` runs on one scratch database: the second is refused at
once, before it touches the database the first one's servers are using (each run drops
and makes it again at its start), and says which run holds it."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

from tests.ops.loadrun import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

from loadbench.cli import only_run  # noqa: E402


def test_a_second_run_on_the_same_database_is_refused() -> None:
    database = f"buraco_load_lock_{secrets.token_hex(4)}"
    # The admin URL points nowhere: a run that got past the lock would fail otherwise.
    refused_args = [
        sys.executable,
        str(REPO / "benchmarks" / "load.py"),
        *("--database", database, "--pg-admin-url", "postgresql+asyncpg://nobody@127.0.0.1:1/x"),
        *("--tables", "4", "--seconds", "1", "--rounds", "1"),
    ]
    with only_run(database):
        run = subprocess.run(refused_args, capture_output=True, text=True, timeout=60, cwd=REPO)
    assert run.returncode == 1
    assert f"another run (pid {os.getpid()})" in run.stderr
    assert repr(database) in run.stderr
    # Once the first run is over, the lock is free for the next.
    with only_run(database):
        pass
