"""The CPU-demand signal of graceful overload (app/tables/live/overload.py): the share of
wall time the event loop's thread ran or waited to run, read from the kernel's
scheduler statistics, rises when the loop is kept busy and falls when it idles, and
past ``max_cpu_demand`` the process refuses new tables and seats."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from app.core.config import Settings
from app.core.errors import AppError
from app.tables.live import overload
from app.tables.live.overload import CpuDemand, Saturation, refuse_when_saturated, thread_cpu_times


def test_thread_times_come_from_schedstat_and_fall_back_to_the_thread_clock(
    tmp_path: Path,
) -> None:
    stat = tmp_path / "schedstat"
    stat.write_text("2500000000 750000000 1234\n")
    assert thread_cpu_times(str(stat)) == (2.5, 0.75)
    for bad in ("", "garbage here\n"):
        stat.write_text(bad)
        running, waiting = thread_cpu_times(str(stat))
        assert waiting == 0.0 and 0 < running <= time.thread_time() + 0.01
    running, waiting = thread_cpu_times(str(tmp_path / "missing"))
    assert waiting == 0.0 and running > 0


def test_demand_is_a_moving_share_of_wall_time_ran_or_waited() -> None:
    clock = {"cpu": 0.0}
    demand = CpuDemand(lambda: (clock["cpu"] * 0.6, clock["cpu"] * 0.4))
    now = 100.0
    assert demand.sample(now) == 0.0  # the first reading only sets the origin
    for _ in range(20):  # wanted a CPU 95% of every half second
        now += 0.5
        clock["cpu"] += 0.475
        demand.sample(now)
    assert 0.93 < demand.value <= 0.95
    for _ in range(20):  # then idle: it falls back within a few seconds
        now += 0.5
        clock["cpu"] += 0.01
        demand.sample(now)
    assert demand.value < 0.05
    # a reading past 100% (counters read a little apart) or a clock that did not move
    clock["cpu"] += 5
    demand.sample(now + 0.5)
    assert demand.value <= 1.0
    before = demand.value
    demand.sample(now + 0.5)
    assert demand.value == before


def real_demand_of(work: Any, seconds: float) -> float:
    """Sample this thread's real demand every 0.1 s while ``work(deadline)`` runs in
    slices between the samples."""
    demand = CpuDemand()
    demand.sample(time.monotonic())
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        work(min(deadline, time.monotonic() + 0.1))
        demand.sample(time.monotonic())
    return demand.value


def spin(until: float) -> None:
    while time.monotonic() < until:
        pass


def nap(until: float) -> None:
    time.sleep(max(0.0, until - time.monotonic()))


def test_a_thread_kept_busy_wants_a_whole_cpu_and_an_idle_one_almost_none() -> None:
    # Busy: running or, on a loaded machine, waiting to run: either way about 1.
    assert real_demand_of(spin, 1.5) > 0.85
    assert real_demand_of(nap, 1.5) < 0.15


async def test_a_loop_kept_busy_is_saturated_and_refuses_then_recovers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(overload, "DEMAND_EVERY", 1)  # a reading every probe (0.1 s)
    settings = Settings(env="test", max_cpu_demand=0.6, max_loop_lag_ms=10_000)
    saturation = Saturation(settings, SimpleNamespace(table_count=0))  # type: ignore[arg-type]
    conn: Any = SimpleNamespace(app=SimpleNamespace(state=SimpleNamespace(saturation=saturation)))
    await saturation.start()
    try:
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:  # the loop's own work, in 30 ms slices
            spin(time.monotonic() + 0.03)
            await asyncio.sleep(0)
        reason = saturation.reason()
        assert reason is not None and "wants" in reason and "CPU" in reason, saturation.demand.value
        with pytest.raises(AppError) as refused:
            await refuse_when_saturated(conn)
        assert refused.value.code == "server_busy"
        deadline = time.monotonic() + 10
        while saturation.reason() is not None:  # idle again: new tables are welcome
            assert time.monotonic() < deadline, saturation.demand.value
            await asyncio.sleep(0.2)
        await refuse_when_saturated(conn)
        # 0 turns the signal off, however busy the loop
        saturation.settings = Settings(env="test", max_cpu_demand=0, max_loop_lag_ms=10_000)
        saturation.demand.value = 1.0
        assert saturation.reason() is None
    finally:
        await saturation.stop()
