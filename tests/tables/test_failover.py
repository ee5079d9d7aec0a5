"""Two uvicorn processes share Redis, the seats split across them; one is killed with
SIGKILL mid-game. Its players reconnect to the other with their last version, resend
the command that was in flight (same command id) and the game finishes with exactly the
state the engine computes from the archived events."""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
from pathlib import Path

import orjson
import websockets

from app.rules.serialize import state_from_dict, state_to_dict
from app.tables.storage.store import k_hash
from tests.tables.conftest import LONG, no_crash, sync_client
from tests.tables.harness import (
    Closed,
    Player,
    Server,
    archived_game,
    close_all,
    start_servers,
)
from tests.tables.spy import check_totals, check_viewer, truth_from_archive
from tests.tables.test_games import SHORT_4P, seat_players


async def play_with_failover(
    p: Player, tid: str, rng: random.Random, fallback: Server, reconnects: list[str]
) -> list[dict[str, object]]:
    errors: list[dict[str, object]] = []
    while True:
        try:
            errors += await p.play_until_over(tid, rng)
            return errors
        except (Closed, websockets.ConnectionClosed, TimeoutError):
            # A send may see the dead socket before the reader task has ended: give the
            # reader a moment before deciding whether this socket really is still open.
            if p.reader is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(p.reader), 2)
            if p.connected:
                raise
        await p.connect(fallback.ws_url)
        t = p.tables[tid]
        resumed = await p.watch(tid, last_v=t.v)
        assert resumed["type"] == "resume", resumed
        reconnects.append(f"seat {t.seat} resumed from {t.v}")
        if p.pending is not None:  # the command in flight when the process died
            _, cid, command = p.pending
            reply = await p.command(tid, command, cid=cid)
            assert reply["type"] == "ack", reply
            await p.until(lambda t=t, reply=reply: t.v >= reply["v"])


async def test_sigkill_one_process_mid_game(pg_url: str, own_redis: str, tmp_path: Path) -> None:
    a, b = start_servers(2, pg_url, own_redis, tmp_path, **LONG)
    redis_sync = sync_client(own_redis)
    people: list[Player] = []
    try:
        tid, people = await seat_players([a, b], "cerrado", 4, SHORT_4P)
        reconnects: list[str] = []
        tasks = [
            asyncio.create_task(play_with_failover(p, tid, random.Random(40 + i), a, reconnects))
            for i, p in enumerate(people)
        ]
        watcher = people[0]
        await watcher.until(lambda: watcher.tables[tid].v >= 45, timeout=60)
        assert not watcher.tables[tid].over
        b.kill()
        killed_at = watcher.tables[tid].v
        results = await asyncio.wait_for(asyncio.gather(*tasks), 90)
        assert all(r == [] for r in results), results
        # Seats 1 and 3 were on the killed process and came back through the other.
        assert len(reconnects) == 2, reconnects
        game = await archived_game(people[0], people[0].tables[tid].game_id or "")
        truth = truth_from_archive(game)
        assert truth.last_v > killed_at + 5
        check_totals(game, truth)
        stored = redis_sync.hget(k_hash(tid), "state")
        assert stored is not None
        assert state_to_dict(state_from_dict(orjson.loads(stored))) == state_to_dict(truth.final)
        for p in people:
            assert p.problems == []
            await p.until(lambda p=p: p.tables[tid].v >= truth.last_v)
            check_viewer(p.frames, truth, tid, p.tables[tid].seat, p.conn_starts)
        no_crash(a)
    finally:
        await close_all(people, [a, b])
        redis_sync.close()


async def test_a_killed_process_s_players_get_the_grace_period(
    pg_url: str, own_redis: str, tmp_path: Path
) -> None:
    """SIGKILL leaves no goodbye: the surviving process notices the dead one's heartbeat
    stop, forgets its sockets and starts the grace clock of each player it left with no
    socket, so a player who never comes back is replaced by a bot after the grace period
    (turn clocks here are far too long to be the cause). A player who had a second tab
    on the surviving process keeps the seat."""
    settings = {**LONG, "disconnect_grace_seconds": 2, "process_dead_after_seconds": 2}
    a, b = start_servers(2, pg_url, own_redis, tmp_path, **settings)
    people: list[Player] = []
    second_tab: Player | None = None
    try:
        # seats 0 and 2 on a, seats 1 and 3 on b (seat_players alternates servers)
        tid, people = await seat_players([a, b], "cerrado", 4, SHORT_4P)
        second_tab = people[3].tab()
        await second_tab.connect(a.ws_url)
        await second_tab.watch(tid)
        await asyncio.sleep(0.5)  # the second tab is counted
        b.kill()
        watcher = people[0]

        def abandoned() -> set[int]:
            meta = watcher.tables[tid].meta
            return {i for i, s in enumerate(meta["seats"]) if s and s.get("abandoned")}

        await watcher.until(lambda: 1 in abandoned(), timeout=20)
        assert abandoned() == {1}, abandoned()
        await asyncio.sleep(3)  # past another grace period: seat 3 still has a socket
        assert abandoned() == {1}, abandoned()
        seats = watcher.tables[tid].meta["seats"]
        assert seats[1]["timeouts"] == 0  # the grace period, not the turn clock
        no_crash(a)
    finally:
        if second_tab is not None:
            await second_tab.disconnect()
        await close_all(people, [a, b])


async def test_a_stalled_process_that_comes_back_keeps_its_players(
    pg_url: str,
    own_redis: str,
    tmp_path: Path,
) -> None:
    """A process frozen past the heartbeat's limit (SIGSTOP) is swept for dead and its
    players' grace clocks start; when it runs again it counts its sockets again and
    stops those clocks, so players who never left keep their seats."""
    settings = {**LONG, "disconnect_grace_seconds": 3, "process_dead_after_seconds": 2}
    a, b = start_servers(2, pg_url, own_redis, tmp_path, **settings)
    people: list[Player] = []
    try:
        tid, people = await seat_players([a, b], "cerrado", 4, SHORT_4P)
        b.proc.send_signal(signal.SIGSTOP)
        try:
            await asyncio.sleep(3.2)  # swept after 2 s; the grace clocks run out at ~5 s
        finally:
            b.proc.send_signal(signal.SIGCONT)
        await asyncio.sleep(4)  # past the grace clocks the sweep started
        watcher = people[0]
        seats = watcher.tables[tid].meta["seats"]
        assert not any(s["abandoned"] for s in seats), seats
        assert "swept while alive" in b.log()
        no_crash(a)
        no_crash(b)
    finally:
        await close_all(people, [a, b])
