"""Rules engine benchmark: ``python benchmarks/engine.py [--quick] [--hands N] [--pure]``.

It measures the engine as the server runs it: compiled by mypyc when a build of these
sources is in place (``make native``, which ``make run`` and ``make test`` run), the
Python sources otherwise or with ``--pure``. Its second line says which.

Per preset and player count (every player count the preset is offered with) it measures,
in one process on one core:

- GreedyBot full hands per second (every seat a GreedyBot, seeded deals);
- the median and p99 time of ``engine.apply`` (decide + evolve) over every command those
  hands played;
- the median time to compute every seat's view (``views.view_for`` for each seat) right
  after a command, and the median of "apply + every view" together;
- the median time of a state serialize + parse round trip (``state_to_dict``, orjson or
  json dumps and loads, ``state_from_dict``) over states seen during those hands.

Human-readable lines first; the LAST line is one JSON object:
``{"cerrado": {"4": {"greedy_hands_per_s": ..., "apply_median_us": ..., "apply_p99_us": ...,
"views_median_us": ..., "state_roundtrip_us": ...}, ...}, ...}``.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app import native  # noqa: E402

if "--pure" in sys.argv[1:]:  # before anything imports the rules engine
    native.use_sources()

from app.rules import commands as C  # noqa: E402
from app.rules.bots import play_hand  # noqa: E402
from app.rules.deal import random_deal  # noqa: E402
from app.rules.engine import apply  # noqa: E402
from app.rules.greedy import GreedyBot  # noqa: E402
from app.rules.ruleset import PRESET_PLAYERS, PRESETS, make_ruleset  # noqa: E402
from app.rules.serialize import state_from_dict, state_to_dict  # noqa: E402
from app.rules.state import DRAW, PLAY, State, initial_state  # noqa: E402
from app.rules.views import view_for  # noqa: E402

try:
    import orjson

    def _dumps(obj: Any) -> Any:
        return orjson.dumps(obj)

    def _loads(data: Any) -> Any:
        return orjson.loads(data)

    CODEC = "orjson"
except ImportError:  # pragma: no cover - the project pins orjson

    def _dumps(obj: Any) -> Any:
        return json.dumps(obj, separators=(",", ":"))

    def _loads(data: Any) -> Any:
        return json.loads(data)

    CODEC = "json"

NS = 1e-3  # nanoseconds -> microseconds


def dealt(preset: str, players: int, seed: int) -> State:
    rules = make_ruleset(preset, players)
    deal = random_deal(rules, first=seed % players, rng=random.Random(seed))
    return apply(initial_state(rules), C.SYSTEM, deal)[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def bench_hands(preset: str, players: int, hands: int) -> float:
    """GreedyBot full hands per second of CPU time (deals prepared beforehand)."""
    starts = [dealt(preset, players, seed) for seed in range(hands)]
    bots = [GreedyBot() for _ in range(players)]
    t0 = time.process_time()  # CPU time: other processes on the machine do not count
    for state in starts:
        play_hand(state, bots)  # type: ignore[arg-type]
    return hands / (time.process_time() - t0)


def bench_commands(preset: str, players: int, hands: int) -> dict[str, Any]:
    """Replay GreedyBot hands, timing each apply, every seat's view and round trips."""
    perf = time.perf_counter_ns
    apply_ns: list[int] = []
    views_ns: list[int] = []
    both_ns: list[int] = []
    states: list[State] = []
    seats = range(players)
    for seed in range(1000, 1000 + hands):
        state = dealt(preset, players, seed)
        bots = [GreedyBot() for _ in seats]
        steps = 0
        while state.phase in (DRAW, PLAY) and steps < 20_000:
            seat = state.turn
            # a fresh copy of the command: the engine answers the very same command
            # object the bot has just checked from a memo, and we time the real work
            chosen = bots[seat].choose(state, seat)
            cmd = type(chosen)(*chosen)
            t0 = perf()
            state = apply(state, seat, cmd)[1]
            t1 = perf()
            for viewer in seats:
                view_for(state, viewer)
            t2 = perf()
            apply_ns.append(t1 - t0)
            views_ns.append(t2 - t1)
            both_ns.append(t2 - t0)
            if steps % 7 == 0:
                states.append(state)
            steps += 1
    trip_ns: list[int] = []
    for state in states:
        t0 = perf()
        state_from_dict(_loads(_dumps(state_to_dict(state))))
        trip_ns.append(perf() - t0)
    return {
        "apply_median_us": statistics.median(apply_ns) * NS,
        "apply_p99_us": percentile([float(x) for x in apply_ns], 0.99) * NS,
        "views_median_us": statistics.median(views_ns) * NS,
        "apply_views_median_us": statistics.median(both_ns) * NS,
        "state_roundtrip_us": statistics.median(trip_ns) * NS,
        "commands": len(apply_ns),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fast, rougher run")
    parser.add_argument("--hands", type=int, default=0, help="GreedyBot hands per row")
    parser.add_argument("--preset", action="append", help="only these presets")
    parser.add_argument(
        "--pure",
        action="store_true",
        help="run the Python sources even where a compiled build is in place",
    )
    args = parser.parse_args(argv)
    hands = args.hands or (30 if args.quick else 300)
    timed = max(5, hands // 5)
    gc.freeze()  # as the server does after start-up: the deals are long-lived objects
    result: dict[str, dict[str, dict[str, float]]] = {}
    header = (
        f"{'preset':<14}{'pl':>3}{'hands/s':>10}{'apply med':>11}{'apply p99':>11}"
        f"{'views med':>11}{'apply+views':>13}{'roundtrip':>11}"
    )
    print(
        f"rules engine benchmark ({hands} GreedyBot hands per row, {timed} timed in detail,"
        f" {CODEC}; times in microseconds)"
    )
    print(native.describe())
    print(header)
    print("-" * len(header))
    for preset in args.preset or list(PRESETS):
        for players in PRESET_PLAYERS[preset]:
            rate = bench_hands(preset, players, hands)
            figures = bench_commands(preset, players, timed)
            print(
                f"{preset:<14}{players:>3}{rate:>10.0f}{figures['apply_median_us']:>11.1f}"
                f"{figures['apply_p99_us']:>11.1f}{figures['views_median_us']:>11.1f}"
                f"{figures['apply_views_median_us']:>13.1f}"
                f"{figures['state_roundtrip_us']:>11.1f}",
                flush=True,
            )
            result.setdefault(preset, {})[str(players)] = {
                "greedy_hands_per_s": round(rate, 1),
                "apply_median_us": round(figures["apply_median_us"], 2),
                "apply_p99_us": round(figures["apply_p99_us"], 2),
                "views_median_us": round(figures["views_median_us"], 2),
                "state_roundtrip_us": round(figures["state_roundtrip_us"], 2),
            }
    print(
        "targets: >= 300 four-player hands/s; apply + every view < 100 us median;"
        " state round trip < 50 us"
    )
    print(json.dumps(result, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
