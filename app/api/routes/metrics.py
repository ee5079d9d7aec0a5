"""``GET /metrics``: Prometheus exposition (app/core/metrics.py has every metric).

Open in development, so ``make run`` shows it at once. In production it answers only a
scraper presenting ``Authorization: Bearer <BURACO_METRICS_TOKEN>``, and is not there at
all (404) when no token is set; the compose file keeps it off the public site as well
(deploy/Caddyfile)."""

from __future__ import annotations

import hmac
from collections import Counter
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from app.core import heap, metrics
from app.core.errors import AppError
from app.rules.ruleset import PRESETS
from app.tables.storage.meta import TableMeta
from app.tables.storage.store import LOBBY_KEY, PLAYING_KEY

router = APIRouter(tags=["operations"])


def _allowed(request: Request) -> bool:
    settings = request.app.state.settings
    if not settings.is_production:
        return True
    if settings.metrics_token is None or not settings.metrics_token.get_secret_value():
        return False
    expected = f"Bearer {settings.metrics_token.get_secret_value()}"
    given = request.headers.get("authorization", "")
    return hmac.compare_digest(given.encode(), expected.encode())


async def _count_live_tables(request: Request) -> None:
    """Public tables waiting and playing, by modality, as Redis holds them now (every
    process reports the same figure; the dashboard takes the max)."""
    store = request.app.state.tables.store
    counts: Counter[tuple[str, str]] = Counter()
    for status, key in (("waiting", LOBBY_KEY), ("playing", PLAYING_KEY)):
        for raw in await store.list_lobby(key=key):
            counts[(TableMeta.model_validate_json(raw).preset, status)] += 1
    # Every modality, zeros too: a label once written stays in the multiprocess files.
    for modality in PRESETS:
        for status in ("waiting", "playing"):
            metrics.LIVE_TABLES.labels(modality, status).set(counts[(modality, status)])


@router.get("/metrics", include_in_schema=False)
async def prometheus_metrics(request: Request) -> Response:
    if not _allowed(request):
        raise AppError("not_found", "Not Found", 404)
    try:
        await _count_live_tables(request)
    except Exception:  # Redis away: the other metrics still answer
        metrics.log.warning("live tables not counted", exc_info=True)
    return Response(metrics.render(), media_type=metrics.CONTENT_TYPE)


@router.get("/metrics/memory", include_in_schema=False)
async def memory(request: Request, limit: int = Query(40, ge=1, le=500)) -> dict[str, Any]:
    """Where this process's memory goes, by type (app/core/heap.py), beside its resident
    size and what it serves (open sockets, cached tables), so that bytes per socket or
    per table can be read off. Holds the process about a second per 500,000 objects: for
    diagnosis, under the same guard as /metrics."""
    if not _allowed(request):
        raise AppError("not_found", "Not Found", 404)
    state = request.app.state
    hub = getattr(state, "hub", None)
    tables = getattr(state, "tables", None)
    cache = getattr(tables, "cache", None)
    return {
        "rss_bytes": heap.resident_bytes(),
        "sockets": len(hub.sockets) if hub is not None else 0,
        "cached_tables": len(cache.entries) if cache is not None else 0,
        **heap.census(limit),
    }
