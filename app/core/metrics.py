"""Prometheus metrics: every metric object of the server lives here, so instrumenting a
code path is one line (``metrics.MOVES.inc()``) and docs/operations.md lists them all.

Several uvicorn workers (or processes on one host) each count their own: with
``PROMETHEUS_MULTIPROC_DIR`` set (an empty folder, wiped before the processes start)
prometheus-client keeps the values in memory-mapped files there and ``render()`` adds
them up across the processes. Without it (one process, tests) the default registry is
used. The variable is read when this module is first imported.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import time
from collections.abc import Iterator
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from app.core.tasks import cancel_and_wait

log = logging.getLogger("app.metrics")

MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None
CONTENT_TYPE = CONTENT_TYPE_LATEST

# Latency buckets in seconds: from a fast Redis round trip to a stalled one.
_FAST = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_SLOW = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

OPEN_SOCKETS = Gauge(
    "buraco_open_sockets", "WebSockets open on this process", multiprocess_mode="livesum"
)
LIVE_TABLES = Gauge(
    "buraco_live_tables",
    "Public live tables in Redis, by modality and status",
    ["modality", "status"],
    multiprocess_mode="livemostrecent",
)
CPU_DEMAND = Gauge(
    "buraco_cpu_demand_ratio",
    "Share of wall time this process's event loop ran or waited for a CPU (moving average)",
    multiprocess_mode="liveall",
)
MOVES = Counter("buraco_moves_total", "Commands committed to a table, by who sent them", ["source"])
REFUSALS = Counter(
    "buraco_refusals_total", "Commands and messages refused, by error code", ["code"]
)
COMMAND_SECONDS = Histogram(
    "buraco_command_seconds",
    "A player's command from arrival to its commit in Redis",
    buckets=_FAST,
)
REDIS_SECONDS = Histogram(
    "buraco_redis_roundtrip_seconds", "Redis round trips, by operation", ["op"], buckets=_FAST
)
PUBSUB_LAG = Histogram(
    "buraco_pubsub_lag_seconds",
    "From a table commit to its records reaching this process's subscriber",
    buckets=_FAST,
)
TIMER_LATENESS = Histogram(
    "buraco_timer_lateness_seconds",
    "How late a deadline (turn clock, bot move, grace) fired",
    buckets=_SLOW,
)
SETTLEMENTS = Counter("buraco_settlements_total", "Finished games settled, by outcome", ["outcome"])
SETTLEMENT_SECONDS = Histogram(
    "buraco_settlement_seconds", "Settling a finished game in Postgres", buckets=_SLOW
)
HTTP_REQUESTS = Counter(
    "buraco_http_requests_total",
    "HTTP requests, by route and status",
    ["method", "route", "status"],
)
HTTP_SECONDS = Histogram(
    "buraco_http_request_seconds", "HTTP request duration, by route", ["route"], buckets=_SLOW
)
LOOP_LAG = Histogram(
    "buraco_event_loop_lag_seconds",
    "How late the event loop ran a timer set one interval earlier",
    buckets=_FAST,
)
GC_PAUSE = Histogram(
    "buraco_gc_pause_seconds",
    "Pauses of Python's cyclic garbage collector, by generation (0 youngest, 2 whole heap)",
    ["generation"],
    buckets=_FAST,
)

# Label values known in advance exist from the start (the multiprocess collector shows
# only what some process wrote), so a dashboard's rate() has a zero to start from.
for _source in ("player", "bot"):
    MOVES.labels(_source)
for _outcome in ("ok", "error"):
    SETTLEMENTS.labels(_outcome)
for _op in ("commit", "ping"):
    REDIS_SECONDS.labels(_op)
REFUSALS.labels("rate_limited")
_GC_PAUSE_BY_GENERATION = [GC_PAUSE.labels(str(g)) for g in range(3)]

# The children a move touches, bound once: ``labels()`` takes a lock and builds a key on
# every call (about 5 µs, against 0.2 µs for a child bound once), and a move would
# otherwise pay for it three times.
_MOVES_BY_SOURCE = {source: MOVES.labels(source) for source in ("player", "bot")}
COMMIT_SECONDS = REDIS_SECONDS.labels("commit")


@contextlib.contextmanager
def settling() -> Iterator[None]:
    """Around one settlement: its duration, and whether it succeeded."""
    started = time.perf_counter()
    try:
        yield
    except BaseException:
        SETTLEMENTS.labels("error").inc()
        raise
    SETTLEMENTS.labels("ok").inc()
    SETTLEMENT_SECONDS.observe(time.perf_counter() - started)


def moved(source: str, committed: bool, started: float | None = None) -> None:
    """A command was decided: counted when it committed; timed from ``started``."""
    if committed:
        counter = _MOVES_BY_SOURCE.get(source)
        (counter if counter is not None else MOVES.labels(source)).inc()
        if started is not None:
            COMMAND_SECONDS.observe(time.perf_counter() - started)


def render() -> bytes:
    """The exposition text of every metric (of every process when multiprocess)."""
    if MULTIPROC_DIR:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry)
    return generate_latest(REGISTRY)


def mark_process_dead(pid: int | None = None) -> None:
    """A worker stops: its live gauges no longer count (multiprocess only)."""
    if MULTIPROC_DIR:
        multiprocess.mark_process_dead(pid or os.getpid())  # type: ignore[no-untyped-call]


class GcPauses:
    """Times every collection of Python's cyclic garbage collector (``gc.callbacks``).

    A collection starts inside whatever allocation set it off, which may be inside a
    metric's own lock (with PROMETHEUS_MULTIPROC_DIR prometheus-client has one global,
    non-reentrant lock), so the callback only appends to a list; ``flush`` moves the
    pauses into ``buraco_gc_pause_seconds`` from the monitor's task. At most ``keep``
    pauses wait (the newest are dropped past it, should nobody flush)."""

    def __init__(self, keep: int = 10_000) -> None:
        self.keep = keep
        self.started = 0.0
        self.pending: list[tuple[int, float]] = []

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
        elif len(self.pending) < self.keep:
            self.pending.append((info["generation"], time.perf_counter() - self.started))

    def install(self) -> None:
        if self not in gc.callbacks:
            gc.callbacks.append(self)

    def uninstall(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self)

    def flush(self) -> None:
        pending, self.pending = self.pending, []
        for generation, seconds in pending:
            _GC_PAUSE_BY_GENERATION[min(generation, 2)].observe(seconds)


class Monitor:
    """Background probes: event-loop lag every ``interval``, a Redis PING round trip
    every ``ping_every`` intervals, and the collector's pauses (``GcPauses``) moved into
    their histogram every interval."""

    def __init__(self, redis: Any, interval: float = 0.5, ping_every: int = 10) -> None:
        self.redis = redis
        self.interval = interval
        self.ping_every = ping_every
        self.task: asyncio.Task[None] | None = None
        self.gc_pauses = GcPauses()

    def start(self) -> None:
        self.gc_pauses.install()
        self.task = asyncio.create_task(self._run(), name="metrics-monitor")

    async def stop(self) -> None:
        self.gc_pauses.uninstall()
        await cancel_and_wait(self.task)
        self.gc_pauses.flush()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        n = 0
        while True:
            before = loop.time()
            await asyncio.sleep(self.interval)
            LOOP_LAG.observe(max(0.0, loop.time() - before - self.interval))
            self.gc_pauses.flush()
            n += 1
            if n % self.ping_every == 0:
                await self._ping()

    async def _ping(self) -> None:
        started = time.perf_counter()
        try:
            await asyncio.wait_for(self.redis.ping(), 2.0)
        except Exception:  # Redis away: /readyz says so; nothing to time
            return
        REDIS_SECONDS.labels("ping").observe(time.perf_counter() - started)
