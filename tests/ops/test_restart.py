"""SIGTERM during a game, on one of two real processes: the process stops being ready,
its player gets {"type": "server_restart"} then a 1012 close, resumes on the other
process from its last version and plays on; the stopped process exits cleanly."""

from __future__ import annotations

import asyncio
import base64
import os
import signal
import time
from pathlib import Path

import httpx

from tests.tables.harness import ORIGIN, Player, start_servers
from tests.tables.test_games import SHORT_2P, seat_players


async def silent_socket(port: int, cookie: str) -> asyncio.StreamWriter:
    """A WebSocket client that never reads again after the handshake (so it never
    answers the server's close): the process must wait for it, still not ready."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {ORIGIN}\r\nCookie: buraco_session={cookie}\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    status = await reader.readline()
    assert b" 101 " in status, status
    return writer


async def test_sigterm_tells_sockets_to_reconnect_and_they_resume_elsewhere(
    pg_url: str, ops_redis: str, var: Path
) -> None:
    servers = start_servers(
        2,
        pg_url,
        ops_redis,
        var,
        shutdown_drain_seconds=3,
        turn_seconds=300,
        disconnect_grace_seconds=300,
        log_level="INFO",
    )
    people: list[Player] = []
    writer = None
    try:
        tid, people = await seat_players(servers, "cerrado", 2, SHORT_2P)
        leaving = people[1]  # seated through servers[1], the one that restarts
        writer = await silent_socket(servers[1].port, leaving.cookie)
        before = len(leaving.frames)
        last_v = leaving.tables[tid].v
        servers[1].proc.send_signal(signal.SIGTERM)

        ready = httpx.get(servers[1].base + "/readyz", timeout=2)
        assert ready.status_code == 503, ready.text
        assert ready.json()["error"]["code"] == "shutting_down"
        # However soon its sockets go, it stays up saying so for a second (a busy machine
        # once sent this request after the process had already closed its port).
        await asyncio.sleep(0.5)
        again = await asyncio.to_thread(httpx.get, servers[1].base + "/readyz", timeout=2)
        assert again.status_code == 503, again.text
        notice = await leaving.wait_frame(lambda f: f["type"] == "server_restart", since=before)
        assert notice == {"type": "server_restart"}
        await leaving.until(lambda: not leaving.connected, timeout=10)
        assert leaving.close_codes[-1] == 1012

        # The client comes back on the other process and resumes where it was.
        await leaving.connect(servers[0].ws_url)
        resumed = await leaving.watch(tid, last_v=last_v)
        assert resumed["type"] in ("resume", "snapshot"), resumed
        t = leaving.tables[tid]
        mover = people[t.turn]
        ack = await mover.command(tid, {"type": "draw"})
        assert ack["type"] == "ack", ack
        for p in people:
            await p.until(lambda p=p: p.tables[tid].v >= ack["v"])

        deadline = time.monotonic() + 20
        while servers[1].alive() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        # uvicorn ends by re-raising the signal it handled
        assert servers[1].proc.returncode in (0, -signal.SIGTERM), servers[1].log()
        assert "drained 2 sockets" in servers[1].log(), servers[1].log()
    finally:
        if writer is not None:
            writer.close()
        for p in people:
            await p.aclose()
        for server in servers:
            server.stop()
