"""The README smoke test: a real server on the embedded default, as `make run` starts it.

It runs the same two steps as `make run` (alembic upgrade head, then uvicorn with the
app factory) in an empty folder with no BURACO_ settings at all, so the defaults are
what is tested: SQLite under ./var/ and the in-process Redis.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import REPO_ROOT

STARTUP_TIMEOUT_SECONDS = 60


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
    port = _free_port()
    log = (tmp_path / "server.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "app.main:create_app",
            "--factory",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-access-log",
        ],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while True:
            if proc.poll() is not None:
                pytest.fail(f"server exited early:\n{(tmp_path / 'server.log').read_text()}")
            try:
                if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"server not ready:\n{(tmp_path / 'server.log').read_text()}")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
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
