"""The README smoke test: a real server on the embedded default, as `make run` starts it.

It runs the same two steps as `make run` (alembic upgrade head, then uvicorn with the
app factory) in an empty folder with no BURACO_ settings at all, so the defaults are
what is tested: SQLite under ./var/ and the in-process Redis.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import REPO_ROOT, free_port, start_uvicorn, stop_process, wait_ready

STARTUP_TIMEOUT_SECONDS = 60


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("BURACO_")}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    env = _clean_env()
    bin_dir = Path(sys.executable).parent
    subprocess.run(
        [str(bin_dir / "alembic"), "-c", str(REPO_ROOT / "alembic.ini"), "upgrade", "head"],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert (tmp_path / "var" / "buraco.db").exists()
    port = free_port()
    proc = start_uvicorn(port, env, tmp_path, tmp_path / "server.log")
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(
            proc,
            f"{base}/readyz",
            tmp_path / "server.log",
            time.monotonic() + STARTUP_TIMEOUT_SECONDS,
        )
        yield base
    finally:
        stop_process(proc, timeout=15)
    assert proc.returncode is not None


def test_register_and_log_in_on_a_real_embedded_server(server: str, tmp_path: Path) -> None:
    body = {"username": "smoke_user", "password": "correct horse battery"}
    with httpx.Client(base_url=server, timeout=10) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        assert client.post("/api/auth/register", json=body).status_code == 201
        client.cookies.clear()
        login = client.post("/api/auth/login", json=body)
        assert login.status_code == 200
        me = client.get("/api/me")
        assert me.status_code == 200
        assert me.json()["username"] == "smoke_user"
        assert "servidor en marcha" in client.get("/").text
    # The embedded default kept its data and its development secret under ./var/.
    assert (tmp_path / "var" / "buraco.db").stat().st_size > 0
    assert (tmp_path / "var" / "secret_key").exists()
