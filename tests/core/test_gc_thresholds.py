"""The collector's thresholds (app.main.GC_THRESHOLDS): a burst of long-lived objects,
such as thousands of sockets and tables arriving together, is walked by the middle
generation's collections in pieces of a few young collections' survivors each, and the
oldest generation is not collected during it (docs/decisions/0007).

Run in a fresh interpreter, so the test process's own collector is left alone; counts
objects, never times them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from app.main import GC_THRESHOLDS

REPO = Path(__file__).resolve().parents[2]

BURST = """
import gc, json
from app.main import _tune_gc

_tune_gc()
young = gc.get_threshold()[0]
seen = {"gen1_before": [], "collections": [0, 0, 0]}

def watch(phase, info):
    if phase == "start" and info["generation"] == 1:
        seen["gen1_before"].append(len(gc.get_objects(generation=1)))
    if phase == "stop":
        seen["collections"][info["generation"]] += 1

gc.callbacks.append(watch)
kept = []
for step in range(600):
    # a socket's worth of long-lived objects (kept) and the churn of serving it
    kept.append([{"seat": step, "i": i, "hand": [i, i + 1]} for i in range(1_000)])
    for _ in range(20):
        scratch = [[j] for j in range(1_000)]
        del scratch
gc.callbacks.remove(watch)
seen["young"] = young
seen["kept"] = sum(2 * len(k) + 1 for k in kept)  # tracked: each dict, its list
print(json.dumps(seen))
"""


def test_older_collections_walk_a_burst_in_pieces() -> None:
    out = subprocess.run(
        [sys.executable, "-c", BURST], cwd=REPO, capture_output=True, text=True, check=True
    )
    seen = json.loads(out.stdout)
    young, per_gen1 = GC_THRESHOLDS[0], GC_THRESHOLDS[1]
    assert seen["young"] == young
    assert seen["kept"] >= 1_000_000  # the burst: far more than a few young collections
    # the middle generation is collected many times over the burst...
    assert seen["collections"][1] >= 8
    # ...each time walking no more than the survivors of its few young collections
    # (each of which runs once just past the young threshold and finds at most that
    # much, plus what the callbacks' own bookkeeping allocates)
    assert max(seen["gen1_before"]) <= (per_gen1 + 1) * young * 1.01
    # and the whole heap is not walked during the burst
    assert seen["collections"][2] == 0
