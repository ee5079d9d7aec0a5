"""One system's figures (``Stats``), the percentiles, the servers' collector pauses and
the run's summary: the last line ``load.py`` prints.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from loadbench.servers import CALLGRIND, RAMP, round_trips


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Stats:
    """One system's figures, counted only while its window is measured."""

    def __init__(self) -> None:
        self.latencies: list[float] = []  # ms; a failed move counts at the time-out
        self.done_at: list[float] = []  # perf_counter() when each of those was done
        self.offered = 0
        self.served = 0
        self.errors: Counter[str] = Counter()
        self.kinds: Counter[str] = Counter()  # commands sent, by type
        self.by_kind: dict[str, list[float]] = {}  # served moves' latencies (ms), by kind
        self.gaps = 0
        self.dups = 0
        self.measuring = False
        self.seconds = 0.0
        self.cpu = 0.0
        self.cpu_kernel = 0.0  # the kernel's share of self.cpu
        self.read_calls = 0  # the servers' read and write system calls (/proc/PID/io)
        self.write_calls = 0
        self.redis_cpu = 0.0
        self.commands = 0
        self.calls: Counter[str] = Counter()  # Redis commands by name
        self.instructions = 0  # with --callgrind
        self.idle_rate = 0.0  # instructions per second with no moves (--callgrind)
        self.window_p99: list[float] = []  # ms, one per measured window
        # the servers' collector pauses in each window: (how many, ms in all)
        self.window_gc: list[tuple[int, float]] = []
        self.machine_busy = 0.0  # CPU seconds the whole machine spent busy in the windows
        self.machine_steal = 0.0  # CPU seconds stolen by the hypervisor in the windows
        self.client_cpu = 0.0  # CPU seconds both clients (this process, the baseline's) spent
        self.gc: Counter[str] = Counter()  # the servers' collector pauses in the windows
        # seconds a server process (on average) and a Redis node spent waiting for a CPU
        self.runqueue = 0.0
        self.redis_runqueue = 0.0

    def record(self, ms: float, kind: str = "") -> None:
        """A counted move's latency, and when it was done; ``kind``: a served move's
        command (and what else its version did, such as ending a hand)."""
        self.latencies.append(ms)
        self.done_at.append(time.perf_counter())
        if kind:
            self.by_kind.setdefault(kind, []).append(ms)

    def failed(self, code: str, timeout: float, counted: bool) -> None:
        if counted:
            self.errors[code] += 1
            self.record(timeout * 1000)


def gc_pause_figures(text: str) -> Counter[str]:
    """From one server's /metrics: its ``buraco_gc_pause_seconds`` as how many pauses,
    their seconds in all (also by generation: ``count0``, ``seconds0``...), and how many
    took up to 5 and up to 10 ms."""
    out: Counter[str] = Counter()
    for family in text_string_to_metric_families(text):
        if family.name != "buraco_gc_pause_seconds":
            continue
        for sample in family.samples:
            kind = sample.name.removeprefix(family.name)
            generation = sample.labels.get("generation", "")
            if kind in ("_count", "_sum"):
                what = "count" if kind == "_count" else "seconds"
                out[what] += sample.value
                out[what + generation] += sample.value
            elif kind == "_bucket" and sample.labels["le"] in ("0.005", "0.01"):
                out["upto_5ms" if sample.labels["le"] == "0.005" else "upto_10ms"] += sample.value
    return out


# The servers' own histograms that split a move's time (app/core/metrics.py): from a
# command's arrival to its commit, from a commit to its records reaching a process's
# subscriber, and how late the event loop ran a timer (a probe every 0.5 s).
STAGES = {
    "command": "buraco_command_seconds",
    "delivery": "buraco_pubsub_lag_seconds",
    "loop_lag": "buraco_event_loop_lag_seconds",
}
STAGE_LIMITS = ("0.002", "0.005", "0.01")  # bucket bounds, seconds: 2, 5 and 10 ms


def stage_figures(text: str) -> Counter[str]:
    """From one server's /metrics: each of ``STAGES`` as its count (``command``) and how
    many took up to each of ``STAGE_LIMITS`` (``command<=0.005``)."""
    out: Counter[str] = Counter()
    names = {metric: stage for stage, metric in STAGES.items()}
    for family in text_string_to_metric_families(text):
        stage = names.get(family.name)
        if stage is None:
            continue
        for sample in family.samples:
            kind = sample.name.removeprefix(family.name)
            if kind == "_count":
                out[stage] += sample.value
            elif kind == "_bucket" and sample.labels["le"] in STAGE_LIMITS:
                out[f"{stage}<={sample.labels['le']}"] += sample.value
    return out


def stage_shares(figures: Counter[str]) -> dict[str, dict[str, Any]]:
    """Each stage's count and its shares past 2, 5 and 10 ms (None with no sample)."""
    out: dict[str, dict[str, Any]] = {}
    for stage in STAGES:
        n = figures[stage]
        out[stage] = {"count": int(n)}
        for le in STAGE_LIMITS:
            past = (n - figures[f"{stage}<={le}"]) / n if n else None
            out[stage][f"over_{float(le) * 1000:g}ms"] = None if past is None else round(past, 5)
    return out


def stage_line(figures: Counter[str]) -> str:
    """``stage_shares`` as one line: how many of each stage took longer than 2, 5, 10 ms."""
    parts = []
    for stage, shares in stage_shares(figures).items():
        over = ", ".join(
            "-" if share is None else f"{share:.2%} over {key[5:-2]} ms"
            for key, share in shares.items()
            if key != "count"
        )
        parts.append(f"{stage} ({shares['count']}): {over}")
    return "; ".join(parts)


async def gc_pauses(bases: list[str]) -> Counter[str]:
    """``gc_pause_figures`` and ``stage_figures`` summed over the servers."""
    out: Counter[str] = Counter()
    async with httpx.AsyncClient(timeout=10) as http:
        for base in bases:
            text = (await http.get(base + "/metrics")).text
            out.update(gc_pause_figures(text))
            out.update(stage_figures(text))
    return out


async def print_anatomy(bases: list[str], types: int) -> None:
    """Each server's memory by type (``GET /metrics/memory``, app/core/heap.py), in bytes
    per table it caches and per socket it holds, with the resident size the census does
    not explain (the event loop's handles, the allocator's free lists)."""
    async with httpx.AsyncClient(timeout=120) as http:
        for i, base in enumerate(bases):
            r = await http.get(base + "/metrics/memory", params={"limit": types})
            r.raise_for_status()
            body = r.json()
            tables, sockets = max(body["cached_tables"], 1), max(body["sockets"], 1)
            rss = body["rss_bytes"] or 0
            print(
                f"memory of server {i}: {rss / 2**20:.1f} MiB resident, "
                f"{body['bytes'] / 2**20:.1f} MiB in {body['objects']} objects made since "
                f"start-up; {body['cached_tables']} tables cached, {body['sockets']} sockets",
                flush=True,
            )
            for row in body["types"]:
                print(
                    f"  {row['bytes'] / tables:8.0f} B/table {row['bytes'] / sockets:7.0f} B/socket"
                    f" {row['count'] / sockets:6.2f}/socket  {row['type']}",
                    flush=True,
                )


def instruction_figures(m: Stats, b: Stats) -> dict[str, Any]:
    """Instructions per move, and per move beyond what the system does with no move at
    all (the "marginal" ones: its timers and heartbeats, a fixed cost per second, left
    out; at thousands of tables that cost spreads over thousands of moves a second)."""
    out: dict[str, Any] = {}
    for name, s in (("server", m), ("baseline", b)):
        n = max(s.served, 1)
        out[f"{name}_instructions_per_move"] = round(s.instructions / n)
        out[f"{name}_idle_instructions_per_second"] = round(s.idle_rate)
        out[f"{name}_marginal_instructions_per_move"] = round(
            max(0.0, s.instructions - s.idle_rate * s.seconds) / n
        )
    out["instructions_ratio"] = round(
        out["server_instructions_per_move"] / max(out["baseline_instructions_per_move"], 1), 2
    )
    out["marginal_instructions_ratio"] = round(
        out["server_marginal_instructions_per_move"]
        / max(out["baseline_marginal_instructions_per_move"], 1),
        2,
    )
    return out


def summary(
    args: argparse.Namespace,
    m: Stats,
    b: Stats,
    client_cpu: float,
    rss: list[float],
    idle_rss: list[float],
    playing: int,
) -> dict[str, Any]:
    served, base_served = max(m.served, 1), max(b.served, 1)
    p99, base_p99 = pct(m.latencies, 0.99), pct(b.latencies, 0.99)
    cpu_us, base_cpu_us = m.cpu / served * 1e6, b.cpu / base_served * 1e6
    print(
        f"server: {m.served}/{m.offered} moves served in {m.seconds:.1f}s "
        f"({dict(m.kinds)}), failures {dict(m.errors)}, gaps {m.gaps}, duplicates "
        f"{m.dups}",
        flush=True,
    )
    print(
        f"server CPU {cpu_us:.0f} us/move ({m.cpu_kernel / served * 1e6:.0f} in the "
        f"kernel), Redis CPU {m.redis_cpu / served * 1e6:.0f} "
        f"us/move, Redis commands/move {m.commands / served:.2f}: "
        f"{ {k: round(v / served, 2) for k, v in m.calls.most_common(12) if v > 0} }; "
        f"system calls/move {m.read_calls / served:.2f} reads, "
        f"{m.write_calls / served:.2f} writes",
        flush=True,
    )
    print(
        f"baseline: {b.served}/{b.offered} moves, failures {dict(b.errors)}, p50 "
        f"{pct(b.latencies, 0.5):.2f} ms, p99 {base_p99:.2f} ms, CPU {base_cpu_us:.0f} "
        f"us/move ({b.cpu_kernel / base_served * 1e6:.0f} in the kernel), Redis CPU "
        f"{b.redis_cpu / base_served * 1e6:.0f} us/move; system calls/move "
        f"{b.read_calls / base_served:.2f} reads, {b.write_calls / base_served:.2f} writes",
        flush=True,
    )
    elapsed = m.seconds + b.seconds
    client_us, base_client_us = m.client_cpu / served * 1e6, b.client_cpu / base_served * 1e6
    print(
        f"client CPU {client_cpu:.2f}s ({client_cpu / max(elapsed, 1e-9):.0%} of a core); "
        f"per move {client_us:.0f} us in the server's windows, {base_client_us:.0f} us in "
        f"the baseline's; load average {os.getloadavg()[0]:.2f}; RSS per process {rss}",
        flush=True,
    )
    past_p99 = max(sum(x > p99 for x in m.latencies), 1)
    print(
        "server latency by move (count, p50, p99 ms, share of the moves past the p99): "
        + "; ".join(
            f"{kind} {len(ms)}, {pct(ms, 0.5):.2f}, {pct(ms, 0.99):.2f}, "
            f"{sum(x > p99 for x in ms) / past_p99:.0%}"
            for kind, ms in sorted(m.by_kind.items(), key=lambda item: -len(item[1]))
        ),
        flush=True,
    )
    busy, base_busy = m.machine_busy / max(m.seconds, 1e-9), b.machine_busy / max(b.seconds, 1e-9)
    steal = (m.machine_steal + b.machine_steal) / max(elapsed * (os.cpu_count() or 1), 1e-9)
    print(
        f"p99 by window (ms): server {[round(x, 1) for x in m.window_p99]} (collector "
        f"pauses, ms: {[(n, round(ms, 1)) for n, ms in m.window_gc]}), baseline "
        f"{[round(x, 1) for x in b.window_p99]}; machine busy {busy:.2f} of "
        f"{os.cpu_count()} cores in the server's windows, {base_busy:.2f} in the "
        f"baseline's; stolen {steal:.1%}",
        flush=True,
    )
    wait = {
        name: round(getattr(x, attr) / max(x.seconds, 1e-9) * 1000)
        for name, x, attr in (
            ("server", m, "runqueue"),
            ("redis", m, "redis_runqueue"),
            ("baseline", b, "runqueue"),
            ("baseline_redis", b, "redis_runqueue"),
        )
    }
    print(
        f"waiting for a CPU (ms per second of window): a server process {wait['server']}, "
        f"Redis {wait['redis']} in the server's windows; {wait['baseline']} and "
        f"{wait['baseline_redis']} in the baseline's",
        flush=True,
    )
    gc_count = int(m.gc["count"])
    print(
        f"servers' collector in their windows: {gc_count} pauses, "
        f"{m.gc['seconds'] * 1000:.1f} ms in all, "
        f"{gc_count - int(m.gc['upto_5ms'])} over 5 ms, "
        f"{gc_count - int(m.gc['upto_10ms'])} over 10 ms; by generation "
        + ", ".join(
            f"{g}: {int(m.gc[f'count{g}'])} ({m.gc[f'seconds{g}'] * 1000:.1f} ms)" for g in range(3)
        ),
        flush=True,
    )
    print(f"servers' stages in their windows: {stage_line(m.gc)}", flush=True)
    return {
        "tables": playing,
        "tables_offered": args.tables,
        "tables_refused": args.tables - playing,
        "max_tables_per_process": args.max_tables_per_process,
        "max_loop_lag_ms": args.max_loop_lag_ms,
        "max_cpu_demand": args.max_cpu_demand,
        "ramp_seconds": args.ramp_seconds,
        "processes": args.processes,
        "layout": args.layout,
        "ws": args.ws,
        "client": args.client,
        "hand_size": args.hand_size,
        "moves_per_s": round(m.served / max(m.seconds, 1e-9), 1),
        "p50_ms": round(pct(m.latencies, 0.5), 2),
        "p99_ms": round(p99, 2),
        "served_ratio": round(m.served / max(m.offered, 1), 4),
        "redis_round_trips_per_move": round(round_trips(m.calls) / served, 2),
        "redis_commands_per_move": round(m.commands / served, 2),
        "baseline_p99_ms": round(base_p99, 2),
        "baseline_errors": sum(b.errors.values()),
        "overhead_ratio": round(p99 / max(base_p99, 1e-9), 2),
        "server_cpu_us_per_move": round(cpu_us),
        "baseline_cpu_us_per_move": round(base_cpu_us),
        "cpu_ratio": round(cpu_us / max(base_cpu_us, 1e-9), 2),
        "server_kernel_cpu_us_per_move": round(m.cpu_kernel / served * 1e6),
        "baseline_kernel_cpu_us_per_move": round(b.cpu_kernel / base_served * 1e6),
        # read and write system calls a move (0 where /proc/PID/io cannot be read)
        "server_read_calls_per_move": round(m.read_calls / served, 2),
        "server_write_calls_per_move": round(m.write_calls / served, 2),
        "baseline_read_calls_per_move": round(b.read_calls / base_served, 2),
        "baseline_write_calls_per_move": round(b.write_calls / base_served, 2),
        "redis_cpu_us_per_move": round(m.redis_cpu / served * 1e6),
        "baseline_redis_cpu_us_per_move": round(b.redis_cpu / base_served * 1e6),
        "rss_mib_per_process": round(sum(rss) / max(len(rss), 1), 1),
        "idle_rss_mib_per_process": round(sum(idle_rss) / max(len(idle_rss), 1), 1),
        # what the tables add to a process, over the process before them: the issue's
        # "KiB per table per process" (RSS grown while playing / tables)
        "kib_per_table_per_process": round(
            (sum(rss) - sum(idle_rss)) * 1024 / max(len(rss), 1) / max(playing, 1), 1
        ),
        "lost": m.gaps,
        "duplicated": m.dups,
        "failures": sum(m.errors.values()),
        "client_cpu_share": round(client_cpu / max(elapsed, 1e-9), 2),
        "client_cpu_us_per_move": round(client_us),
        "baseline_client_cpu_us_per_move": round(base_client_us),
        "load_average": round(os.getloadavg()[0], 2),
        "p99_ms_windows": [round(x, 2) for x in m.window_p99],
        "baseline_p99_ms_windows": [round(x, 2) for x in b.window_p99],
        "server_gc_pauses_windows": [[n, round(ms, 1)] for n, ms in m.window_gc],
        "machine_busy_cores": round(busy, 2),
        "baseline_machine_busy_cores": round(base_busy, 2),
        "steal_share": round(steal, 4),
        "server_runqueue_ms_per_s": wait["server"],
        "redis_runqueue_ms_per_s": wait["redis"],
        "baseline_runqueue_ms_per_s": wait["baseline"],
        "baseline_redis_runqueue_ms_per_s": wait["baseline_redis"],
        "server_gc_pauses": gc_count,
        "server_stages": stage_shares(m.gc),
        "server_gc_pause_ms": round(m.gc["seconds"] * 1000, 1),
        "server_gc_pauses_over_5ms": gc_count - int(m.gc["upto_5ms"]),
        "server_gc_pauses_over_10ms": gc_count - int(m.gc["upto_10ms"]),
        "server_gc_pauses_by_generation": [int(m.gc[f"count{g}"]) for g in range(3)],
        **(instruction_figures(m, b) if CALLGRIND else {}),
        **RAMP,
    }
