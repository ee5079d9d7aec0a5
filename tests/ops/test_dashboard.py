"""The Grafana dashboard (deploy/) charts every metric the server exposes."""

from __future__ import annotations

import orjson
from prometheus_client import REGISTRY

from app.core import metrics  # noqa: F401  (registers the metrics)
from tests.support import REPO_ROOT


def test_dashboard_charts_every_buraco_metric() -> None:
    dashboard = orjson.loads((REPO_ROOT / "deploy" / "grafana-dashboard.json").read_bytes())
    exprs = " ".join(t["expr"] for p in dashboard["panels"] for t in p["targets"])
    names = {m.name for m in REGISTRY.collect() if m.name.startswith("buraco_")}
    assert len(names) >= 13
    assert not [name for name in names if name not in exprs]
    assert len({p["id"] for p in dashboard["panels"]}) == len(dashboard["panels"])
