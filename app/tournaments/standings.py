"""Standings from finished matches (pure; docs/tournaments.md, "Standings").

Order: Victory Points, then the opponents' Victory Points (the sum of the final VP of
everyone met; a bye is no opponent), then the Match Point difference, then the seed.
A knockout ranks by the round a side went out in (the winner first), then the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from app.tournaments.pairing import BYE_VP


@dataclass(frozen=True, slots=True)
class Result:
    """A finished match: ``b`` None is a bye for ``a``."""

    round_no: int
    a: int
    b: int | None
    mp_a: int = 0
    mp_b: int = 0
    vp_a: int = BYE_VP
    vp_b: int = 0
    winner: int | None = None  # knockout: who went through


@dataclass(slots=True)
class Line:
    side: int
    seed: int
    vp: int = 0
    mp_for: int = 0
    mp_against: int = 0
    played: int = 0
    byes: int = 0
    opponents: list[int] = field(default_factory=list)
    opponents_vp: int = 0
    out_in: int | None = None  # knockout: the round lost (None: still in, or the winner)

    @property
    def mp_diff(self) -> int:
        return self.mp_for - self.mp_against


def lines(seeded: Sequence[int], results: Iterable[Result]) -> dict[int, Line]:
    table = {side: Line(side, seed) for seed, side in enumerate(seeded, start=1)}
    for r in results:
        a = table[r.a]
        if r.b is None:
            a.vp += r.vp_a
            a.byes += 1
            continue
        b = table[r.b]
        a.vp, b.vp = a.vp + r.vp_a, b.vp + r.vp_b
        a.mp_for, a.mp_against = a.mp_for + r.mp_a, a.mp_against + r.mp_b
        b.mp_for, b.mp_against = b.mp_for + r.mp_b, b.mp_against + r.mp_a
        a.played, b.played = a.played + 1, b.played + 1
        a.opponents.append(r.b)
        b.opponents.append(r.a)
        if r.winner is not None:
            loser = r.b if r.winner == r.a else r.a
            table[loser].out_in = r.round_no
    for line in table.values():
        line.opponents_vp = sum(table[o].vp for o in line.opponents)
    return table


def swiss_order(seeded: Sequence[int], results: Iterable[Result]) -> list[Line]:
    table = lines(seeded, results)
    return sorted(table.values(), key=lambda x: (-x.vp, -x.opponents_vp, -x.mp_diff, x.seed))


def knockout_order(seeded: Sequence[int], results: Iterable[Result]) -> list[Line]:
    table = lines(seeded, results)
    last = max((x.out_in or 0 for x in table.values()), default=0) + 1
    return sorted(
        table.values(),
        key=lambda x: (-(x.out_in or last), -x.vp, -x.opponents_vp, -x.mp_diff, x.seed),
    )
