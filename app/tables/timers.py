"""The deadline loop: every process polls the shared sorted set of deadlines and runs the
ones it manages to claim (ZREM answers 1 to exactly one process), so a turn clock, a
bot's move or a grace period survives the death of the process that set it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from app.core import metrics
from app.tables.service import TableService

log = logging.getLogger("app.tables.timers")

POLL_SECONDS = 0.25


class TimerLoop:
    def __init__(self, svc: TableService, poll: float = POLL_SECONDS) -> None:
        self.svc = svc
        self.poll = poll
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.running: set[asyncio.Task[None]] = set()
        self.stopping = False
        self.next_beat = 0.0
        self.registered = False  # a first heartbeat was written
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
            await self.beat()  # before any socket of ours is counted
        except Exception:  # Redis away at start: /readyz says so; the loop beats later
            log.warning("first heartbeat failed", exc_info=True)
        self.task = asyncio.create_task(self._run(), name="timers")

    async def beat(self) -> None:
        """Renew this process's heartbeat (a few times per dead-after period) and sweep the
        processes that stopped renewing theirs."""
        now = time.time()
        if now < self.next_beat:
            return
        dead_after = self.svc.settings.process_dead_after_seconds
        self.next_beat = now + dead_after / 4
        if await self.svc.store.heartbeat(self.svc.proc_id, now) and self.registered:
            await self.svc.rejoin()  # we stalled and were swept: count our sockets again
        self.registered = True
        await self.svc.sweep_dead_processes()

    async def stop(self) -> None:
        # A flag as well as a cancel: on Python 3.11 wait_for can swallow a cancellation
        # that arrives just as the event it waits on is set.
        self.stopping = True
        self.wake.set()
        if self.task:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        for task in list(self.running):
            task.cancel()
        for task in list(self.running):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

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
                task = asyncio.create_task(self.svc.fire(member))
                self.running.add(task)
                task.add_done_callback(self.running.discard)
                fired += 1
        return fired
