"""Production logs, from a real uvicorn process started as the image starts it
(--log-config deploy/logging.json) and a real alembic run: every line is one JSON
object with an ISO-8601 time (milliseconds, zone); a request's lines carry its id, the
traceback of an unhandled error too, and the 500 carries x-request-id; a WebSocket
session ends with a line naming the user, the tables, the duration and the close code."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import orjson

from tests.support import free_port, start_uvicorn, stop_process, wait_ready
from tests.tables.harness import REPO, Player, create_table, server_env

ISO_MS_ZONE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$")
BOOM = [
    sys.executable,
    "-m",
    "uvicorn",
    "tests.ops.boom_app:create_app",
    "--factory",
    "--no-access-log",
    "--ws-per-message-deflate",
    "false",
    "--ws",
    "app.tables.live.detach:DetachableProtocol",
]


def production_env(pg_url: str, redis_url: str, var: Path) -> dict[str, str]:
    env = server_env(pg_url, redis_url, var)
    env.update(
        {
            "BURACO_ENV": "production",
            "BURACO_COOKIE_SECURE": "true",
            "BURACO_SECRET_KEY": "k" * 48,
            "BURACO_LOG_LEVEL": "INFO",
        }
    )
    return env


def json_lines(text: str) -> list[dict[str, Any]]:
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines
    records = []
    for line in lines:
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise AssertionError(f"not a JSON line: {line!r}") from None
        assert ISO_MS_ZONE.match(record["ts"]), record["ts"]
        assert {"level", "logger", "msg"} <= set(record)
        records.append(record)
    return records


def test_alembic_lines_are_json_in_production(pg_url: str, ops_redis: str, var: Path) -> None:
    env = production_env(pg_url, ops_redis, var)
    done = subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    records = json_lines(done.stderr + done.stdout)
    assert any(r["logger"].startswith("alembic") for r in records), records


async def test_uvicorn_and_app_lines_are_json_with_the_request_id(
    pg_url: str, ops_redis: str, var: Path
) -> None:
    env = production_env(pg_url, ops_redis, var)
    port = free_port()
    base, log = f"http://127.0.0.1:{port}", var / "uvicorn.log"
    proc = start_uvicorn(
        port, env, REPO, log, args=("--log-config", "deploy/logging.json"), command=BOOM
    )
    try:
        wait_ready(proc, base + "/readyz", log, time.monotonic() + 40)
        async with httpx.AsyncClient(base_url=base) as http:
            ok = await http.get("/healthz", headers={"X-Request-ID": "rid-ok"})
            assert ok.headers["x-request-id"] == "rid-ok"
            boom = await http.get("/boom", headers={"X-Request-ID": "rid-boom"})
        assert boom.status_code == 500
        assert boom.headers["x-request-id"] == "rid-boom"
        assert boom.json()["error"]["code"] == "internal_error"
        player = await Player.guest(base)
        # The cookie is Secure (production); this test talks plain HTTP on loopback.
        player.http.headers["Cookie"] = f"buraco_session={player.cookie}"
        await player.connect(f"ws://127.0.0.1:{port}/ws")
        table = await create_table(player, preset="cerrado", players=2, name="log test")
        await player.watch(table["id"])
        await player.aclose()
        time.sleep(0.5)  # the server writes the session's closing line
    finally:
        stop_process(proc)
    records = json_lines(log.read_text())
    loggers = {r["logger"] for r in records}
    assert {"uvicorn.error", "app.access", "app.errors", "app.ws"} <= loggers, loggers
    boom_lines = [r for r in records if r.get("request_id") == "rid-boom"]
    assert {r["logger"] for r in boom_lines} == {"app.errors", "app.access"}, boom_lines
    error = next(r for r in boom_lines if r["logger"] == "app.errors")
    assert "RuntimeError: boom for the log test" in error["exc"]
    assert next(r for r in boom_lines if r["logger"] == "app.access")["status"] == 500
    assert any(
        r.get("request_id") == "rid-ok" and r["status"] == 200
        for r in records
        if r["logger"] == "app.access"
    )
    session = next(r for r in records if r["logger"] == "app.ws" and "user_id" in r)
    assert session["user_id"] == player.id
    assert session["tables"] == [table["id"]]
    assert session["close_code"] == 1000
    assert session["duration_s"] > 0
