"""GET /metrics: every named metric is exposed, a played move and a refused one are
counted, and with PROMETHEUS_MULTIPROC_DIR two uvicorn workers report one sum."""

from __future__ import annotations

import asyncio
import gc
import re
import time
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from app.core import metrics
from app.core.config import Settings
from app.main import create_app
from tests.support import free_port, start_uvicorn, stop_process, wait_ready
from tests.tables.harness import REPO, Player, server_env
from tests.tables.test_games import SHORT_2P

NAMED = [
    "buraco_open_sockets",
    "buraco_live_tables",
    "buraco_moves_total",
    "buraco_refusals_total",
    "buraco_command_seconds",
    "buraco_redis_roundtrip_seconds",
    "buraco_pubsub_lag_seconds",
    "buraco_timer_lateness_seconds",
    "buraco_settlements_total",
    "buraco_settlement_seconds",
    "buraco_http_requests_total",
    "buraco_http_request_seconds",
    "buraco_event_loop_lag_seconds",
    "buraco_gc_pause_seconds",
]


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample (0 when absent)."""
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    pattern = (
        rf"^{re.escape(name)}(\{{{re.escape(wanted)}\}})? (\S+)$"
        if wanted
        else rf"^{re.escape(name)} (\S+)$"
    )
    for line in text.splitlines():
        m = re.match(pattern, line)
        if m:
            return float(m.groups()[-1])
    return 0.0


async def scrape(base: str) -> str:
    async with httpx.AsyncClient(base_url=base) as http:
        r = await http.get("/metrics")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    return r.text


async def test_two_workers_expose_every_metric_and_count_one_move_once(
    pg_url: str, ops_redis: str, var: Path
) -> None:
    multiproc = var / "metrics"
    multiproc.mkdir()
    env = server_env(pg_url, ops_redis, var)
    env["PROMETHEUS_MULTIPROC_DIR"] = str(multiproc)
    port = free_port()
    base, log = f"http://127.0.0.1:{port}", var / "uvicorn.log"
    proc = start_uvicorn(port, env, REPO, log, args=("--workers", "2"))
    people: list[Player] = []
    try:
        wait_ready(proc, base + "/readyz", log, time.monotonic() + 60)
        people = [await Player.guest(base) for _ in range(2)]
        for p in people:
            await p.connect(f"ws://127.0.0.1:{port}/ws")
        table = (
            await people[0].http.post(
                "/api/tables",
                json={"preset": "cerrado", "players": 2, "rules": SHORT_2P, "name": "metrics"},
            )
        ).json()
        tid = table["id"]
        await people[0].watch(tid)
        await people[1].watch(tid)
        r = await people[1].http.post(f"/api/tables/{tid}/sit", json={"seat": 1})
        assert r.status_code == 200, r.text
        for p in people:
            await p.until(lambda p=p: p.tables[tid].status == "playing")
        t = people[0].tables[tid]
        mover, other = people[t.turn], people[1 - t.turn]
        refused = await other.command(tid, {"type": "draw"})
        assert refused["type"] == "error"
        ack = await mover.command(tid, {"type": "draw"})
        assert ack["type"] == "ack", ack

        # Each worker's whole-heap collection at start-up (app.main._tune_gc), once its
        # metrics monitor has moved it into the histogram (every 0.5 s): /readyz was
        # answered by one worker, so the other may still be starting.
        deadline = time.monotonic() + 30
        while True:
            text = await scrape(base)
            if sample(text, "buraco_gc_pause_seconds_count", generation="2") >= 2:
                break
            assert time.monotonic() < deadline, text
            await asyncio.sleep(0.2)
        # Whichever worker answers, the figures are the sum over both.
        for _ in range(4):
            text = await scrape(base)
            for name in NAMED:
                assert f"# TYPE {name} " in text, name
            assert sample(text, "buraco_moves_total", source="player") == 1
            assert sample(text, "buraco_command_seconds_count") == 1
            assert sample(text, "buraco_refusals_total", code=refused["code"]) == 1
            assert sample(text, "buraco_open_sockets") == 2
            assert sample(text, "buraco_live_tables", modality="cerrado", status="playing") == 1
            assert sample(text, "buraco_redis_roundtrip_seconds_count", op="commit") >= 2
            assert sample(text, "buraco_pubsub_lag_seconds_count") >= 1
            assert (
                sample(
                    text,
                    "buraco_http_requests_total",
                    method="POST",
                    route="/api/tables/{table_id}/sit",
                    status="200",
                )
                == 1
            )
        assert len(list(multiproc.iterdir())) >= 2  # both workers wrote their files
    finally:
        for p in people:
            await p.aclose()
        stop_process(proc)


def _production(settings: Settings, token: str | None) -> Settings:
    return settings.model_copy(
        update={"env": "production", "metrics_token": SecretStr(token) if token else None}
    )


@pytest.mark.parametrize("token", [None, "scrape-me"])
@pytest.mark.parametrize("path", ["/metrics", "/metrics/memory"])
async def test_production_metrics_need_the_token(
    settings: Settings, token: str | None, path: str
) -> None:
    app: FastAPI = create_app(_production(settings, token))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        assert (await http.get(path)).status_code == 404
        wrong = await http.get(path, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 404
        if token:
            r = await http.get(path, headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200
            if path == "/metrics":
                assert "# TYPE buraco_moves_total counter" in r.text
            else:
                assert r.json()["objects"] > 0


async def test_development_serves_metrics_without_a_token(
    embedded_client: httpx.AsyncClient,
) -> None:
    await embedded_client.get("/healthz")
    r = await embedded_client.get("/metrics")
    assert r.status_code == 200
    assert 'buraco_http_requests_total{method="GET",route="/healthz",status="200"}' in r.text


def gc_pauses(generation: int) -> float:
    """How many collections of ``generation`` this process's histogram has counted."""
    value = metrics.REGISTRY.get_sample_value(
        "buraco_gc_pause_seconds_count", {"generation": str(generation)}
    )
    return value or 0.0


def test_collector_pauses_wait_in_a_list_until_flushed() -> None:
    """The callback runs inside whatever allocation set off the collection (maybe inside
    a metric's lock), so it must not touch the histogram: the pauses wait until flush."""
    pauses = metrics.GcPauses()
    before = [gc_pauses(g) for g in range(3)]
    pauses.install()
    pauses.install()  # once only
    try:
        gc.collect(0)
        gc.collect(2)
    finally:
        pauses.uninstall()
    gc.collect(1)  # not counted: uninstalled
    assert [g for g, _ in pauses.pending] == [0, 2]
    assert all(0 <= seconds < 5 for _, seconds in pauses.pending)
    assert [gc_pauses(g) for g in range(3)] == before
    pauses.flush()
    assert pauses.pending == []
    assert [gc_pauses(g) for g in range(3)] == [before[0] + 1, before[1], before[2] + 1]
    pauses.flush()
    assert [gc_pauses(g) for g in range(3)] == [before[0] + 1, before[1], before[2] + 1]


def test_collector_pauses_are_bounded_when_nobody_flushes() -> None:
    pauses = metrics.GcPauses(keep=3)
    pauses.install()
    try:
        for _ in range(5):
            gc.collect(0)
    finally:
        pauses.uninstall()
    assert len(pauses.pending) == 3


async def test_the_monitor_moves_collector_pauses_into_the_histogram() -> None:
    monitor = metrics.Monitor(redis=None, interval=0.01, ping_every=10**9)
    before = gc_pauses(1)
    monitor.start()
    try:
        gc.collect(1)
        for _ in range(200):
            if gc_pauses(1) > before:
                break
            await asyncio.sleep(0.01)
        assert gc_pauses(1) == before + 1
    finally:
        await monitor.stop()
    assert monitor.gc_pauses not in gc.callbacks
    gc.collect(1)
    assert monitor.gc_pauses.pending == []
