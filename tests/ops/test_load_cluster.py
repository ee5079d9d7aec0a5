"""``benchmarks/load.py --redis-cluster 3`` makes a fresh local cluster for its run and
leaves nothing behind. A cluster reused across runs kept every earlier run's tables,
timers and dead servers' registrations; the next run's servers swept and played them
while it measured (py-spy put 2.4% of the servers' samples in ``check_idle`` alone on
a reused cluster; benchmarks/README.md says where the measured runs are written down).
Real redis-server processes, real uvicorn servers, the real Postgres; no figure is
asserted, only that the run played every move with nothing lost and that its cluster is
gone afterwards."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
import redis

from tests.ops.loadrun import run_load


def _cluster_dirs() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("buraco-load-cluster-*")}


def _answers(port: int) -> bool:
    try:
        return bool(redis.Redis(port=port, socket_connect_timeout=1).ping())
    except redis.ConnectionError:
        return False


@pytest.mark.skipif(
    shutil.which("redis-server") is None or shutil.which("redis-cli") is None,
    reason="needs redis-server and redis-cli",
)
def test_a_cluster_run_plays_on_a_fresh_cluster_and_removes_it(pg_url: str, tmp_path: Path) -> None:
    dirs = _cluster_dirs()
    summary, _ = run_load(
        pg_url,
        tmp_path,
        "buraco_load",
        *("--tables", "2", "--seconds", "3", "--hand-size", "5", "--redis-cluster", "3"),
    )
    assert summary["redis_cpu_us_per_move"] > 0, summary  # INFO read from its masters
    created = (tmp_path / "cluster-create.log").read_text()
    assert "[OK] All 16384 slots covered" in created, created
    ports = [int(p.stem.split("-")[1]) for p in tmp_path.glob("redis-*.log")]
    assert len(ports) == 3, ports  # three masters, each its own server
    assert not [p for p in ports if _answers(p)], "the run's cluster was left running"
    assert _cluster_dirs() == dirs, "the run's cluster directory was left behind"
