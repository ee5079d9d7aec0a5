"""Pairings and standings, as pure functions: knockout brackets with byes seeded by
rating, Swiss rounds without repeat opponents where possible, byes at 14 VP."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.tournaments import pairing
from app.tournaments.pairing import BYE_VP
from app.tournaments.scoring import round_victory_points as victory_points
from app.tournaments.standings import Result, knockout_order, swiss_order


def test_bracket_order_keeps_the_top_seeds_apart() -> None:
    assert pairing.bracket_order(2) == [1, 2]
    assert pairing.bracket_order(4) == [1, 4, 2, 3]
    assert pairing.bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]


def test_a_full_bracket_pairs_the_strongest_with_the_weakest() -> None:
    assert pairing.knockout_first_round([11, 12, 13, 14]) == [(11, 14), (12, 13)]


def test_byes_go_to_the_top_seeds() -> None:
    pairs = pairing.knockout_first_round([1, 2, 3, 4, 5, 6])  # bracket of 8: 2 byes
    byes = [a for a, b in pairs if b is None]
    assert byes == [1, 2]
    assert (4, 5) in pairs and (3, 6) in pairs
    assert pairing.knockout_rounds(6) == 3


@given(st.integers(min_value=2, max_value=64))
def test_every_side_plays_or_has_a_bye_exactly_once(n: int) -> None:
    sides = list(range(100, 100 + n))
    pairs = pairing.knockout_first_round(sides)
    seen = [a for a, _ in pairs] + [b for _, b in pairs if b is not None]
    assert sorted(seen) == sides
    assert len(pairs) == pairing.bracket_size(n) // 2
    byes = [a for a, b in pairs if b is None]
    assert len(byes) == pairing.bracket_size(n) - n
    assert sorted(byes) == sides[: len(byes)]  # the strongest
    assert all(b is not None or a in byes for a, b in pairs)


@given(st.integers(min_value=2, max_value=64))
def test_a_knockout_plays_down_to_one_winner_and_seeds_1_and_2_meet_only_in_the_final(
    n: int,
) -> None:
    sides = list(range(n))
    pairs = pairing.knockout_first_round(sides)
    rounds = 1
    while True:
        # the higher seed wins every match: the final must be seeds 0 and 1
        winners = [a if b is None else min(a, b) for a, b in pairs]
        if len(winners) == 1:
            break
        assert not (len(winners) > 2 and any({a, b} == {0, 1} for a, b in pairs))
        pairs = pairing.knockout_next_round(winners)
        rounds += 1
    assert winners == [0]
    assert rounds == pairing.knockout_rounds(n)


def test_knockout_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        pairing.knockout_first_round([1])
    with pytest.raises(ValueError):
        pairing.knockout_first_round([1, 1])
    with pytest.raises(ValueError):
        pairing.knockout_next_round([1, 2, 3])


def test_swiss_first_round_top_half_against_bottom_half() -> None:
    assert pairing.swiss_first_round([1, 2, 3, 4]) == [(1, 3), (2, 4)]
    assert pairing.swiss_first_round([1, 2, 3, 4, 5]) == [(1, 3), (2, 4), (5, None)]


def _play(rnd: random.Random, pairs: list[pairing.Pair], round_no: int) -> list[Result]:
    out = []
    for a, b in pairs:
        if b is None:
            out.append(Result(round_no, a, None))
            continue
        mp_a, mp_b = rnd.randint(0, 3000), rnd.randint(0, 3000)
        vp_a, vp_b = victory_points(mp_a, mp_b, 2)
        out.append(Result(round_no, a, b, mp_a, mp_b, vp_a, vp_b))
    return out


def _swiss(
    n: int, rounds: int, rnd: random.Random
) -> tuple[list[list[pairing.Pair]], list[Result]]:
    seeded = list(range(1, n + 1))
    history: list[list[pairing.Pair]] = []
    results: list[Result] = []
    for r in range(1, rounds + 1):
        if r == 1:
            pairs = pairing.swiss_first_round(seeded)
        else:
            ranked = [line.side for line in swiss_order(seeded, results)]
            met = [(x.a, x.b) for x in results if x.b is not None]
            byes = [x.a for x in results if x.b is None]
            pairs = pairing.swiss_round(ranked, met, byes)
        history.append(pairs)
        results += _play(rnd, pairs, r)
    return history, results


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=2, max_value=40),
    st.integers(min_value=1, max_value=7),
    st.randoms(use_true_random=False),
)
def test_swiss_never_repeats_while_a_round_without_repeats_exists(
    n: int, rounds: int, rnd: random.Random
) -> None:
    # With R <= n/2 (rounded down, at least 1) a pairing without repeats always exists
    # when pairing down from the top with backtracking (complete graph minus a union of
    # fewer than n/2 matchings has a perfect matching).
    rounds = min(rounds, max(1, (n - 1) // 2))
    history, results = _swiss(n, rounds, rnd)
    assert pairing.repeats(history) == 0
    for pairs in history:
        seen = [a for a, _ in pairs] + [b for _, b in pairs if b is not None]
        assert sorted(seen) == list(range(1, n + 1))
        assert sum(b is None for _, b in pairs) == n % 2
    byes = [a for pairs in history for a, b in pairs if b is None]
    assert len(byes) == len(set(byes))  # nobody has two byes while others have none


def test_thirty_two_over_five_rounds_no_repeats() -> None:
    for seed in range(20):
        history, _ = _swiss(32, 5, random.Random(seed))
        assert pairing.repeats(history) == 0


def test_when_repeats_cannot_be_avoided_they_are_as_few_as_possible() -> None:
    # 4 sides, 4 rounds: only 3 rounds without repeats exist; the 4th has 2 repeats
    history, _ = _swiss(4, 4, random.Random(1))
    assert pairing.repeats(history[:3]) == 0
    assert pairing.repeats(history) == 2


def test_a_bye_is_worth_14_vp_and_goes_to_the_lowest_without_one() -> None:
    pairs = pairing.swiss_round([1, 2, 3, 4, 5], [], had_bye=[5])
    assert (4, None) in pairs
    table = swiss_order([1, 2, 3], [Result(1, 3, None), Result(1, 1, 2, 500, 400, 11, 9)])
    assert [(x.side, x.vp) for x in table] == [(3, BYE_VP), (1, 11), (2, 9)]


def test_tie_breaks_vp_then_opponents_vp_then_match_point_difference() -> None:
    seeded = [1, 2, 3, 4, 5, 6]
    results = [
        Result(1, 1, 2, 900, 800, 12, 8),
        Result(1, 3, 4, 1000, 990, 12, 8),
        Result(1, 5, 6, 700, 600, 10, 10),
        Result(2, 2, 6, 100, 0, 15, 5),  # 2 ends on 23, so 1's opponent scored more
        Result(2, 4, 5, 0, 100, 5, 15),
    ]
    order = [x.side for x in swiss_order(seeded, results)]
    # 5: 25 VP, 2: 23, 6: 15, 4: 13; 1 and 3: 12 each, 1 met 2 (23) and 3 met 4 (13).
    assert order == [5, 2, 6, 4, 1, 3]
    same = [Result(1, 1, 2, 900, 800, 12, 8), Result(1, 3, 4, 1000, 990, 12, 8)]
    # 1 and 3 tie on VP and on opponents' VP (8 each): the MP difference decides.
    assert [x.side for x in swiss_order([3, 1, 2, 4], same)][:2] == [1, 3]


def test_knockout_standings_rank_by_the_round_a_side_went_out() -> None:
    seeded = [1, 2, 3, 4]
    results = [
        Result(1, 1, 4, 900, 100, 18, 2, winner=1),
        Result(1, 2, 3, 500, 600, 9, 11, winner=3),
        Result(2, 1, 3, 400, 700, 7, 13, winner=3),
    ]
    assert [x.side for x in knockout_order(seeded, results)] == [3, 1, 2, 4]


def test_victory_points_sum_to_twenty_and_favour_the_winner() -> None:
    # A round of 2 hands (no FIBUR table: the 3-hand bounds scaled): a small margin is
    # a 10-10 draw as in FIBUR's tables, a larger one never gives the loser more.
    last = 0
    for diff in range(-3000, 3001, 5):
        va, vb = victory_points(1000 + diff, 1000, 2)
        assert va + vb == 20 and 0 <= va <= 20
        assert (va >= vb) == (diff >= 0) or va == vb
        assert va >= last
        last = va
    assert victory_points(1000, 1000, 2) == (10, 10)
    assert victory_points(1035, 1000, 2) == (10, 10)
    assert victory_points(1040, 1000, 2) == (11, 9)
    assert victory_points(4000, 0, 2) == (20, 0)
    assert victory_points(0, 4000, 1) == (0, 20)
