"""A stand-in for ``app.tournaments.scoring.victory_points`` (FIBUR's table), with the
same signature, until that module is in place: the Match Point difference per hand,
in bands of 30, moves one Victory Point a band from 10-10, up to 20-0.
"""

from __future__ import annotations

BAND = 30  # Match Points per hand per Victory Point


def victory_points(a_points: int, b_points: int, hands: int) -> tuple[int, int]:
    diff = a_points - b_points
    steps = min(10, abs(diff) // (BAND * max(hands, 1)))
    if diff == 0 or steps == 0:
        return (10, 10) if diff == 0 else ((11, 9) if diff > 0 else (9, 11))
    return (10 + steps, 10 - steps) if diff > 0 else (10 - steps, 10 + steps)
