"""A strong bot's worker process (app/tables/play/botplay.py) does not outlive the server
that started it: killed outright, the server never shuts its pool down, and the worker
exits by itself. Real processes: a parent that starts the pool, then is SIGKILLed."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

from app.core.config import Settings
from app.tables.play.botplay import BotPlayer


def _pid() -> int:
    return os.getpid()


def _server(report: multiprocessing.connection.Connection) -> None:
    player = BotPlayer(Settings(env="test", bot_workers=1))
    report.send(player.pool().submit(_pid).result(timeout=60))  # the worker, started
    time.sleep(120)  # until killed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie waiting for its reaper is gone too
        return f.read().split(")")[-1].split()[0] != "Z"


def test_a_worker_exits_when_its_server_is_killed() -> None:
    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    server = ctx.Process(target=_server, args=(theirs,))
    server.start()
    try:
        assert ours.poll(60), "the worker did not start"
        worker = ours.recv()
        assert worker != server.pid and _alive(worker)
        os.kill(server.pid or 0, signal.SIGKILL)
        server.join(10)
        deadline = time.monotonic() + 10
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(worker), "the bot worker outlived its server"
    finally:
        if server.is_alive():
            server.kill()
