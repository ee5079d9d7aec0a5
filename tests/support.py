"""Helpers for the test suite: databases, migrations, service checks and real server
processes."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import httpx
from alembic import command
from alembic.config import Config
from sqlalchemy.engine import make_url

REPO_ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")


def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """Call ``fn(*args)`` in a fresh thread and return its result (or raise its error).

    Alembic's env.py calls asyncio.run(), and pytest-asyncio owns the main thread's
    event loop; a separate thread keeps the two apart. Pass ``asyncio.run, coro()`` to
    run a coroutine there.
    """
    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["value"] = fn(*args)
        except BaseException as exc:  # handed back to the caller below
            result["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["value"]  # type: ignore[no-any-return]


def xdist_worker() -> int:
    """pytest-xdist's worker number (gw3 -> 3), or 0 when the run is not parallel."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0


def per_worker_database(url: str) -> str:
    """Each xdist worker gets its own database (the fixtures drop and recreate it)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return url
    parsed = make_url(url)
    return parsed.set(database=f"{parsed.database}_{worker}").render_as_string(hide_password=False)


def start_redis_server() -> tuple[subprocess.Popen[bytes], str] | None:
    """A private Redis server for one xdist worker (pub/sub channels are not per-db, so
    workers sharing a server would hear each other's lobby and user messages). None
    when redis-server is not installed."""
    binary = shutil.which("redis-server")
    if binary is None:
        return None
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as s, contextlib.suppress(OSError):
            s.connect(("127.0.0.1", port))
            return proc, f"redis://127.0.0.1:{port}/0"
        time.sleep(0.05)
    proc.kill()
    return None


def alembic_config(url: str) -> Config:
    cfg = Config(str(REPO_ROOT / "alembic.ini"))
    cfg.set_main_option("sqlalchemy.url", url)
    cfg.attributes["configure_logger"] = False
    return cfg


def run_alembic(url: str, action: str, revision: str = "head") -> None:
    """``action`` is upgrade, downgrade or check."""
    in_thread(_alembic_sync, alembic_config(url), action, revision)


def _alembic_sync(cfg: Config, action: str, revision: str) -> None:
    if action == "upgrade":
        command.upgrade(cfg, revision)
    elif action == "downgrade":
        command.downgrade(cfg, revision)
    elif action == "check":
        command.check(cfg)
    else:
        raise ValueError(action)


def asyncpg_dsn(url: str, database: str | None = None) -> str:
    parsed = make_url(url).set(drivername="postgresql")
    if database is not None:
        parsed = parsed.set(database=database)
    return parsed.render_as_string(hide_password=False)


async def recreate_pg_database(url: str, timeout: float = 5.0) -> None:
    """Drop and create the database named in ``url`` (connecting to ``postgres``)."""
    name = make_url(url).database
    if not name or not name.replace("_", "").isalnum():
        raise ValueError(f"refusing to recreate a database named {name!r}")
    conn = await asyncpg.connect(asyncpg_dsn(url, "postgres"), timeout=timeout)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


async def drop_pg_database(url: str) -> None:
    name = make_url(url).database
    conn = await asyncpg.connect(asyncpg_dsn(url, "postgres"), timeout=5.0)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def truncate_pg_tables(url: str) -> None:
    """Empty every table but alembic_version (ids restart at 1).

    A DELETE per table with the foreign-key triggers off for the transaction
    (``session_replication_role = replica``, which a superuser may set, as the test
    role is here) and every sequence restarted, in one transaction: on tables this
    small that is about 11 ms against TRUNCATE's 66 (it runs before most tests).
    Without the right to set the role, one TRUNCATE of them all."""
    conn = await asyncpg.connect(asyncpg_dsn(url))
    try:
        rows = await conn.fetch(
            "SELECT tablename FROM pg_tables "
            "WHERE schemaname = 'public' AND tablename <> 'alembic_version'"
        )
        if not rows:
            return
        names = [f'"{r["tablename"]}"' for r in rows]
        superuser = await conn.fetchval(
            "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"
        )
        if not superuser:
            await conn.execute(f"TRUNCATE {', '.join(names)} RESTART IDENTITY CASCADE")
            return
        sequences = await conn.fetch(
            "SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'"
        )
        async with conn.transaction():
            await conn.execute("SET LOCAL session_replication_role = replica")
            for name in names:
                await conn.execute(f"DELETE FROM {name}")
            for seq in sequences:
                await conn.execute(f'ALTER SEQUENCE "{seq["sequencename"]}" RESTART')
    finally:
        await conn.close()


# ---------------------------------------------------------------- real server processes

# How the Makefile and the Dockerfile start the server (their other flags are for the
# network they serve on).
UVICORN = [
    sys.executable,
    "-m",
    "uvicorn",
    "app.main:create_app",
    "--factory",
    "--no-access-log",
    "--ws-per-message-deflate",
    "false",
    "--ws",
    "app.tables.live.detach:DetachableProtocol",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fuzz(operations: list[Any], examples: int, check: Callable[[Any], None]) -> None:
    """Schemathesis: ``check`` each of ``examples`` generated cases per operation, valid
    ones and invalid ones (an operation with nothing invalid to send skips those)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis.errors import Unsatisfiable
    from schemathesis import GenerationMode

    for op in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=op.as_strategy(generation_mode=mode))
            @settings(
                max_examples=examples,
                deadline=None,
                database=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
            )
            def run(case: Any) -> None:
                check(case)

            try:
                run()
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE  # nothing invalid to send there


@contextlib.contextmanager
def serve_in_thread(app: Any) -> Iterator[str]:
    """``app`` served by a real uvicorn server in a thread of this process; yields its
    base URL and stops it on exit."""
    import uvicorn

    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


def start_uvicorn(
    port: int,
    env: dict[str, str],
    cwd: Path,
    log_path: Path,
    args: tuple[str, ...] = (),
    command: list[str] | None = None,
) -> subprocess.Popen[bytes]:
    """A real uvicorn process on 127.0.0.1:``port``, its output in ``log_path``
    (``args``: more uvicorn options; ``command``: instead of UVICORN)."""
    with log_path.open("wb") as log:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(
            [*(command or UVICORN), "--host", "127.0.0.1", "--port", str(port), *args],
            cwd=cwd,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def wait_ready(proc: subprocess.Popen[bytes], url: str, log_path: Path, deadline: float) -> None:
    """Until ``url`` answers 200; RuntimeError with the log's tail if the process exits
    or ``deadline`` (a ``time.monotonic()`` value) passes first."""
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"uvicorn exited at start:\n{_tail(log_path)}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"uvicorn not ready at {url}:\n{_tail(log_path)}")
        time.sleep(0.1)


def stop_process(proc: subprocess.Popen[bytes], timeout: float = 10) -> None:
    """SIGTERM, then SIGKILL if it has not exited within ``timeout`` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _tail(log_path: Path) -> str:
    return log_path.read_text(errors="replace")[-4000:] if log_path.exists() else ""


# Start-up and shutdown are not what the tests of an app in-process check: asgi-lifespan's
# 5 s default for each was seen to run out at an embedded app's shutdown on a 2-core
# machine with both cores busy, failing a test whose own checks had passed.
LIFESPAN_TIMEOUTS = {"startup_timeout": 30, "shutdown_timeout": 30}
