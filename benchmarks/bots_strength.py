"""GreedyBot against RandomBot: ``python benchmarks/bots_strength.py [--hands N] [--jobs J]``.

For every preset and player count it plays N seeded hands (default 1000) and prints the
share GreedyBot wins, judged by ``state.winner`` of the hand:

- 2 players: one GreedyBot against one RandomBot; Greedy takes seat 0 in even hands and
  seat 1 in odd ones (the deal's first seat also moves round).
- 4 players in pairs: a side of two GreedyBots against a side of two RandomBots, the
  sides swapping seats every hand.
- 3 or 4 players individually (brasil): ONE GreedyBot against every other seat played
  by a RandomBot, its seat moving round. The bar is read per opponent: the share of
  (hand, RandomBot) pairs in which Greedy outscores that RandomBot (a tie going to the
  one who played first), i.e. "beats RandomBot" in each head-to-head. The stricter share
  of hands Greedy wins outright (``state.winner``: ahead of every RandomBot at once) is
  printed beside it.

The target (issue 3) is at least 90% in every row. The last line is a JSON object
``{"preset": {"players": win_rate}}``.
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
from app.rules.bots import Bot, RandomBot, play_hand  # noqa: E402
from app.rules.deal import random_deal  # noqa: E402
from app.rules.engine import apply  # noqa: E402
from app.rules.greedy import GreedyBot  # noqa: E402
from app.rules.ruleset import PRESET_PLAYERS, PRESETS, make_ruleset  # noqa: E402
from app.rules.state import initial_state  # noqa: E402


def greedy_seats(preset: str, players: int, hand: int) -> tuple[int, ...]:
    rules = make_ruleset(preset, players)
    if players == 4 and rules.pairs:
        return (hand % 2, hand % 2 + 2)
    return (hand % players,)


def play_one(preset: str, players: int, hand: int) -> tuple[float, bool, int]:
    """Play seeded hand number ``hand``: (share of the RandomBot sides Greedy outscored,
    did Greedy win the hand, turns played)."""
    rules = make_ruleset(preset, players)
    seed = 7919 * hand + 17
    deal = random_deal(rules, first=(hand // players) % players, rng=random.Random(seed))
    state = apply(initial_state(rules), C.SYSTEM, deal)[1]
    greedy = greedy_seats(preset, players, hand)
    rng = random.Random(seed + 1)
    bots: list[Bot] = [GreedyBot() if s in greedy else RandomBot(rng) for s in range(players)]
    final = play_hand(state, bots)
    mine = rules.team_of(greedy[0])
    order = [rules.team_of((final.first + i) % players) for i in range(players)]
    scores = final.hand_scores
    rivals = [t for t in range(rules.teams) if t != mine]
    beaten = sum(
        scores[mine] > scores[t]
        or (scores[mine] == scores[t] and order.index(mine) < order.index(t))
        for t in rivals
    )
    return beaten / len(rivals), final.winner == mine, final.turns


def run_row(args: tuple[str, int, int, int]) -> tuple[float, int, int]:
    preset, players, start, stop = args
    beaten = 0.0
    wins = turns = 0
    for hand in range(start, stop):
        share, won, played = play_one(preset, players, hand)
        beaten += share
        wins += won
        turns += played
    return beaten, wins, turns


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000, help="seeded hands per row")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--preset", action="append", help="only these presets")
    args = parser.parse_args(argv)
    rows = [(p, n) for p in (args.preset or list(PRESETS)) for n in PRESET_PLAYERS[p]]
    chunks = max(1, args.jobs) * 4
    result: dict[str, dict[str, float]] = {}
    print(f"GreedyBot vs RandomBot, {args.hands} seeded hands per row (target >= 90%)")
    print(native.describe())
    print(
        f"{'preset':<14}{'pl':>3}{'greedy wins':>13}{'1st place':>11}{'avg turns':>11}{'secs':>7}"
    )
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for preset, players in rows:
            t0 = time.perf_counter()
            bounds = [args.hands * i // chunks for i in range(chunks + 1)]
            parts = [
                (preset, players, a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a
            ]
            beaten = 0.0
            wins = turns = 0
            for b, w, t in pool.map(run_row, parts):
                beaten += b
                wins += w
                turns += t
            rate = beaten / args.hands
            mark = "" if rate >= 0.9 else "  below target"
            print(
                f"{preset:<14}{players:>3}{rate:>12.1%}{wins / args.hands:>11.1%}"
                f"{turns / args.hands:>11.1f}{time.perf_counter() - t0:>7.1f}{mark}",
                flush=True,
            )
            result.setdefault(preset, {})[str(players)] = round(rate, 4)
    print(json.dumps(result, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
