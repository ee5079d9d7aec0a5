"""``benchmarks/ring_attack.py --quick`` runs alone (its own scratch database and Redis
database) and prints the ring's funnelled coins under the 20,000 bound as its last line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy.engine import make_url

REPO = Path(__file__).resolve().parents[2]


def test_the_quick_ring_attack_funnels_at_most_the_address_limit(
    pg_url: str, redis_url: str
) -> None:
    scratch = make_url(pg_url).set(database=f"{make_url(pg_url).database}_ring")
    redis = redis_url.rsplit("/", 1)[0] + "/13"
    env = {
        **os.environ,
        "BURACO_BENCH_DATABASE_URL": scratch.render_as_string(hide_password=False),
        "BURACO_BENCH_REDIS_URL": redis,
    }
    done = subprocess.run(
        [sys.executable, "benchmarks/ring_attack.py", "--quick"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["games"] > 0 and out["refused_stakes"] > 0
    assert 0 < out["funnelled_coins"] <= 12_000 < out["bound"]
    assert out["held_coins"] > 0 and out["flags"] > 0
    assert out["seconds"] < 120
