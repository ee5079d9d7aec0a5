"""Victory Points from Match Points (FIBUR's table) and the standings order.

A tournament round is a match of 3 or 4 hands.  The two sides' Match Points
(the running totals at the end of the match) become Victory Points out of 20
by the difference between them:

=========  ===============  ===============
VP (A-B)   3 hands: diff    4 hands: diff
=========  ===============  ===============
10-10      0 - 50           0 - 100
11-9       55 - 150         105 - 300
12-8       155 - 250        305 - 500
13-7       255 - 350        505 - 700
14-6       355 - 500        705 - 900
15-5       505 - 650        905 - 1100
16-4       655 - 800        1105 - 1300
17-3       805 - 1000       1305 - 1500
18-2       1005 - 1250      1505 - 1700
19-1       1255 - 1500      1705 - 2000
20-0       more             more
=========  ===============  ===============

Buraco scores are multiples of 5, so the table's bands leave gaps (50 then
55).  A difference that is not a multiple of 5 (an adjusted score, a penalty)
is placed by the bands' *upper bounds*: a difference of 52 is above 50 and
not above 150, so it is 11-9.  A negative difference mirrors: the side that
scored less gets the larger share.  Only 3- and 4-hand matches have a table;
any other number of hands raises ``ValueError`` rather than inventing one;
``round_victory_points`` is what a tournament round uses: FIBUR's table for 3 and 4
hands, the 3-hand bounds scaled by hands / 3 for any other length.

Standings order (``rank_standings``): most Victory Points first, then the
larger sum of the Victory Points of the opponents met (the strength of the
schedule), then the larger Match Point difference, then the entrant id so
the order is total and repeatable.  ``StandingRow`` is the small record the
standings are built from.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

VP_TOTAL = 20
"""Both sides' Victory Points always add up to this."""

# Upper bound (inclusive) of the difference for 10-10, 11-9, ..., 19-1;
# anything above the last bound is 20-0.
UPPER_BOUNDS: Mapping[int, tuple[int, ...]] = {
    3: (50, 150, 250, 350, 500, 650, 800, 1000, 1250, 1500),
    4: (100, 300, 500, 700, 900, 1100, 1300, 1500, 1700, 2000),
}


def victory_points(a_points: int, b_points: int, hands: int) -> tuple[int, int]:
    """(A's VP, B's VP) for a match that ended ``a_points`` to ``b_points``.

    ``hands`` is the number of hands the match was played over: 3 or 4.
    """
    bounds = UPPER_BOUNDS.get(hands)
    if bounds is None:
        raise ValueError(f"Victory Points are defined for 3 or 4 hands, not {hands}")
    diff = a_points - b_points
    step = bisect_left(bounds, abs(diff))  # 0 for <= 50, 1 for <= 150, ... 10 past the end
    winner = VP_TOTAL // 2 + step
    loser = VP_TOTAL - winner
    return (winner, loser) if diff >= 0 else (loser, winner)


def round_victory_points(a_points: int, b_points: int, hands: int) -> tuple[int, int]:
    """Victory Points for a tournament round of any length: FIBUR's table for 3 and 4
    hands (``victory_points``); for any other number of hands (a Sit & Go may play 1 to
    10) the 3-hand bounds scaled by ``hands / 3``, each rounded to a multiple of 5, so a
    margin weighs the same per hand played as in FIBUR's 3-hand table."""
    if hands in UPPER_BOUNDS:
        return victory_points(a_points, b_points, hands)
    if hands < 1:
        raise ValueError(f"a round is at least one hand, not {hands}")
    bounds = tuple(5 * round(b * hands / 15) for b in UPPER_BOUNDS[3])
    diff = a_points - b_points
    step = bisect_left(bounds, abs(diff))
    winner = VP_TOTAL // 2 + step
    loser = VP_TOTAL - winner
    return (winner, loser) if diff >= 0 else (loser, winner)


EntrantId = int | str
"""A user id (individual events) or a pair's/team's id."""


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One entrant's line in a tournament's standings.

    ``entrant`` is the id of a player (individual events) or of a pair/team;
    ``vp`` the Victory Points added up over the rounds played; ``opponents``
    the entrants met, one item per round (an entrant met twice appears twice;
    a bye is simply absent); ``mp_diff`` the Match Points scored minus the
    Match Points conceded over all rounds.
    """

    entrant: EntrantId
    vp: int
    opponents: Sequence[EntrantId] = field(default_factory=tuple)
    mp_diff: int = 0


def opponents_vp(row: StandingRow, vp_by_entrant: Mapping[EntrantId, int]) -> int:
    """The sum of the Victory Points of the opponents ``row`` met.

    An opponent missing from ``vp_by_entrant`` (withdrawn and dropped from the
    standings) counts 0.
    """
    return sum(vp_by_entrant.get(opponent, 0) for opponent in row.opponents)


def rank_standings(rows: Iterable[StandingRow]) -> list[StandingRow]:
    """The rows best first: VP, then opponents' VP, then Match Point difference.

    Ties that survive all three are ordered by ``entrant`` (numbers before
    strings) so that the result never depends on the input order.
    """
    rows = list(rows)
    vp_by_entrant = {row.entrant: row.vp for row in rows}
    if len(vp_by_entrant) != len(rows):
        raise ValueError("an entrant appears twice in the standings")
    return sorted(
        rows,
        key=lambda row: (
            -row.vp,
            -opponents_vp(row, vp_by_entrant),
            -row.mp_diff,
            _entrant_order(row.entrant),
        ),
    )


def _entrant_order(entrant: EntrantId) -> tuple[int, int, str]:
    """Numbers in numeric order, then strings: a total order over mixed ids."""
    if isinstance(entrant, int):
        return (0, entrant, "")
    return (1, 0, entrant)
