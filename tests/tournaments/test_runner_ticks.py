"""Which processes take the tournament runner's ticks: every one by default; none that
is set not to (``BURACO_TOURNAMENT_RUNNER=false``, for a process on a Redis of its own
beside others sharing its database). Watched on Redis: the tick's claim key."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import redis.asyncio as aioredis
from fastapi import FastAPI

from app.core.config import Settings
from app.tournaments.runner import CLAIM_KEY


@pytest.fixture(params=[True, False], ids=["runner", "no-runner"])
def settings_overrides(request: pytest.FixtureRequest) -> dict[str, Any]:
    return {"tournament_tick_seconds": 0.2, "tournament_runner": request.param}


async def test_a_process_takes_the_ticks_unless_set_not_to(
    app: FastAPI, settings: Settings
) -> None:
    client = aioredis.Redis.from_url(settings.redis_url)
    try:
        claimed = False
        deadline = time.monotonic() + 1.5  # seven ticks
        while time.monotonic() < deadline and not claimed:
            claimed = bool(await client.exists(CLAIM_KEY))  # each claim lives 0.18 s
            await asyncio.sleep(0.02)
        assert claimed is settings.tournament_runner
    finally:
        await client.aclose()
