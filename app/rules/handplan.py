"""A fast, approximate reading of a hand for GreedyBot: the melds it could lay and the
cards that extend a meld on the table.

``legal.py`` lists *every* possibility (every run window, every sub-group) and checks
each through the engine; a bot only needs the few best ones. Here a hand is indexed
once per decision: 53 card counts, a bitmask of held slots per suit (bit k = slot k,
an ace setting bits 1 and 14) and a count per rank, so finding the runs of a suit is a
few integer operations. The results are proposals: GreedyBot still has the engine
confirm the one it picks, so an approximation here can cost a move's quality, never its
legality.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import JOKER, RANK, SUIT, WILD_CAPABLE, card_at
from .melds import SEQ, Meld
from .ruleset import RuleSet

# SLOT_CARD[suit][slot]: the natural card of each sequence slot 1..14 (0 and 15: none).
SLOT_CARD: tuple[tuple[int, ...], ...] = tuple(
    tuple([-1] + [card_at(suit, slot) for slot in range(1, 15)] + [-1]) for suit in range(4)
)
# The slot bits a natural card sets in its suit's mask (an ace: both ends).
SLOT_BITS: tuple[int, ...] = tuple(
    (1 << 1 | 1 << 14) if RANK[c] == 1 else (1 << RANK[c]) if c < 52 else 0 for c in range(53)
)
TWOS = (1, 14, 27, 40)


class Plan(NamedTuple):
    """A meld to lay (or the cards to play with a card taken from the pile)."""

    score: int  # bigger is better: cards laid, a wild counting as -3
    cards: tuple[int, ...]
    wilds: int  # wild cards from the hand it uses


class Hand:
    """One hand, indexed for quick questions."""

    __slots__ = ("cards", "counts", "masks", "ranks", "wilds")

    def __init__(self, cards: tuple[int, ...] | None = None) -> None:
        if cards is None:
            return  # (``plus`` and ``minus`` fill in a copy's fields themselves)
        counts = [0] * 53
        masks = [0, 0, 0, 0]
        ranks = [0] * 14
        for c in cards:
            counts[c] += 1
            if c < 52:
                masks[SUIT[c]] |= SLOT_BITS[c]
                ranks[RANK[c]] += 1
        self.cards = cards
        self.counts = counts
        self.masks = masks
        self.ranks = ranks
        self.wilds = counts[JOKER] + counts[1] + counts[14] + counts[27] + counts[40]

    def plus(self, card: int, cards: tuple[int, ...] | None = None) -> Hand:
        """This hand with one more card, ``cards`` if given (copies the indexes rather
        than rebuilding them; ``cards`` is else unsorted: nothing here reads its order)."""
        h = Hand()
        h.cards = (*self.cards, card) if cards is None else cards
        counts = self.counts[:]
        counts[card] += 1
        h.counts = counts
        if card < 52:
            masks = self.masks[:]
            masks[SUIT[card]] |= SLOT_BITS[card]
            ranks = self.ranks[:]
            ranks[RANK[card]] += 1
            h.masks = masks
            h.ranks = ranks
        else:  # a joker: the indexes are never changed in place, so they may be shared
            h.masks = self.masks
            h.ranks = self.ranks
        h.wilds = self.wilds + WILD_CAPABLE[card]
        return h

    def minus(self, cards: tuple[int, ...], rest: tuple[int, ...]) -> Hand:
        """This hand without ``cards`` (which it holds): ``rest`` (copies the indexes)."""
        h = Hand()
        h.cards = rest
        counts = self.counts[:]
        masks = self.masks[:]
        ranks = self.ranks[:]
        wilds = self.wilds
        for c in cards:
            counts[c] -= 1
            if c < 52:
                ranks[RANK[c]] -= 1
                if not counts[c]:
                    masks[SUIT[c]] &= ~SLOT_BITS[c]
            if WILD_CAPABLE[c]:
                wilds -= 1
        h.counts = counts
        h.masks = masks
        h.ranks = ranks
        h.wilds = wilds
        return h

    def pick_wild(self, suit: int = -1) -> int:
        """The wild card to spend: a joker first (it costs most if stuck in the hand),
        then a 2 of another suit; the 2 of ``suit`` last (it may be natural there)."""
        counts = self.counts
        if counts[JOKER]:
            return JOKER
        own = -1
        for two in TWOS:
            if counts[two]:
                if SUIT[two] == suit:
                    own = two
                else:
                    return two
        return own


def stretches(mask: int) -> list[tuple[int, int]]:
    """The maximal runs of set bits of ``mask`` as (lo, hi) bit positions."""
    out = []
    while mask:
        low = mask & -mask
        run = mask & ~(mask + low)
        out.append((low.bit_length() - 1, run.bit_length() - 1))
        mask &= ~run
    return out


def _fix_aces(lo: int, hi: int, aces: int, rules: RuleSet) -> tuple[int, int]:
    """A stretch holding both ace slots needs two aces and a rule that allows it."""
    if lo == 1 and hi == 14 and (aces < 2 or rules.ace_to_ace != "allowed"):
        return 2, 14
    return lo, hi


def run_plans(
    h: Hand,
    rules: RuleSet,
    use_wild: bool,
    suits: tuple[int, ...] = (0, 1, 2, 3),
    wild_min: int = 0,
) -> list[Plan]:
    """The natural runs of 3+ cards, and (``use_wild``) runs a wild completes: two
    stretches one slot apart, or a stretch of two with the wild at an end (only those
    of ``wild_min`` cards or more)."""
    out: list[Plan] = []
    use_wild = use_wild and h.wilds > 0
    for suit in suits:
        mask = h.masks[suit]
        pairs = mask & (mask >> 1)
        # a natural run: three slots in a row; with a wild, two slots in a row or one
        # apart, or (``wild_min`` 4+) three slots with one gap: 11_1 or 1_11
        if not (pairs & (mask >> 2)) and not (
            use_wild
            and (
                (pairs or mask & (mask >> 2))
                if wild_min <= 3
                else mask & (mask >> 3) & ((mask >> 1) | (mask >> 2))
            )
        ):
            continue
        row = SLOT_CARD[suit]
        aces = h.counts[row[1]]
        segs = stretches(mask)
        for lo, hi in segs:
            lo, hi = _fix_aces(lo, hi, aces, rules)
            if hi - lo >= 2:
                out.append(Plan(hi - lo + 1, row[lo : hi + 1], 0))
        if not use_wild:
            continue
        wild = h.pick_wild(suit)
        spare_two = not (wild == row[2] and h.counts[wild] < 2)
        for i, (lo, hi) in enumerate(segs):
            if i + 1 < len(segs) and segs[i + 1][0] == hi + 2:
                lo2, hi2 = segs[i + 1]
                if (lo == 1 and hi2 == 14) or not (spare_two or lo > 2 or hi2 < 2):
                    continue
                cards = row[lo : hi + 1] + row[lo2 : hi2 + 1] + (wild,)
                if len(cards) >= wild_min:
                    out.append(Plan(len(cards) - 3, cards, 1))
            elif hi - lo == 1 and (spare_two or lo > 2) and wild_min <= 3:
                out.append(Plan(0, (row[lo], row[hi], wild), 1))
    return out


def group_naturals(h: Hand, rank: int, rules: RuleSet, present: tuple[int, ...] = ()) -> list[int]:
    """The hand's naturals of ``rank`` a group may hold beside the cards ``present``."""
    cards: list[int] = []
    counts = h.counts
    distinct = rules.group_distinct_suits
    for c in range(rank - 1, 52, 13):
        n = counts[c]
        if n:
            if not distinct:
                cards.extend([c] * n)
            elif c not in present:
                cards.append(c)
    return cards


def group_plans(
    h: Hand,
    rules: RuleSet,
    use_wild: bool,
    taken_ranks: frozenset[int] = frozenset(),
    only: int = 0,
) -> list[Plan]:
    """Groups of 3+ naturals, and (``use_wild``) two naturals with a wild."""
    out: list[Plan] = []
    if not rules.groups:
        return out
    least = 2 if use_wild and h.wilds else 3
    cap = rules.group_max or 99
    ranks = h.ranks
    if not only and max(ranks) < least:
        return out  # no rank held often enough (the 2s counted too: a rough first test)
    for rank in (only,) if only else range(1, 14):
        if ranks[rank] < least or rank == 2 or rank in taken_ranks:
            continue
        cards = group_naturals(h, rank, rules)
        if len(cards) >= 3:
            cards = cards[:cap]
            out.append(Plan(len(cards), tuple(cards), 0))
        elif len(cards) == 2 and least == 2 and cap >= 3:
            out.append(Plan(0, (*cards, h.pick_wild()), 1))
    return out


def plans_with(
    h: Hand, card: int, rules: RuleSet, use_wild: bool, taken_ranks: frozenset[int] = frozenset()
) -> list[Plan]:
    """New melds of hand ``h`` plus the natural ``card`` that include ``card``."""
    if WILD_CAPABLE[card]:
        return []
    mask, bits = h.masks[SUIT[card]], SLOT_BITS[card]
    if not ((mask >> 1 | mask << 1 | mask >> 2 | mask << 2) & bits) and not (
        rules.groups and h.ranks[RANK[card]] >= (1 if use_wild and h.wilds else 2)
    ):
        return []  # no card of the hand near it, nor of its rank
    h2 = h.plus(card)
    plans = run_plans(h2, rules, use_wild, (SUIT[card],))
    plans += group_plans(h2, rules, use_wild, taken_ranks, RANK[card])
    return [p for p in plans if card in p.cards]


def extension(m: Meld, h: Hand, rules: RuleSet) -> list[int]:
    """The hand's natural cards that fit meld ``m`` now, all together."""
    if m.kind != SEQ:
        if not h.ranks[m.rank]:
            return []
        cards = group_naturals(h, m.rank, rules, m.naturals)
        if rules.group_max:
            cards = cards[: max(0, rules.group_max - m.size)]
        return cards
    mask = h.masks[m.suit]
    lo, hi = m.lo, m.hi
    reloc = m.wild >= 0 and rules.wild_relocation and mask >> m.wslot & 1
    if not (mask >> (hi + 1) & 1 or (lo > 1 and mask >> (lo - 1) & 1) or reloc):
        return []
    row = SLOT_CARD[m.suit]
    out: list[int] = []
    aces = h.counts[row[1]]
    k = hi + 1
    while k <= 14 and mask >> k & 1:
        if k == 14:
            aces -= 1
        out.append(row[k])
        k += 1
    k = lo - 1
    while k >= 1 and mask >> k & 1 and not (k == 1 and aces <= 0):
        out.append(row[k])
        k -= 1
    # (``out`` may be empty: a full run whose wild's slot we hold, to relocate it)
    if out and (hi - lo + 1) + len(out) >= 14 and rules.ace_to_ace != "allowed":
        out.pop()
    if reloc and row[m.wslot] not in out:
        out.append(row[m.wslot])
    return out


def fits(m: Meld, card: int, rules: RuleSet) -> bool:
    """Could ``card`` alone go onto meld ``m`` (roughly: the engine has the last word)?"""
    if m.kind != SEQ:
        if rules.group_max and m.size >= rules.group_max:
            return False
        if WILD_CAPABLE[card]:
            return m.wild < 0
        return RANK[card] == m.rank and not (rules.group_distinct_suits and card in m.naturals)
    if WILD_CAPABLE[card] and card != SLOT_CARD[m.suit][2]:
        return m.wild < 0
    if SUIT[card] != m.suit:
        return False
    bits = SLOT_BITS[card]
    return bool(bits >> (m.hi + 1) & 1 or (m.lo > 1 and bits >> (m.lo - 1) & 1))


def feeding(melds: list[Meld], rules: RuleSet) -> set[int]:
    """The natural cards that would extend one of ``melds``."""
    out: set[int] = set()
    for m in melds:
        if m.kind != SEQ:
            if not (rules.group_max and m.size >= rules.group_max):
                out.update(range(m.rank - 1, 52, 13))
            continue
        row = SLOT_CARD[m.suit]
        if m.hi < 14:
            out.add(row[m.hi + 1])
        if m.lo > 1:
            out.add(row[m.lo - 1])
    return out


def hooks(melds: tuple[Meld, ...] | list[Meld], rules: RuleSet) -> dict[int, list[int]]:
    """For each natural card, the indexes of the melds it could go onto alone (or, for
    the natural of a wild's slot where wilds move, arrive at to move the wild)."""
    out: dict[int, list[int]] = {}
    for index, m in enumerate(melds):
        if m.kind != SEQ:
            if rules.group_max and m.size >= rules.group_max:
                continue
            for c in range(m.rank - 1, 52, 13):
                if not (rules.group_distinct_suits and c in m.naturals):
                    out.setdefault(c, []).append(index)
            continue
        row = SLOT_CARD[m.suit]
        if m.hi < 14:
            out.setdefault(row[m.hi + 1], []).append(index)
        if m.lo > 1:
            out.setdefault(row[m.lo - 1], []).append(index)
        if m.wild >= 0 and rules.wild_relocation:
            out.setdefault(row[m.wslot], []).append(index)
    return out


def hooks_for(melds: tuple[Meld, ...], card: int, rules: RuleSet) -> list[int]:
    """``hooks(melds, rules).get(card, [])`` for one natural card, without the table."""
    out: list[int] = []
    rank = RANK[card]
    for index, m in enumerate(melds):
        if m.kind != SEQ:
            if (
                rank == m.rank
                and not (rules.group_max and m.size >= rules.group_max)
                and not (rules.group_distinct_suits and card in m.naturals)
            ):
                out.append(index)
            continue
        row = SLOT_CARD[m.suit]
        if m.hi < 14 and row[m.hi + 1] == card:
            out.append(index)
        if m.lo > 1 and row[m.lo - 1] == card:
            out.append(index)
        if m.wild >= 0 and rules.wild_relocation and row[m.wslot] == card:
            out.append(index)
    return out
