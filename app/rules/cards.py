"""Cards as small ints (docs/rules-reference.md, "Cards").

A card is ``suit * 13 + rank - 1`` for ranks 1 (ace) .. 13 (king) and suits S H D C
(0..3); the joker is 52. Hands are sorted tuples of these ints (a multiset). Slots of a
sequence are 1..14: slot 1 is the low ace, 2..13 the ranks, 14 the high ace.
"""

from __future__ import annotations

from collections.abc import Iterable

JOKER = 52
SUITS = "SHDC"
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

RANK: tuple[int, ...] = tuple([c % 13 + 1 for c in range(52)] + [0])
SUIT: tuple[int, ...] = tuple([c // 13 for c in range(52)] + [-1])
NAME: tuple[str, ...] = tuple([RANK_NAMES[c % 13] + SUITS[c // 13] for c in range(52)] + ["JK"])
_PARSE = {name: i for i, name in enumerate(NAME)}
# A 2 or a joker can act as a wild card (the rules reference, "Cards").
WILD_CAPABLE: tuple[bool, ...] = tuple(RANK[c] == 2 or c == JOKER for c in range(53))
TWOS = tuple(s * 13 + 1 for s in range(4))


def parse(name: str) -> int:
    """``"10H"`` -> int; raises ValueError for anything that is not a card."""
    try:
        return _PARSE[name.strip().upper()]
    except (KeyError, AttributeError):
        raise ValueError(f"not a card: {name!r}") from None


def parse_many(names: Iterable[str]) -> tuple[int, ...]:
    return tuple(parse(n) for n in names)


def name(card: int) -> str:
    return NAME[card]


def names(cards: Iterable[int]) -> list[str]:
    return [NAME[c] for c in cards]


def card_at(suit: int, slot: int) -> int:
    """The natural card of ``suit`` standing in sequence ``slot`` (1..14)."""
    return suit * 13 + (0 if slot == 14 else slot - 1)


def slot_name(suit: int, slot: int) -> str:
    return NAME[card_at(suit, slot)]


def full_deck(jokers: int) -> tuple[int, ...]:
    """Two 52-card decks plus ``jokers`` jokers (108 or 104 cards), sorted."""
    return tuple(sorted(list(range(52)) * 2 + [JOKER] * jokers))


def remove_cards(hand: tuple[int, ...], cards: Iterable[int]) -> tuple[int, ...] | None:
    """``hand`` minus the multiset ``cards``, or None when the hand lacks one of them."""
    rest = list(hand)
    for c in cards:
        try:
            rest.remove(c)
        except ValueError:
            return None
    return tuple(rest)


def add_cards(hand: tuple[int, ...], cards: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted((*hand, *cards)))
