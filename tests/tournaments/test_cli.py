"""``python -m app.ops tournaments``: create (with the API's checks), list, cancel."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import timedelta
from typing import Any

import orjson
from fastapi import FastAPI

from app.core.db import utcnow
from tests.support import REPO_ROOT


async def test_the_cli_creates_lists_and_cancels(app: FastAPI) -> None:
    env = {
        **os.environ,
        "BURACO_ENV": "test",
        "BURACO_DATABASE_URL": app.state.settings.database_url,
        "BURACO_VAR_DIR": str(app.state.settings.var_dir),
    }

    def run(*args: str) -> tuple[int, Any]:
        done = subprocess.run(
            [sys.executable, "-m", "app.ops", "tournaments", *args],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            timeout=60,
            check=False,
        )
        return done.returncode, orjson.loads(done.stdout)

    starts = (utcnow() + timedelta(days=1)).isoformat()
    code, made = await asyncio.to_thread(
        run, "create", "--name", "Copa", "--starts-at", starts, "--buy-in", "5000", "--min", "8"
    )
    assert code == 0, made
    assert made["kind"] == "scheduled" and made["min_entrants"] == 8 and made["buy_in"] == 5000
    code, bad = await asyncio.to_thread(
        run, "create", "--name", "Copa", "--starts-at", starts, "--min", "9", "--max", "4"
    )
    assert code == 1 and bad["error"]["code"] == "invalid_tournament"
    code, listed = await asyncio.to_thread(run, "list")
    assert code == 0 and [t["id"] for t in listed] == [made["id"]]
    code, cancelled = await asyncio.to_thread(run, "cancel", str(made["id"]))
    assert code == 0 and cancelled["state"] == "cancelled"
    code, missing = await asyncio.to_thread(run, "cancel", "999")
    assert code == 1 and missing["error"]["code"] == "tournament_not_found"
