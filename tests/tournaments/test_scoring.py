"""FIBUR's Victory Point tables, at every band edge, and the standings order."""

from __future__ import annotations

import random

import pytest

from app.tournaments.scoring import StandingRow, rank_standings, victory_points

# (lowest difference, highest difference, winner's VP) exactly as FIBUR prints them.
THREE_HANDS = [
    (0, 50, 10),
    (55, 150, 11),
    (155, 250, 12),
    (255, 350, 13),
    (355, 500, 14),
    (505, 650, 15),
    (655, 800, 16),
    (805, 1000, 17),
    (1005, 1250, 18),
    (1255, 1500, 19),
]
FOUR_HANDS = [
    (0, 100, 10),
    (105, 300, 11),
    (305, 500, 12),
    (505, 700, 13),
    (705, 900, 14),
    (905, 1100, 15),
    (1105, 1300, 16),
    (1305, 1500, 17),
    (1505, 1700, 18),
    (1705, 2000, 19),
]
EDGES = [
    (hands, low, high, vp)
    for hands, table in ((3, THREE_HANDS), (4, FOUR_HANDS))
    for low, high, vp in table
]


@pytest.mark.parametrize(("hands", "low", "high", "vp"), EDGES)
def test_every_band_edge_both_signs(hands: int, low: int, high: int, vp: int) -> None:
    base = 1200  # the points themselves do not matter, only the difference
    for diff in (low, high):
        assert victory_points(base + diff, base, hands) == (vp, 20 - vp)
        assert victory_points(base, base + diff, hands) == (20 - vp, vp)
    # The first score past the band (a multiple of 5) is one VP more.
    assert victory_points(high + 5, 0, hands) == (vp + 1, 19 - vp)
    assert victory_points(0, high + 5, hands) == (19 - vp, vp + 1)


@pytest.mark.parametrize(("hands", "last"), [(3, 1500), (4, 2000)])
def test_past_the_table_is_twenty_nil(hands: int, last: int) -> None:
    for diff in (last + 5, last + 1, 10_000):
        assert victory_points(diff, 0, hands) == (20, 0)
        assert victory_points(-300, diff - 300, hands) == (0, 20)


def test_differences_off_the_five_grid_use_the_upper_bounds() -> None:
    assert victory_points(52, 0, 3) == (11, 9)
    assert victory_points(50, 0, 3) == (10, 10)
    assert victory_points(0, 51, 3) == (9, 11)
    assert victory_points(151, 0, 3) == (12, 8)
    assert victory_points(101, 0, 4) == (11, 9)
    assert victory_points(-7, -4, 4) == (10, 10)


def test_negative_totals_work_on_the_difference() -> None:
    assert victory_points(-100, -400, 3) == (13, 7)
    assert victory_points(-400, -100, 3) == (7, 13)


def test_always_twenty_and_symmetric() -> None:
    rng = random.Random(33)
    for _ in range(2000):
        a, b, hands = rng.randrange(-3000, 6000), rng.randrange(-3000, 6000), rng.choice((3, 4))
        va, vb = victory_points(a, b, hands)
        assert va + vb == 20 and 0 <= va <= 20
        assert victory_points(b, a, hands) == (vb, va)


@pytest.mark.parametrize("hands", [0, 1, 2, 5, -3])
def test_other_hand_counts_are_refused(hands: int) -> None:
    with pytest.raises(ValueError, match="3 or 4 hands"):
        victory_points(100, 0, hands)


def test_rank_by_vp_first() -> None:
    rows = [
        StandingRow(1, 30, (2, 3), 900),
        StandingRow(2, 31, (1, 3), -50),
        StandingRow(3, 29, (1, 2), 0),
    ]
    assert [r.entrant for r in rank_standings(rows)] == [2, 1, 3]


def test_equal_vp_is_broken_by_the_opponents_vp() -> None:
    # 1 and 2 both have 25 VP; 1 met the strong 3 (35), 2 met the weak 4 (15).
    rows = [
        StandingRow(1, 25, (3,), mp_diff=0),
        StandingRow(2, 25, (4,), mp_diff=800),
        StandingRow(3, 35, (1,), mp_diff=0),
        StandingRow(4, 15, (2,), mp_diff=0),
    ]
    assert [r.entrant for r in rank_standings(rows)] == [3, 1, 2, 4]


def test_equal_vp_and_opponents_vp_is_broken_by_the_match_point_difference() -> None:
    rows = [
        StandingRow("a", 20, ("c",), mp_diff=100),
        StandingRow("b", 20, ("c",), mp_diff=350),
        StandingRow("c", 20, ("a", "b"), mp_diff=-450),
    ]
    assert [r.entrant for r in rank_standings(rows)] == ["c", "b", "a"]


def test_a_full_tie_is_ordered_by_id_whatever_the_input_order() -> None:
    rows = [StandingRow(e, 10, (), 0) for e in (12, 3, 7)] + [StandingRow("x", 10, (), 0)]
    for _ in range(5):
        random.shuffle(rows)
        assert [r.entrant for r in rank_standings(rows)] == [3, 7, 12, "x"]


def test_opponents_counted_per_meeting_and_unknown_opponents_count_zero() -> None:
    # 1 met 3 twice (2 x 12 = 24); 2 met 3 once and a withdrawn entrant 99 (12 + 0).
    rows = [
        StandingRow(1, 18, (3, 3), 0),
        StandingRow(2, 18, (3, 99), 500),
        StandingRow(3, 12, (1, 1, 2), 0),
    ]
    assert [r.entrant for r in rank_standings(rows)] == [1, 2, 3]


def test_a_duplicated_entrant_is_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        rank_standings([StandingRow(1, 10), StandingRow(1, 12)])
