"""The bots' ladder: ``python benchmarks/bots_ladder.py [--hands N] [--jobs J]``.

Duplicate matches, so that the luck of the deal cancels: every seeded deal is played
several times with the same cards, the two sides' seats swapped between plays.

- 2 players: side A in seat 0 and B in seat 1, then the other way round.
- 4 players in pairs: A is a pair of bots against a pair of B, then the pairs swap seats.
- 3 or 4 individual players (brasil): every rotation, A in one seat and B in all the
  others; A's points over the rotations are set against the average B seat's.

A deal counts 1 for A when A's side scored more hand points than B's over its plays, 0.5
for a tie (the share of deals A "won"). Two match-ups per row: strong against GreedyBot
(``strong_vs_greedy``) and GreedyBot (normal) against easy (``normal_vs_easy``), with the
strong bot's CPU time per decision (every decision it makes, the cheap ones included;
``--budget`` is its time cap, the live tables' setting). The last line is one JSON
object: ``{"preset": {"players": {"strong_vs_greedy", "normal_vs_easy",
"strong_ms_per_decision_p99", "hands"}}}`` (``hands``: duplicate deals per row).

Targets (issue 13): strong_vs_greedy >= 0.60 in every row, normal_vs_easy >= 0.60,
strong p99 <= 100 ms, over at least 200 duplicate deals per row. Before the table it
also plays ``--loop-hands`` seeded GreedyBot hands per row (all seats GreedyBot) and
counts those that reach the engine's turn cap (the no-loop target: 0).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app import native  # noqa: E402
from app.rules import commands as C  # noqa: E402
from app.rules.bots import Bot  # noqa: E402
from app.rules.deal import random_deal  # noqa: E402
from app.rules.engine import apply  # noqa: E402
from app.rules.greedy import GreedyBot  # noqa: E402
from app.rules.levels import make_bot  # noqa: E402
from app.rules.ruleset import PRESET_PLAYERS, PRESETS, RuleSet, make_ruleset  # noqa: E402
from app.rules.search import (  # noqa: E402
    BUDGET,
    DISCARDS,
    FOUR,
    HORIZON,
    SAMPLES,
    StrongBot,
    wants_events,
)
from app.rules.state import DRAW, MAX_TURNS, PLAY, State, initial_state  # noqa: E402


def layouts(rules: RuleSet) -> list[tuple[list[bool], list[int]]]:
    """Each play of a deal: which seats side A holds, and the teams of A then B."""
    n = rules.players
    if n == 2 or rules.pairs:
        out = []
        for a_team in (0, 1):
            seats = [rules.team_of(s) == a_team for s in range(n)]
            out.append((seats, [a_team, 1 - a_team]))
        return out
    return [([s == r for s in range(n)], [r]) for r in range(n)]


def play(state: State, bots: list[Bot], times: list[float] | None) -> State:
    # With three or four players a strong bot is told every event of the table, as the
    # live tables tell it (app/tables/play/botplay.py); it reads only their public parts.
    told = [
        (s, b) for s, b in enumerate(bots) if isinstance(b, StrongBot) and wants_events(state.rules)
    ]
    for _, bot in told:
        bot.known.start(state)
    while state.phase in (DRAW, PLAY):
        seat = state.turn
        bot = bots[seat]
        if times is not None and isinstance(bot, StrongBot):
            t0 = time.process_time()
            cmd = bot.choose(state, seat)
            times.append(time.process_time() - t0)
        else:
            cmd = bot.choose(state, seat)
        events, state = apply(state, seat, cmd)
        for s, b in told:
            for event in events:
                b.known.see(event, s, state.rules)
    return state


class Strong:
    """The strong bot's settings for this run (``--budget``, ``--samples``, ``--horizon``)."""

    budget = BUDGET
    samples = SAMPLES
    horizon = HORIZON
    discards = DISCARDS


def duplicate(
    rules: RuleSet,
    deal_no: int,
    a: str,
    b: str,
    times: list[float] | None,
) -> float:
    """Side A's result on deal ``deal_no``: 1 (more points than B), 0.5 or 0."""
    n = rules.players
    seed = 104_729 * deal_no + 11
    deal = random_deal(rules, first=deal_no % n, rng=random.Random(seed))
    start = apply(initial_state(rules), C.SYSTEM, deal)[1]
    a_points = b_points = 0.0
    for k, (is_a, a_teams) in enumerate(layouts(rules)):
        bots = [
            make_bot(a if is_a[s] else b, seed * 8 + s + k, time.process_time) for s in range(n)
        ]
        for bot in bots:
            if isinstance(bot, StrongBot):
                bot.budget, bot.samples, bot.horizon = Strong.budget, Strong.samples, Strong.horizon
                bot.discards = Strong.discards
        scores = play(start, bots, times).hand_scores
        if n == 2 or rules.pairs:
            a_points += scores[a_teams[0]]
            b_points += scores[a_teams[1]]
        else:
            seat = a_teams[0]
            a_points += scores[seat]
            b_points += sum(scores[t] for t in range(n) if t != seat) / (n - 1)
    return 1.0 if a_points > b_points else 0.5 if a_points == b_points else 0.0


def run_part(
    args: tuple[str, int, int, int, tuple[float, int, int, int]],
) -> tuple[float, float, list[float]]:
    preset, players, lo, hi, settings = args
    Strong.budget, Strong.samples, Strong.horizon, Strong.discards = settings
    rules = make_ruleset(preset, players)
    strong = normal = 0.0
    times: list[float] = []
    for deal_no in range(lo, hi):
        strong += duplicate(rules, deal_no, "strong", "normal", times)
        normal += duplicate(rules, deal_no, "normal", "easy", None)
    return strong, normal, times


def capped_hands(args: tuple[str, int, int]) -> int:
    """Seeded GreedyBot hands (all seats) of one row that reach the turn cap."""
    preset, players, hands = args
    rules = make_ruleset(preset, players)
    capped = 0
    for hand in range(hands):
        deal = random_deal(rules, first=hand % players, rng=random.Random(7919 * hand + 17))
        state = apply(initial_state(rules), C.SYSTEM, deal)[1]
        capped += play(state, [GreedyBot() for _ in range(players)], None).turns >= MAX_TURNS
    return capped


def p99(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200, help="duplicate deals per row")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--preset", action="append", help="only these presets")
    parser.add_argument("--players", type=int, action="append", help="only these counts")
    parser.add_argument(
        "--budget", type=float, default=BUDGET, help="the strong bot's CPU seconds per decision"
    )
    parser.add_argument(
        "--loop-hands",
        type=int,
        default=200,
        help="GreedyBot self-play hands per row checked for the turn cap",
    )
    parser.add_argument(
        "--samples", type=int, default=SAMPLES, help="its worlds at most (x FOUR with four players)"
    )
    parser.add_argument("--horizon", type=int, default=HORIZON, help="its rollout turns")
    parser.add_argument(
        "--discards", type=int, default=DISCARDS, help="its discard candidates at most"
    )
    args = parser.parse_args(argv)
    rows = [
        (p, n)
        for p in (args.preset or list(PRESETS))
        for n in PRESET_PLAYERS[p]
        if not args.players or n in args.players
    ]
    chunks = max(1, args.jobs) * 3
    result: dict[str, dict[str, dict[str, float]]] = {}
    print(
        f"bots ladder: {args.hands} duplicate deals per row; strong bot: budget "
        f"{args.budget * 1000:.0f} ms, {args.samples} worlds ({args.samples * FOUR} with four "
        f"players), {args.horizon} turns, "
        f"{args.discards} discards; "
        f"{native.describe()}"
    )
    print(
        f"{'preset':<14}{'pl':>3}{'strong/greedy':>15}{'normal/easy':>13}"
        f"{'p99 ms':>8}{'mean ms':>9}{'secs':>7}"
    )
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        capped = sum(pool.map(capped_hands, [(p, n, args.loop_hands) for p, n in rows]))
        print(
            f"GreedyBot self-play: {capped} of {args.loop_hands * len(rows)} seeded hands "
            f"({args.loop_hands} per row) at the {MAX_TURNS}-turn cap",
            flush=True,
        )
        for preset, players in rows:
            t0 = time.perf_counter()
            bounds = [args.hands * i // chunks for i in range(chunks + 1)]
            strong_settings = (args.budget, args.samples, args.horizon, args.discards)
            parts = [
                (preset, players, lo, hi, strong_settings)
                for lo, hi in zip(bounds, bounds[1:], strict=False)
                if hi > lo
            ]
            strong = normal = 0.0
            times: list[float] = []
            for s, n, t in pool.map(run_part, parts):
                strong += s
                normal += n
                times += t
            row = {
                "strong_vs_greedy": round(strong / args.hands, 4),
                "normal_vs_easy": round(normal / args.hands, 4),
                "strong_ms_per_decision_p99": round(p99(times) * 1000, 2),
                "hands": args.hands,
            }
            mean = sum(times) / len(times) * 1000 if times else 0.0
            print(
                f"{preset:<14}{players:>3}{row['strong_vs_greedy']:>15.3f}"
                f"{row['normal_vs_easy']:>13.3f}{row['strong_ms_per_decision_p99']:>8.1f}"
                f"{mean:>9.2f}{time.perf_counter() - t0:>7.1f}",
                flush=True,
            )
            result.setdefault(preset, {})[str(players)] = row
    print(json.dumps(result, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
