"""The seeded deal of docs/fairness.md: its worked example, byte for byte, the unbiased
integers, the cut and who cuts."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest

from app.rules import fairdeal
from app.rules.cards import NAME, full_deck
from app.rules.ruleset import PRESETS

SEED = bytes(range(32)).hex()  # 000102...1f: the worked example of docs/fairness.md
CLIENT = ["", "ana"]


def names(cards: list[int] | tuple[int, ...]) -> list[str]:
    return [NAME[c] for c in cards]


def test_the_worked_example_of_the_fairness_page() -> None:
    assert fairdeal.commitment(SEED) == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    )
    block0 = hmac.new(bytes(range(32)), b"buraco-deal-v1|,ana|0", hashlib.sha256).hexdigest()
    assert block0.startswith("54d18e22")
    stream = fairdeal.Stream(SEED, CLIENT)
    assert stream.prefix == b"buraco-deal-v1|,ana|"
    # 0x54d18e22 = 1423019554, below the limit 4294967256 for n = 108: 1423019554 % 108
    assert 0x54D18E22 % 108 == 106
    assert stream.below(108) == 106
    rules = PRESETS["burraco"]
    deck = fairdeal.shuffled(rules, SEED, CLIENT)
    assert names(deck[:8]) == ["10D", "9D", "5S", "3S", "JD", "2C", "AD", "JS"]
    assert sorted(deck) == list(full_deck(rules.jokers))
    cut = fairdeal.cut_deck(deck, 30)
    assert cut == deck[30:] + deck[:30]
    assert names(cut[:5]) == ["AC", "JK", "8D", "3C", "10S"]
    deal = fairdeal.derive_deal(rules, SEED, CLIENT, 30, first=1)
    assert names(deal.hands[0]) == names(cut[:11])
    assert names(deal.hands[1]) == names(cut[11:22])
    assert deal.muertos == (tuple(cut[22:33]), tuple(cut[33:44]))
    assert names(deal.stock[:3]) == ["5C", "2D", "5D"] and len(deal.stock) == 64
    assert fairdeal.dealer_of(1, 2) == 0 and fairdeal.cutter_of(1, 2) == 1


def test_client_seeds_change_the_deck_and_absent_ones_are_empty() -> None:
    rules = PRESETS["burraco"]
    base = fairdeal.shuffled(rules, SEED, [None, None])
    assert base == fairdeal.shuffled(rules, SEED, ["", ""])
    assert base != fairdeal.shuffled(rules, SEED, ["x", None])
    assert fairdeal.shuffled(rules, SEED, ["x", None]) != fairdeal.shuffled(
        rules, SEED, [None, "x"]
    )


def test_rejection_sampling_skips_words_above_the_limit() -> None:
    """With n = 2**31 + 1 the limit is n itself: about half the words are thrown away,
    and each value is the first word below it, read off the HMAC blocks by hand."""
    n = 2**31 + 1
    assert 2**32 - 2**32 % n == n
    key = bytes(range(32))
    raw = b"".join(
        hmac.new(key, f"buraco-deal-v1|,ana|{i}".encode(), hashlib.sha256).digest()
        for i in range(8)
    )
    words = [int.from_bytes(raw[i : i + 4], "big") for i in range(0, len(raw), 4)]
    kept = [w % n for w in words if w < n]
    assert len(kept) < len(words)  # some were thrown away
    stream = fairdeal.Stream(SEED, CLIENT)
    assert [stream.below(n) for _ in range(len(kept))] == kept


def test_the_stream_reads_eight_words_a_block() -> None:
    stream = fairdeal.Stream(SEED, CLIENT)
    words = [stream._word() for _ in range(9)]
    key = bytes(range(32))
    b0 = hmac.new(key, b"buraco-deal-v1|,ana|0", hashlib.sha256).digest()
    b1 = hmac.new(key, b"buraco-deal-v1|,ana|1", hashlib.sha256).digest()
    expected = [int.from_bytes(b0[i : i + 4], "big") for i in range(0, 32, 4)]
    assert words == [*expected, int.from_bytes(b1[:4], "big")]


def test_the_shuffle_is_roughly_uniform() -> None:
    """The top card over 2000 seeds: each of the 54 kinds near its share (2 in 108)."""
    rules = PRESETS["burraco"]
    tops = Counter(
        fairdeal.shuffled(rules, hashlib.sha256(str(i).encode()).hexdigest(), [])[0]
        for i in range(2000)
    )
    for card in range(52):
        assert 10 <= tops[card] <= 70, (NAME[card], tops[card])


@pytest.mark.parametrize("position", [3, 105, -1, 200])
def test_cuts_outside_the_range_are_refused(position: int) -> None:
    deck = list(range(108))
    assert fairdeal.cut_range(108) == (4, 104)
    with pytest.raises(ValueError):
        fairdeal.cut_deck(deck, position)


@pytest.mark.parametrize(("position", "top"), [(4, 4), (104, 104), (50, 50)])
def test_a_cut_puts_the_top_packet_under(position: int, top: int) -> None:
    deck = list(range(108))
    cut = fairdeal.cut_deck(deck, position)
    assert cut[0] == top and cut[-1] == position - 1 and sorted(cut) == deck


@pytest.mark.parametrize(
    ("first", "players", "dealer", "cutter"),
    [(0, 2, 1, 0), (1, 2, 0, 1), (0, 4, 3, 2), (2, 4, 1, 0), (0, 3, 2, 1), (1, 3, 0, 2)],
)
def test_the_dealer_and_the_cutter(first: int, players: int, dealer: int, cutter: int) -> None:
    assert fairdeal.dealer_of(first, players) == dealer
    assert fairdeal.cutter_of(first, players) == cutter


def test_bad_seeds_are_refused() -> None:
    with pytest.raises(ValueError):
        fairdeal.commitment("abcd")
    assert fairdeal.valid_client_seed("ana_01-x")
    for bad in ["", "a,b", "a|b", "x" * 65, "ñ"]:
        assert not fairdeal.valid_client_seed(bad)
