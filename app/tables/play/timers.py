"""The deadline loop: every process polls the shared sorted sets of deadlines and runs the
ones it manages to claim (ZREM answers 1 to exactly one process), so a turn clock, a
bot's move or a grace period survives the death of the process that set it.

The liveness heartbeat is a task of its own (``Heartbeat``) that only renews the
process's entry: a loop busy with moves, timers or a sweep still beats in time, so a
saturated process is never taken for dead. The loop sweeps the processes that stopped
beating (``sweep_dead_processes``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from app.core import metrics
from app.core.errors import AppError
from app.core.tasks import cancel_and_wait
from app.tables.play import absence, deadlines, idle
from app.tables.play.service import TableService

log = logging.getLogger("app.tables.play.timers")

POLL_SECONDS = 0.25


class TimerLoop:
    def __init__(self, svc: TableService, poll: float = POLL_SECONDS) -> None:
        self.svc = svc
        self.poll = poll
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.running: set[asyncio.Task[None]] = set()
        self.stopping = False
        self.next_sweep = 0.0
        self.heartbeat = Heartbeat(svc)
        svc.kick = self.kick

    def kick(self, member: str, at: float) -> None:
        """A deadline was set: wake up in time for it rather than at the next poll."""
        delay = at - time.time()
        loop = asyncio.get_running_loop()
        if delay <= 0:
            self.wake.set()
        elif delay < self.poll:
            loop.call_later(delay, self.wake.set)

    async def start(self) -> None:
        try:
            await self.heartbeat.beat()  # before any socket of ours is counted
        except Exception:  # Redis away at start: /readyz says so; the loop beats later
            log.warning("first heartbeat failed", exc_info=True)
        self.heartbeat.start()
        self.task = asyncio.create_task(self._run(), name="timers")

    async def beat(self) -> None:
        """Sweep the processes that stopped renewing their heartbeat (a few times per
        dead-after period)."""
        now = time.time()
        if now < self.next_sweep:
            return
        self.next_sweep = now + self.svc.settings.process_dead_after_seconds / 4
        await sweep_dead_processes(self.svc)

    async def stop(self) -> None:
        # A flag as well as a cancel: on Python 3.11 wait_for can swallow a cancellation
        # that arrives just as the event it waits on is set (cancel_and_wait cancels again).
        self.stopping = True
        self.wake.set()
        await self.heartbeat.stop()
        await cancel_and_wait(self.task)
        for task in list(self.running):
            await cancel_and_wait(task)

    async def _run(self) -> None:
        while not self.stopping:
            try:
                await self.beat()
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("timer poll failed")
                await asyncio.sleep(1.0)  # Redis away: do not spin
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), self.poll)
            self.wake.clear()

    async def tick(self) -> int:
        fired = 0
        for member, at in await self.svc.store.due_timers_at(time.time()):
            if await self.svc.store.claim_timer(member):
                metrics.TIMER_LATENESS.observe(max(0.0, time.time() - at))
                task = asyncio.create_task(deadlines.fire(self.svc, member))
                self.running.add(task)
                task.add_done_callback(self.running.discard)
                fired += 1
        return fired


async def sweep_dead_processes(svc: TableService) -> int:
    """Processes that stopped renewing their heartbeat died without closing their
    sockets: forget those sockets, and start the grace clock of every player they
    left with none (as if each had closed the page). Returns how many were swept."""
    dead_after = svc.settings.process_dead_after_seconds
    swept = 0
    for proc in await svc.store.dead_processes(time.time() - dead_after):
        if proc == svc.proc_id or not await svc.store.claim_dead(proc):
            continue
        swept += 1
        for table_id, user_id, left in await svc.store.drop_process(proc):
            await idle.schedule_idle_check(svc, table_id)  # its viewers went with it
            if left > 0:
                continue
            try:
                _, meta, _ = await svc.load(table_id)
            except AppError:
                continue
            if meta.status == "playing" and meta.seat_of(user_id) is not None:
                log.info("process %s died: grace clock of user %s on %s", proc, user_id, table_id)
                await absence.start_grace(svc, table_id, user_id)
    return swept


class Heartbeat:
    """Renews this process's liveness entry a few times per dead-after period and does
    nothing else, so it costs one ZADD and never waits behind timers or sweeps."""

    def __init__(self, svc: TableService) -> None:
        self.svc = svc
        self.task: asyncio.Task[None] | None = None
        self.registered = False  # a first heartbeat was written
        self.beats = 0

    async def beat(self) -> None:
        if await self.svc.store.heartbeat(self.svc.proc_id, time.time()) and self.registered:
            # We stalled and were swept, or Redis lost its data: count our sockets again.
            await absence.rejoin(self.svc)
            for hook in self.svc.rejoin_hooks:
                await hook()
        self.registered = True
        self.beats += 1

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name="heartbeat")

    async def stop(self) -> None:
        await cancel_and_wait(self.task)

    async def _run(self) -> None:
        interval = self.svc.settings.process_dead_after_seconds / 4
        while True:
            await asyncio.sleep(interval)
            try:
                await self.beat()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("heartbeat failed", exc_info=True)
