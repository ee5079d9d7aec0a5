"""GET /metrics/memory: where a process's memory goes, by type, beside what it serves (its
production guard is /metrics' own, checked with it in tests/ops/test_metrics.py)."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import httpx
from fastapi import FastAPI

from app.core import heap


class Marker:
    """Something a test makes after start-up, so the census must find it."""

    def __init__(self, value: complex) -> None:
        self.held = (value,)  # an untracked tuple holding an untracked value


def _types(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["type"]: row for row in body["types"]}


def test_the_census_counts_what_was_made_after_start_up_once_each() -> None:
    before = _types(heap.census(limit=100_000)).get("complex", {"count": 0})["count"]
    shared = complex(5000, 1)  # one plain value held by every marker: counted once
    markers = [Marker(shared) for _ in range(300)]
    body = heap.census(limit=100_000)
    rows = _types(body)
    assert rows[f"{__name__}.Marker"]["count"] == 300
    listed = sum(row["bytes"] for row in body["types"])
    assert 0 < listed <= body["bytes"]
    assert [row["bytes"] for row in body["types"]] == sorted(
        (row["bytes"] for row in body["types"]), reverse=True
    )
    # Held by 300 tuples, the value is counted once, not 300 times.
    assert rows["complex"]["count"] - before == 1
    del markers


async def test_memory_names_the_cached_tables_and_the_open_sockets(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    client, guest = make_client(), make_client()

    async def census() -> dict[str, Any]:
        # The census is the whole process's: apps of earlier tests in this process may
        # have left garbage behind, collected first so that only live objects count.
        gc.collect()
        r = await client.get("/metrics/memory", params={"limit": 500})
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body

    def entries(body: dict[str, Any]) -> int:
        return int(_types(body).get("app.tables.storage.cache.Entry", {"count": 0})["count"])

    for http in (client, guest):
        assert (await http.post("/api/auth/guest")).status_code == 201
    r = await client.post("/api/tables", json={"preset": "cerrado", "players": 2})
    assert r.status_code in (200, 201), r.text
    before = await census()
    sat = await guest.post(f"/api/tables/{r.json()['id']}/sit", json={})
    assert sat.status_code == 200, sat.text  # a change made here: the table is cached
    body = await census()
    assert body["cached_tables"] == before["cached_tables"] + 1
    assert entries(body) == entries(before) + 1  # the census sees the cached table
    assert body["sockets"] == 0  # no WebSocket is open in this test
    assert body["rss_bytes"] > body["bytes"] > 0
    assert (await client.get("/metrics/memory", params={"limit": 0})).status_code == 422
    bad = await client.get("/metrics/memory", params={"limit": "many"})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "validation_error"
