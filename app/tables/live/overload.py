"""Graceful overload: a saturated process stops taking on new tables before the ones it
serves slow down, and says so to the balancer (``/readyz``); its liveness heartbeat runs
on its own so that a busy process is never swept as dead.

Saturated means any of:

* the event loop wants more CPU than it gets: the share of wall time its thread spent
  running or waiting to run (Linux's scheduler statistics, ``/proc/thread-self/
  schedstat``: a moving average over a few seconds) is past
  ``settings.max_cpu_demand``. This is the early signal: it rises with the moves a
  process serves whether its own work or the machine's other processes take the CPU,
  before the loop falls behind; 0 turns it off;
* the event loop lags: a task that sleeps ``PROBE_SECONDS`` measures how late it wakes
  (a moving average); past ``settings.max_loop_lag_ms`` the loop is behind its work;
* it serves ``settings.max_tables_per_process`` tables (0: no cap), counted as the
  table channels its sockets hold.

While saturated, creating a table, sitting down and quick play answer ``server_busy``
(503, Retry-After); moves at the tables it already serves go on. The heartbeat runs in
a task of its own (``timers.Heartbeat``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from starlette.requests import HTTPConnection

from app.core import metrics
from app.core.config import Settings
from app.core.tasks import cancel_and_wait
from app.tables.live.protocol import server_busy

if TYPE_CHECKING:
    from app.tables.live.fanout import Hub

log = logging.getLogger("app.tables.live.overload")

PROBE_SECONDS = 0.1
SMOOTHING = 0.2  # weight of the newest lag in the moving average
DEMAND_EVERY = 5  # probes between two readings of the CPU demand (0.5 s)
DEMAND_SMOOTHING = 0.25  # weight of the newest reading: about 2 s of memory
SCHEDSTAT = "/proc/thread-self/schedstat"


def thread_cpu_times(path: str = SCHEDSTAT) -> tuple[float, float]:
    """Seconds the calling thread has spent on a CPU and waiting in the run queue for
    one. Where the scheduler keeps no such statistics (not Linux, or schedstats off),
    the waiting is unknown and counts as 0."""
    try:
        with open(path, "rb") as f:
            running, waiting = f.read().split()[:2]
        return int(running) / 1e9, int(waiting) / 1e9
    except (OSError, ValueError):
        return time.thread_time(), 0.0


class CpuDemand:
    """The share of wall time a thread wanted a CPU (ran or waited to run), as a moving
    average of readings taken by ``sample``. 1.0: it never slept, its work queues."""

    def __init__(self, read: Callable[[], tuple[float, float]] = thread_cpu_times) -> None:
        self.read = read
        self.value = 0.0
        self._last: tuple[float, float] | None = None

    def sample(self, now: float) -> float:
        running, waiting = self.read()
        if self._last is not None:
            then, wanted = self._last
            if now > then:
                share = (running + waiting - wanted) / (now - then)
                self.value += DEMAND_SMOOTHING * (min(1.0, max(0.0, share)) - self.value)
        self._last = (now, running + waiting)
        return self.value


class Saturation:
    """This process's load, sampled by a cheap task."""

    def __init__(self, settings: Settings, hub: Hub) -> None:
        self.settings = settings
        self.hub = hub
        self.lag_ms = 0.0
        self.demand = CpuDemand()
        self.task: asyncio.Task[None] | None = None

    def tables(self) -> int:
        return self.hub.table_count

    def reason(self) -> str | None:
        """Why this process takes no new tables now, or None."""
        cap = self.settings.max_tables_per_process
        if cap and self.tables() >= cap:
            return f"serving {self.tables()} tables (cap {cap})"
        limit = self.settings.max_cpu_demand
        if limit and self.demand.value > limit:
            return f"event loop wants {self.demand.value:.0%} of a CPU (limit {limit:.0%})"
        if self.lag_ms > self.settings.max_loop_lag_ms:
            return f"event loop {self.lag_ms:.0f} ms behind"
        return None

    async def start(self) -> None:
        self.task = asyncio.create_task(self._probe(), name="loop-lag")

    async def stop(self) -> None:
        await cancel_and_wait(self.task)

    async def _probe(self) -> None:
        n = 0
        while True:
            if n % DEMAND_EVERY == 0:  # on the loop's thread: its own statistics
                self.demand.sample(time.monotonic())
                metrics.CPU_DEMAND.set(self.demand.value)
            n += 1
            start = time.perf_counter()
            await asyncio.sleep(PROBE_SECONDS)
            late = (time.perf_counter() - start - PROBE_SECONDS) * 1000
            self.lag_ms += SMOOTHING * (max(0.0, late) - self.lag_ms)


async def refuse_when_saturated(conn: HTTPConnection) -> None:
    """A route dependency: no new tables or seats on a saturated process. A coroutine, so
    it runs on the event loop: FastAPI runs a plain function dependency in a worker
    thread, where reading the hub raced with the loop changing it (at 4,000 tables a
    create answered 500, "dictionary changed size during iteration")."""
    saturation: Saturation | None = getattr(conn.app.state, "saturation", None)
    reason = saturation.reason() if saturation is not None else None
    if reason is not None:
        log.warning("refusing a new table or seat: %s", reason)
        raise server_busy()
