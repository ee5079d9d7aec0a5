"""Browser tests: a real uvicorn process serving the built client, on real PostgreSQL and
Redis, driven by Playwright in Debian's Chromium (/usr/bin/chromium).

* The client is built (``npm ci && npm run build``) when frontend/dist is missing.
* The server gets its own database (``<test db>_e2e``, migrated from scratch, so the shop
  catalogue seeded by a migration is there) and its own Redis database number.
* Without Chromium, npm or the servers the tests are skipped, except with CI=true, where
  that is a failure.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from tests.support import (
    free_port,
    in_thread,
    recreate_pg_database,
    run_alembic,
    start_uvicorn,
    stop_process,
    wait_ready,
)

ROOT = Path(__file__).resolve().parents[2]
FRONTEND = ROOT / "frontend"
DIST = FRONTEND / "dist"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = os.environ.get("BURACO_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _missing(what: str) -> None:
    if CI:
        pytest.fail(f"{what}; with CI=true the browser tests must run", pytrace=False)
    pytest.skip(what)


@pytest.fixture(scope="session")
def frontend_dist() -> Path:
    """The built client; built here when missing (CI builds it before ``make test``)."""
    if not (DIST / "index.html").exists():
        npm = shutil.which("npm")
        if npm is None:
            _missing("npm is not installed, so the client cannot be built")
        assert npm is not None
        if not (FRONTEND / "node_modules").is_dir():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=FRONTEND, check=True)
        subprocess.run([npm, "run", "build"], cwd=FRONTEND, check=True)
    return DIST


# Package scope, not session: Playwright's sync API keeps an event loop running while it
# is started, and every async test after this package would then fail to start its own.
@pytest.fixture(scope="package")
def browser(frontend_dist: Path) -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        _missing(f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - the dev extra pins it
        _missing("the playwright package is not installed")
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()
    pw.stop()


def _e2e_urls(pg_url: str, redis_url: str) -> tuple[str, str]:
    url = make_url(pg_url)
    db_url = url.set(database=f"{url.database}_e2e").render_as_string(hide_password=False)
    base, _, number = redis_url.rpartition("/")
    other = 14 if number != "14" else 13
    return db_url, f"{base}/{other}"


def _server_env(
    base: str,
    db_url: str,
    redis_url: str,
    dist: Path,
    var: Path,
) -> dict[str, str]:
    return {
        **os.environ,
        "BURACO_ENV": "test",
        "BURACO_DATABASE_URL": db_url,
        "BURACO_REDIS_URL": redis_url,
        "BURACO_FRONTEND_DIR": str(dist),
        "BURACO_VAR_DIR": str(var),
        "BURACO_BOT_DELAY_SECONDS": "0.05",
        "BURACO_SPECIAL_TABLE_LEVEL": "1",  # a new guest may open a private table
        "BURACO_WS_ALLOWED_ORIGINS": base,
        "BURACO_SIGNUP_LIMIT_PER_IP": "100000",
        "BURACO_LOGIN_LIMIT_PER_IP": "100000",
        "BURACO_TURN_SECONDS": "120",
        # The server cuts at once; test_cut.py's server gives the cutter time to tap.
        "BURACO_CUT_SECONDS": "0",
        "BURACO_TURBO_CUT_SECONDS": "0",
        # The servers of a test run share one database but not one Redis: each one's
        # reconciler would take the other's live tables for lost ones and void their
        # games a minute in (a whole game in the browser takes longer than that).
        "BURACO_RECONCILE_GRACE_SECONDS": "86400",
        # Three browsers, their servers and the tests share two cores: a request may wait
        # longer than a production server's pool allows before it gets a connection.
        "BURACO_DB_POOL_TIMEOUT_SECONDS": "20",
        "BURACO_REDIS_POOL_TIMEOUT_SECONDS": "20",
        # For the same reason the event loop sometimes wakes 200 ms late, and a
        # production server would then refuse new tables as server_busy (overload.py);
        # that shedding has tests of its own (tests/tables/test_overload.py), these
        # test what a player does.
        "BURACO_MAX_LOOP_LAG_MS": "60000",
    }


def _flush(redis_url: str) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    client.close()


def _serve(env: dict[str, str], port: int, var: Path) -> Iterator[str]:
    base = f"http://127.0.0.1:{port}"
    proc = start_uvicorn(port, env, ROOT, var / "server.log")
    try:
        wait_ready(proc, f"{base}/healthz", var / "server.log", time.monotonic() + 30)
        yield base
    finally:
        stop_process(proc)


@pytest.fixture(scope="package")
def server(
    pg_url: str, redis_url: str, frontend_dist: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A real uvicorn process serving the API and the built client; yields its base URL."""
    db_url, e2e_redis = _e2e_urls(pg_url, redis_url)
    in_thread(asyncio.run, recreate_pg_database(db_url))
    run_alembic(db_url, "upgrade", "head")
    _flush(e2e_redis)
    port = free_port()
    var = tmp_path_factory.mktemp("e2e-var")
    env = _server_env(f"http://127.0.0.1:{port}", db_url, e2e_redis, frontend_dist, var)
    yield from _serve(env, port, var)


def _second_env(
    pg_url: str, redis_url: str, dist: Path, tmp: pytest.TempPathFactory, below: int, name: str
) -> tuple[dict[str, str], int, Path]:
    """The environment of another server process on the e2e database, with a Redis
    database of its own (`below` the test one), flushed; and its port and var dir."""
    db_url, _ = _e2e_urls(pg_url, redis_url)
    base, _, number = redis_url.rpartition("/")
    # `below` the test's own database, or above it when that is one of the first (a
    # pytest-xdist worker's own redis-server is on database 0)
    n = int(number) if number.isdigit() else 15
    own_redis = f"{base}/{n - below if n >= below else n + below}"
    _flush(own_redis)
    port = free_port()
    var = tmp.mktemp(f"e2e-{name}")
    env = _server_env(f"http://127.0.0.1:{port}", db_url, own_redis, dist, var)
    # Its Redis is not the main server's: were it to take the tournament runner's ticks,
    # it would open the main server's tournaments' tables where their players never see
    # them (test_tournaments.py then finds an empty bracket).
    env["BURACO_TOURNAMENT_RUNNER"] = "false"
    return env, port, var


@pytest.fixture(scope="package")
def short_grace_server(
    server: str,
    pg_url: str,
    redis_url: str,
    frontend_dist: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """A second process on the same database, with its own Redis, whose disconnect grace
    period is 3 seconds and whose turns last 12 (presence and clock tests), with no
    configured WebSocket origins (served on a random port, not 8000); yields its base URL."""
    # A Redis database of its own: sharing one, the other process would claim this one's
    # timers (a turn clock set with the other's turn length).
    env, port, var = _second_env(pg_url, redis_url, frontend_dist, tmp_path_factory, 5, "grace")
    # No configured origins: the site's own origin must be enough on any port (issue 12's
    # "any port but 8000 breaks every game"); test_presence.py plays a hand on it.
    env.pop("BURACO_WS_ALLOWED_ORIGINS")
    env["BURACO_DISCONNECT_GRACE_SECONDS"] = "3"
    env["BURACO_TURN_SECONDS"] = "12"
    env["BURACO_TIME_BANK_SECONDS"] = "0"  # the bare 12 s the presence tests time
    env["BURACO_FIRST_TURN_BONUS_SECONDS"] = "0"
    yield from _serve(env, port, var)


@pytest.fixture(scope="package")
def level_gate_server(
    server: str,
    pg_url: str,
    redis_url: str,
    frontend_dist: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """A process on the same database (its own Redis) with the production rule that
    special tables need level 2 (the main e2e server opens them at level 1)."""
    env, port, var = _second_env(pg_url, redis_url, frontend_dist, tmp_path_factory, 6, "gate")
    env["BURACO_SPECIAL_TABLE_LEVEL"] = "2"
    yield from _serve(env, port, var)


@pytest.fixture(scope="package")
def cut_server(
    server: str,
    pg_url: str,
    redis_url: str,
    frontend_dist: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """A process on the e2e database (its own Redis) where the cutter has 60 seconds
    (test_cut.py, test_sheet_reload.py)."""
    env, port, var = _second_env(pg_url, redis_url, frontend_dist, tmp_path_factory, 11, "cut")
    env["BURACO_CUT_SECONDS"] = "60"
    env["BURACO_WS_ALLOWED_ORIGINS"] = f"http://127.0.0.1:{port}"
    yield from _serve(env, port, var)


# A guest's name as the server stores it ("Invitado1234"): the client words it in the
# reader's language ("Invitado 1234", "Guest 1234"), so it is never shown as stored.
STORED_GUEST_NAME = re.compile(r".{0,40}\bInvitado\d+.{0,40}")


def _stored_guest_names(ctx: object) -> list[str]:
    """What each of a context's pages shows of a guest's name as stored, at the end of a
    test (a page gone or navigating is passed over)."""
    seen = []
    for page in ctx.pages:  # type: ignore[attr-defined]
        try:
            text = page.evaluate("() => document.body ? document.body.innerText : ''")
        except Exception:  # noqa: BLE001 - closed or between documents: nothing to read
            continue
        seen += [f"{page.url}: {hit}" for hit in STORED_GUEST_NAME.findall(text)]
    return seen


def _contexts(browser: object, base: str) -> Iterator[object]:
    """A maker of browser contexts on `base` (separate cookie jars = separate players),
    closed after the test, which fails if a page then shows a guest's name as stored."""
    contexts = []

    def make(width: int = 1280, height: int = 860, **kwargs: object) -> object:
        # The client starts in the browser's language: tests read Spanish unless they ask.
        kwargs.setdefault("locale", "es-ES")
        ctx = browser.new_context(  # type: ignore[attr-defined]
            base_url=base, viewport={"width": width, "height": height}, **kwargs
        )
        ctx.set_default_timeout(15000)
        contexts.append(ctx)
        return ctx

    yield make
    stored = []
    for ctx in contexts:
        stored += _stored_guest_names(ctx)
        ctx.close()
    assert not stored, f"a guest's name shown as stored: {stored[:5]}"


@pytest.fixture
def new_context(browser: object, server: str) -> Iterator[object]:
    """Make browser contexts (separate cookie jars = separate players); closed after."""
    yield from _contexts(browser, server)


@pytest.fixture
def grace_context(browser: object, short_grace_server: str) -> Iterator[object]:
    """The same, on the server with a 3-second grace period."""
    yield from _contexts(browser, short_grace_server)


@pytest.fixture
def gate_context(browser: object, level_gate_server: str) -> Iterator[object]:
    """Browser contexts on the server where special tables need level 2."""
    yield from _contexts(browser, level_gate_server)


@pytest.fixture
def cut_context(browser: object, cut_server: str) -> Iterator[object]:
    yield from _contexts(browser, cut_server)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
