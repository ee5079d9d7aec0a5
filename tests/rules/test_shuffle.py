"""The shuffle is uniform (DESIGN.md "Trust"): a chi-square test of card against position
over many deals passes for ``deal.shuffled_deck`` and fails deliberately broken shuffles.

The table counts, for each of the 53 distinct cards (52 faces, joker) and each of the 108
positions, how often that card landed there. The deal is a permutation, so both margins
of the table are fixed in every deal; summing N independent permutation tables, Pearson's
statistic is distributed as n/(n-1) times chi-square with (r-1)(c-1) degrees of freedom
(n = 108 cards per deal), which is why the statistic is scaled by (n-1)/n below. The
critical values come from the Wilson-Hilferty approximation (no scipy), and the test is
two-sided: a "shuffle" too regular to be random (a rotation) fails it too.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from math import sqrt
from statistics import NormalDist

import pytest

from app.rules import deal as deal_module
from app.rules.cards import full_deck
from app.rules.deal import deal_from_deck, random_deal, shuffled_deck
from app.rules.ruleset import make_ruleset

DEALS = 20_000
P_VALUE = 0.001
RULES_108 = make_ruleset("cerrado", 2)
RULES_104 = make_ruleset("abierto", 2)

Shuffler = Callable[[int], list[int]]  # deal number -> a shuffled deck


def chi2_quantile(df: int, q: float) -> float:
    """The q-quantile of chi-square with ``df`` degrees of freedom (Wilson-Hilferty)."""
    z = NormalDist().inv_cdf(q)
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + z * sqrt(h)) ** 3


def chi2_statistic(shuffle: Shuffler, deals: int, jokers: int) -> tuple[float, int]:
    """(scaled Pearson statistic, degrees of freedom) of card value against position."""
    deck = full_deck(jokers)
    n = len(deck)
    values = sorted(set(deck))
    index = {c: i for i, c in enumerate(values)}
    counts = [0] * (len(values) * n)
    for d in range(deals):
        shuffled = shuffle(d)
        assert len(shuffled) == n
        for pos, card in enumerate(shuffled):
            counts[index[card] * n + pos] += 1
    stat = 0.0
    for v, card in enumerate(values):
        expected = deals * deck.count(card) / n
        assert expected >= 5, "bins too thin for the chi-square approximation"
        row = counts[v * n : (v + 1) * n]
        stat += sum((o - expected) ** 2 for o in row) / expected
    df = (len(values) - 1) * (n - 1)
    return stat * (n - 1) / n, df


def uniform(stat: float, df: int, p: float = P_VALUE) -> bool:
    """Does the statistic fall inside the two-sided acceptance region at level ``p``?"""
    return chi2_quantile(df, p / 2) < stat < chi2_quantile(df, 1 - p / 2)


# ---------------------------------------------------------------- the approximation


def test_wilson_hilferty_matches_known_quantiles() -> None:
    # chi-square tables: 0.999 quantiles 29.588 (df 10), 149.449 (df 100), 1143.92 (df
    # 1000); 0.99 of df 1000 is 1106.97; 0.001 of df 100 is 61.918
    assert chi2_quantile(10, 0.999) == pytest.approx(29.588, rel=0.01)
    assert chi2_quantile(100, 0.999) == pytest.approx(149.449, rel=0.002)
    assert chi2_quantile(1000, 0.999) == pytest.approx(1143.92, rel=0.001)
    assert chi2_quantile(1000, 0.99) == pytest.approx(1106.97, rel=0.001)
    assert chi2_quantile(100, 0.001) == pytest.approx(61.918, rel=0.01)


# ---------------------------------------------------------------- the real shuffle


def test_real_shuffle_is_uniform_108() -> None:
    rng = random.Random(20_250_101)
    stat, df = chi2_statistic(lambda _: shuffled_deck(RULES_108, rng), DEALS, 4)
    assert df == 52 * 107
    assert uniform(stat, df), (
        stat,
        chi2_quantile(df, P_VALUE / 2),
        chi2_quantile(df, 1 - P_VALUE / 2),
    )


def test_real_shuffle_is_uniform_104() -> None:
    rng = random.Random(7)
    stat, df = chi2_statistic(lambda _: shuffled_deck(RULES_104, rng), 5_000, 0)
    assert df == 51 * 103
    assert uniform(stat, df), stat


def test_system_random_shuffle_is_uniform() -> None:
    """The source the table service uses; not reproducible, so a stricter level keeps
    this from failing by chance (about one run in a million)."""
    rng = secrets.SystemRandom()
    stat, df = chi2_statistic(lambda _: shuffled_deck(RULES_108, rng), 3_000, 4)
    assert uniform(stat, df, p=1e-6), stat


def test_default_source_is_system_random(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an explicit rng the deck is shuffled from ``secrets.SystemRandom``."""
    made: list[object] = []

    class Recording(random.SystemRandom):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(deal_module.secrets, "SystemRandom", Recording)
    deck = shuffled_deck(RULES_108)
    assert len(made) == 1
    assert sorted(deck) == list(full_deck(4))
    deal = random_deal(RULES_104)
    assert len(made) == 2
    assert len(deal.stock) == 104 - 2 * 11 - 2 * 11


def test_random_deal_is_the_shuffled_deck_cut() -> None:
    for seed in range(5):
        expected = deal_from_deck(RULES_108, shuffled_deck(RULES_108, random.Random(seed)), 1)
        assert random_deal(RULES_108, 1, random.Random(seed)) == expected
    deal = random_deal(make_ruleset("cerrado", 4), 2, random.Random(3))
    dealt = [c for h in deal.hands for c in h] + [c for m in deal.muertos for c in m]
    assert sorted(dealt + list(deal.stock)) == list(full_deck(4))
    assert [len(h) for h in deal.hands] == [11] * 4 and [len(m) for m in deal.muertos] == [11] * 2
    assert deal.first == 2 and deal.discard == ()


# ---------------------------------------------------------------- broken shuffles fail


def naive_shuffle(rng: random.Random) -> Shuffler:
    """The classic mistake: swap every position with ANY position (n^n outcomes, which
    n! does not divide, so some orders come up more often)."""

    def shuffle(_: int) -> list[int]:
        deck = list(full_deck(4))
        n = len(deck)
        for i in range(n):
            j = rng.randrange(n)
            deck[i], deck[j] = deck[j], deck[i]
        return deck

    return shuffle


def sticky_last_shuffle(rng: random.Random) -> Shuffler:
    """Fisher-Yates, except that one deal in 20 leaves the last card where it was."""

    def shuffle(_: int) -> list[int]:
        deck = list(full_deck(4))
        top = len(deck) - (2 if rng.randrange(20) == 0 else 1)
        for i in range(top, 0, -1):
            j = rng.randrange(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        return deck

    return shuffle


def rotation_shuffle(_rng: random.Random) -> Shuffler:
    """Too regular: deal d is the sorted deck rotated by d. Every card visits every
    position equally often, so the counts are flatter than chance allows."""
    base = list(full_deck(4))

    def shuffle(d: int) -> list[int]:
        k = d % len(base)
        return base[k:] + base[:k]

    return shuffle


@pytest.mark.parametrize("broken", [naive_shuffle, sticky_last_shuffle, rotation_shuffle])
def test_biased_shuffles_fail(broken: Callable[[random.Random], Shuffler]) -> None:
    stat, df = chi2_statistic(broken(random.Random(20_250_101)), DEALS, 4)
    assert not uniform(stat, df), (broken.__name__, stat)
