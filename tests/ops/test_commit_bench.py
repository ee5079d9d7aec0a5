"""``benchmarks/commit.py`` runs on its own redis-server and reports figures that agree
with what it committed: every step of every table's hand, the script timed inside
Redis, and memory that grows with the tables."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import commit  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, float]:
    assert commit.main(list(args)) == 0
    return dict(json.loads(capsys.readouterr().out.strip().splitlines()[-1]))


def test_the_commit_benchmark_counts_every_step_and_times_the_script(
    capsys: pytest.CaptureFixture[str],
) -> None:
    steps = len(commit.hand(0))
    assert steps > 20  # a real hand: a deal, then draws, melds and discards
    one = run(capsys, "--tables", "3", "--hands", "1", "--concurrency", "2")
    assert one["commits"] == 3 * steps
    assert one["records_per_table"] >= steps  # a command yields one record or more
    assert 0 < one["redis_us_per_commit"] < 10_000
    more = run(capsys, "--tables", "12", "--hands", "1", "--concurrency", "4")
    assert more["commits"] == 12 * steps
    # Each table's hash and log are its own: memory per table stays about the same.
    assert one["redis_kib_per_table"] > 1
    assert 0.5 < more["redis_kib_per_table"] / one["redis_kib_per_table"] < 2
