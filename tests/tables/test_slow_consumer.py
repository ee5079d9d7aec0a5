"""A client that stops reading cannot grow a server's memory: its outgoing queue is
bounded and it is dropped when the queue fills (4009 ``too_slow``, or the connection cut
when not even the close frame can be written). A real uvicorn process; the watcher is
a raw TCP socket with a tiny receive buffer that never reads after the handshake."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.tables.harness import ORIGIN, Player, Server, close_all, create_table, start_servers

EVENTS = 1_000


@pytest.fixture(scope="module")
def server(
    pg_url: str,
    own_redis: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Server]:
    procs = start_servers(
        1, pg_url, own_redis, tmp_path_factory.mktemp("slow"), economy_enabled="false"
    )
    yield procs[0]
    procs[0].stop()


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _masked_text(payload: bytes) -> bytes:
    """One client-to-server text frame (clients must mask)."""
    mask = os.urandom(4)
    header = bytes([0x81])
    n = len(payload)
    header += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def never_reading_socket(port: int, cookie: str, table: str) -> socket.socket:
    """Handshake, ask to watch ``table``, then never read again."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: the window
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\nOrigin: {ORIGIN}\r\n"
            f"Cookie: buraco_session={cookie}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    sock.sendall(_masked_text(orjson.dumps({"type": "watch", "table": table})))
    return sock


def dropped(sock: socket.socket, timeout: float) -> bool:
    """Read what the kernel kept for us; True once the server has closed or cut it."""
    sock.settimeout(0.5)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if sock.recv(65536) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True  # reset by the server
    return False


async def churn(player: Player, table: str, seat: int, rounds: int) -> None:
    for _ in range(rounds):
        r = await player.http.post(f"/api/tables/{table}/sit", json={"seat": seat})
        assert r.status_code == 200, r.text
        r = await player.http.post(f"/api/tables/{table}/stand")
        assert r.status_code == 200, r.text


async def test_a_client_that_never_reads_is_dropped_and_memory_stays_flat(server: Server) -> None:
    host = await Player.guest(server.base)
    movers = [await Player.guest(server.base) for _ in range(2)]
    lazy = await Player.guest(server.base)
    try:
        table = (await create_table(host, name="slow", players=4))["id"]
        await churn(movers[0], table, 1, 100)  # warm up: imports, caches, pools
        sock = never_reading_socket(server.port, lazy.cookie, table)
        await asyncio.sleep(0.5)
        before = rss_kib(server.proc.pid)
        started = time.monotonic()
        # 2 players sit down and stand up (never all four seats: no game starts), 2 table
        # events a round, 1,000 events in all.
        await asyncio.gather(*(churn(m, table, i + 1, EVENTS // 4) for i, m in enumerate(movers)))
        elapsed = time.monotonic() - started
        after = rss_kib(server.proc.pid)
        gone = await asyncio.to_thread(dropped, sock, 10)
        sock.close()
        print(
            f"\n{EVENTS} events in {elapsed:.1f}s; server RSS {before} KiB -> {after} KiB "
            f"({after - before:+d} KiB); never-reading socket dropped: {gone}"
        )
        assert gone, "the server kept a socket that stopped reading"
        assert "too_slow" in server.log()
        assert after - before < 4096, (before, after)  # flat: well under 4 MiB of growth
    finally:
        await close_all([host, *movers, lazy], [])
