"""Melds (docs/rules-reference.md, "Melds" and "Canastas"): building, adding, wild
placement, canasta kinds.

A sequence is stored as its suit and slot range ``lo..hi`` (1 = low ace, 14 = high ace)
plus at most one wild card and the slot it stands in: every other slot holds the natural
card of that suit, so the cards never need to be listed. A group is its rank, its natural
cards and at most one wild. Melds are immutable; adding returns a new meld.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .cards import JOKER, NAME, RANK, SUIT, WILD_CAPABLE, card_at, slot_name
from .errors import RuleViolation
from .ruleset import RuleSet

SEQ = 0
GROUP = 1

BONUS = {"ace_to_ace": 1000, "royal": 500, "clean": 200, "semi_clean": 150, "dirty": 100}
CLEAN_KINDS = frozenset({"clean", "royal", "ace_to_ace"})


class Meld(NamedTuple):
    kind: int
    suit: int  # sequences: the suit; groups: -1
    lo: int  # sequences: lowest slot; groups: 0
    hi: int  # sequences: highest slot; groups: 0
    rank: int  # groups: the rank; sequences: 0
    naturals: tuple[int, ...]  # groups: natural cards, sorted; sequences: ()
    wild: int  # the card acting as wild, or -1
    wslot: int  # sequences: the wild's slot, or 0
    owner: int  # the team whose meld it is
    foreign: tuple[tuple[int, int], ...] = ()  # (team, card) laid by another side

    @property
    def size(self) -> int:
        if self.kind == SEQ:
            return self.hi - self.lo + 1
        return len(self.naturals) + (self.wild >= 0)


# Melds are built from all their fields at once (tuple.__new__): faster than Meld(...) or
# _replace, which go through Python-level constructors on every meld and add.
_new_meld = tuple.__new__


def meld_cards(m: Meld) -> list[int]:
    """The physical cards of a meld (for scoring and conservation)."""
    if m.kind == GROUP:
        cards = list(m.naturals)
    else:
        cards = [card_at(m.suit, k) for k in range(m.lo, m.hi + 1) if k != m.wslot]
    if m.wild >= 0:
        cards.append(m.wild)
    return cards


def render(m: Meld) -> list[str]:
    """Conformance notation: a sequence low to high with ``CARD=SLOT`` for its wild."""
    if m.kind == GROUP:
        out = [NAME[c] for c in m.naturals]
        if m.wild >= 0:
            out.append(NAME[m.wild])
        return out
    return [
        f"{NAME[m.wild]}={slot_name(m.suit, k)}" if k == m.wslot else slot_name(m.suit, k)
        for k in range(m.lo, m.hi + 1)
    ]


def canasta_kind(m: Meld, rules: RuleSet) -> str | None:
    """The best kind of a meld of 7+ cards ("Canastas"), or None for a smaller meld."""
    size = m.size
    if size < 7:
        return None
    if m.wild < 0:
        if m.kind == SEQ:
            if size == 14 and rules.ace_to_ace == "allowed":
                return "ace_to_ace"
            if size == 13 and rules.royal:
                return "royal"
        return "clean"
    if rules.semi_clean and size - 1 >= 7 and (m.kind == GROUP or m.wslot in (m.lo, m.hi)):
        return "semi_clean"
    return "dirty"


def _fail(code: str, message: str) -> RuleViolation:
    return RuleViolation(code, message)


def _check_span(lo: int, hi: int, wslot: int, rules: RuleSet) -> str | None:
    """Why a sequence spanning lo..hi (wild at wslot) is invalid, or None."""
    if hi - lo + 1 == 14:
        if rules.ace_to_ace == "no":
            return "a run may not go from ace to ace here"
        if rules.ace_to_ace == "wild_end_only" and wslot not in (1, 14):
            return "an ace-to-ace run needs a wild card in one ace slot here"
    return None


# The slots the aces of a run may take, by their number (never mutated): an ace stands
# high unless the run needs it low; two take both ends; three or more never fit.
_ACE_OPTIONS: tuple[list[list[int]], ...] = ([[]], [[14], [1]], [[1, 14]])


def _wild_end(lo: int, hi: int, wild: int, suit: int) -> int:
    """Default slot of a wild beside a gapless run (0 when neither end is free)."""
    if RANK[wild] == 2 and SUIT[wild] == suit and lo == 4:
        return 3  # seed 001: a 2 of the suit stands for the 3, next to its home
    if hi < 14:
        return hi + 1
    if lo > 1:
        return lo - 1
    return 0


def build_meld(
    cards: Sequence[int], rules: RuleSet, owner: int, wild_as: int | None = None
) -> Meld:
    """A new meld from ``cards`` or RuleViolation. ``wild_as`` names the wild's card."""
    if len(cards) < 3:
        raise _fail("meld_too_small", "a meld needs at least 3 cards")
    plain = [c for c in cards if not WILD_CAPABLE[c]]
    if not plain:
        if all(RANK[c] == 2 for c in cards):
            raise _fail("group_of_twos", "groups of 2s are not allowed")
        raise _fail("too_many_wilds", "only one wild card per meld")
    ranks = [RANK[c] for c in plain]
    if len(plain) >= 2 and ranks.count(ranks[0]) == len(ranks):
        return _build_group(cards, plain, rules, owner, wild_as)
    return _build_sequence(cards, plain, ranks, rules, owner, wild_as)


def _build_group(
    cards: Sequence[int], plain: list[int], rules: RuleSet, owner: int, wild_as: int | None
) -> Meld:
    if not rules.groups:
        raise _fail("groups_not_allowed", "only sequences may be laid in this modality")
    if wild_as is not None:
        raise _fail("bad_wild_slot", "a wild card's slot can only be named in a sequence")
    wilds = [c for c in cards if WILD_CAPABLE[c]]
    if len(wilds) > 1:
        raise _fail("too_many_wilds", "only one wild card per meld")
    if rules.group_distinct_suits and len({SUIT[c] for c in plain}) != len(plain):
        raise _fail("group_suits_repeat", "a group needs cards of different suits")
    if rules.group_max and len(cards) > rules.group_max:
        raise _fail("group_too_large", f"a group holds at most {rules.group_max} cards")
    return _new_meld(
        Meld,
        (
            GROUP,
            -1,
            0,
            0,
            RANK[plain[0]],
            tuple(sorted(plain)),
            wilds[0] if wilds else -1,
            0,
            owner,
            (),
        ),
    )


def _build_sequence(
    cards: Sequence[int],
    plain: list[int],
    ranks: list[int],
    rules: RuleSet,
    owner: int,
    wild_as: int | None,
) -> Meld:
    """``ranks`` are those of ``plain`` (the cards that cannot be wild), in order."""
    suit = SUIT[plain[0]]
    for c in plain:
        if SUIT[c] != suit:
            raise _fail("not_a_meld", "a sequence needs cards of one suit in a row")
    n_aces = ranks.count(1)
    if n_aces:
        ranks = [r for r in ranks if r != 1]
    if len(plain) == len(cards):  # no 2 and no joker
        if not n_aces and wild_as is None:
            # the common case, naturals 3..K: a run when they are distinct and gapless
            slots = sorted(ranks)
            lo, hi = slots[0], slots[-1]
            if hi - lo + 1 == len(slots) and len(set(slots)) == len(slots):
                return _new_meld(Meld, (SEQ, suit, lo, hi, 0, (), -1, 0, owner, ()))
        twos_of_suit: list[int] = []
        others: list[int] = []
    else:
        two = suit * 13 + 1  # the 2 of the suit
        twos_of_suit = [c for c in cards if c == two]
        others = [c for c in cards if WILD_CAPABLE[c] and c != two]
    choices: list[tuple[int | None, list[int]]] = []
    if twos_of_suit:
        choices.append((twos_of_suit[0], twos_of_suit[1:] + others))
    choices.append((None, twos_of_suit + others))
    # the reason of the last candidate tried, raised only if none fits
    error = ("not_a_meld", "those cards do not make a sequence")
    for natural_two, wilds in choices:
        if len(wilds) > 1:
            error = ("too_many_wilds", "only one wild card per meld")
            continue
        base = ranks + ([2] if natural_two is not None else [])
        for aces in _ACE_OPTIONS[n_aces] if n_aces <= 2 else ():
            slots = sorted(base + aces)
            if len(set(slots)) != len(slots):
                error = ("not_a_meld", "a sequence cannot hold the same card twice")
                continue
            lo, hi = slots[0], slots[-1]
            missing = (hi - lo + 1) - len(slots)
            wild = wilds[0] if wilds else -1
            if missing > 1 or (missing == 1 and wild < 0):
                error = ("not_a_meld", "those cards do not make a sequence")
                continue
            wslot = 0
            if wild >= 0:
                if missing == 1:
                    wslot = next(k for k in range(lo, hi + 1) if k not in slots)
                elif wild_as is not None:
                    wslot = _named_end(wild_as, suit, lo, hi)
                else:
                    wslot = _wild_end(lo, hi, wild, suit)
                if wild_as is not None and wslot != _slot_of(wild_as, suit, wslot):
                    error = ("bad_wild_slot", "the wild card cannot stand in that slot")
                    continue
                if wslot == 0:
                    error = ("not_a_meld", "there is no room for the wild card")
                    continue
                lo, hi = min(lo, wslot), max(hi, wslot)
            elif wild_as is not None:
                error = ("bad_wild_slot", "there is no wild card to place")
                continue
            why = _check_span(lo, hi, wslot, rules)
            if why:
                error = ("ace_to_ace_not_allowed", why)
                continue
            return _new_meld(Meld, (SEQ, suit, lo, hi, 0, (), wild, wslot, owner, ()))
    raise _fail(*error)


def _slot_of(card: int, suit: int, hint: int) -> int:
    """The slot that card ``card`` names in a run of ``suit`` (aces: the hinted end)."""
    if card == JOKER or SUIT[card] != suit:
        return -1
    r = RANK[card]
    if r == 1:
        return hint if hint in (1, 14) else 14
    return r


def _named_end(card: int, suit: int, lo: int, hi: int) -> int:
    """The end slot named by ``wild_as`` beside lo..hi, or 0 when it is not an end."""
    if card == JOKER or SUIT[card] != suit:
        return 0
    r = RANK[card]
    if r == 1:
        if hi == 13:
            return 14
        return 1 if lo == 2 else 0
    if r == hi + 1 or r == lo - 1:
        return r
    return 0


def add_to_meld(m: Meld, cards: Sequence[int], rules: RuleSet, wild_as: int | None = None) -> Meld:
    """``m`` with ``cards`` added (some one-by-one order of them valid) or RuleViolation."""
    if not cards:
        raise _fail("nothing_to_add", "choose at least one card to add")
    if m.kind == GROUP:
        return _add_to_group(m, cards, rules, wild_as)
    return _add_to_sequence(m, cards, rules, wild_as)


def _add_to_group(m: Meld, cards: Sequence[int], rules: RuleSet, wild_as: int | None) -> Meld:
    if wild_as is not None:
        raise _fail("bad_wild_slot", "a wild card's slot can only be named in a sequence")
    naturals = list(m.naturals)
    wild = m.wild
    for c in cards:
        if WILD_CAPABLE[c]:
            if wild >= 0:
                raise _fail("too_many_wilds", "only one wild card per meld")
            wild = c
        elif RANK[c] != m.rank:
            raise _fail("cannot_add", f"{NAME[c]} does not fit that group")
        else:
            naturals.append(c)
    if rules.group_distinct_suits and len({SUIT[c] for c in naturals}) != len(naturals):
        raise _fail("group_suits_repeat", "a group needs cards of different suits")
    if rules.group_max and len(naturals) + (wild >= 0) > rules.group_max:
        raise _fail("group_too_large", f"a group holds at most {rules.group_max} cards")
    return _new_meld(
        Meld,
        (
            GROUP,
            m.suit,
            m.lo,
            m.hi,
            m.rank,
            tuple(sorted(naturals)),
            wild,
            m.wslot,
            m.owner,
            m.foreign,
        ),
    )


def _add_to_sequence(m: Meld, cards: Sequence[int], rules: RuleSet, wild_as: int | None) -> Meld:
    suit, lo, hi, wild, wslot = m.suit, m.lo, m.hi, m.wild, m.wslot
    if len(cards) == 1 and wild_as is None:
        c = cards[0]
        placed = (
            None
            if WILD_CAPABLE[c] or SUIT[c] != suit
            else _place_natural(c, suit, lo, hi, wild, wslot, rules)
        )
        if placed is not None:  # the common add, one natural that fits: as below, directly
            lo, hi, wild, wslot = placed
            why = _check_span(lo, hi, wslot, rules)
            if why:
                raise _fail("ace_to_ace_not_allowed", why)
            return _new_meld(
                Meld, (SEQ, suit, lo, hi, m.rank, m.naturals, wild, wslot, m.owner, m.foreign)
            )
    naturals = [c for c in cards if not WILD_CAPABLE[c]]
    twos = [c for c in cards if RANK[c] == 2 and SUIT[c] == suit]
    wilds = [c for c in cards if WILD_CAPABLE[c] and not (RANK[c] == 2 and SUIT[c] == suit)]
    for c in naturals:
        if SUIT[c] != suit:
            raise _fail("cannot_add", f"{NAME[c]} does not fit that sequence")
    pending = naturals + twos
    bridged = False  # a wild added with these cards went into a gap already
    while True:
        progress = False
        for c in list(pending):
            placed = _place_natural(c, suit, lo, hi, wild, wslot, rules)
            if placed is None:
                continue
            lo, hi, wild, wslot = placed
            pending.remove(c)
            progress = True
        if not pending:
            break
        if progress:
            continue
        # Stuck: a wild bridges the gap. A wild of another kind goes first; a 2 of the
        # suit that cannot go home becomes the wild only when there is no other.
        if not wilds:
            stuck_twos = [c for c in pending if WILD_CAPABLE[c]]
            if not stuck_twos:
                break
            pending.remove(stuck_twos[0])
            wilds.append(stuck_twos[0])
        if wild >= 0:
            raise _fail("too_many_wilds", "only one wild card per meld")
        new_wild = wilds.pop(0)
        bridged = True
        slot = _bridge_slot(pending, suit, lo, hi, new_wild, wild_as)
        if slot == 0:
            raise _fail(
                "bad_wild_slot" if wild_as is not None else "cannot_add",
                "there is no room for the wild card there",
            )
        wild, wslot = new_wild, slot
        lo, hi = min(lo, slot), max(hi, slot)
        if not pending:
            break
    if pending:
        if any(
            relocation_blocked(m._replace(lo=lo, hi=hi, wild=wild, wslot=wslot), c, rules)
            for c in pending
        ):
            if not rules.wild_relocation:
                raise _fail("wild_fixed", "a wild card on the table stays where it is")
            raise _fail("wild_cannot_move", "the wild card has no free end to move to")
        raise _fail("cannot_add", "those cards do not extend that sequence")
    if wilds:
        if wild >= 0 or len(wilds) > 1:
            raise _fail("too_many_wilds", "only one wild card per meld")
        new_wild = wilds[0]
        slot = _named_end(wild_as, suit, lo, hi) if wild_as is not None else _add_end(lo, hi)
        if slot == 0:
            raise _fail(
                "bad_wild_slot" if wild_as is not None else "cannot_add",
                "there is no room for the wild card there",
            )
        wild, wslot = new_wild, slot
        lo, hi = min(lo, slot), max(hi, slot)
    elif wild_as is not None and not bridged:
        raise _fail("bad_wild_slot", "there is no wild card to place")
    why = _check_span(lo, hi, wslot, rules)
    if why:
        raise _fail("ace_to_ace_not_allowed", why)
    return _new_meld(Meld, (SEQ, suit, lo, hi, m.rank, m.naturals, wild, wslot, m.owner, m.foreign))


def _add_end(lo: int, hi: int) -> int:
    if hi < 14:
        return hi + 1
    if lo > 1:
        return lo - 1
    return 0


def _bridge_slot(
    pending: list[int], suit: int, lo: int, hi: int, wild: int, wild_as: int | None
) -> int:
    """Where a wild added with stuck naturals goes: the one slot that bridges to them."""
    if wild_as is not None:
        return _named_end(wild_as, suit, lo, hi)
    for c in pending:
        r = RANK[c]
        targets = (14, 1) if r == 1 else (r,)
        for k in targets:
            if k == hi + 2:
                return hi + 1
            if k == lo - 2:
                return lo - 1
    return _add_end(lo, hi)


def _place_natural(
    c: int, suit: int, lo: int, hi: int, wild: int, wslot: int, rules: RuleSet
) -> tuple[int, int, int, int] | None:
    """Try to lay natural ``c`` on the run now; the new (lo, hi, wild, wslot) or None."""
    r = RANK[c]
    targets = (14, 1) if r == 1 else (r,)
    for k in targets:
        if k == wslot:
            moved = _relocate(suit, lo, hi, wild, wslot, rules)
            if moved is not None:
                return moved
            continue
        if lo <= k <= hi:
            continue
        if k == hi + 1:
            if _check_span(lo, k, wslot, rules) is None:
                return lo, k, wild, wslot
        elif k == lo - 1 and _check_span(k, hi, wslot, rules) is None:
            return k, hi, wild, wslot
    return None


def _relocate(
    suit: int, lo: int, hi: int, wild: int, wslot: int, rules: RuleSet
) -> tuple[int, int, int, int] | None:
    """The natural card of the wild's slot arrives: move the wild (seed 003's order)."""
    if not rules.wild_relocation:
        return None
    if RANK[wild] == 2 and SUIT[wild] == suit and lo == 3:
        return 2, hi, -1, 0  # the 2 goes home and is natural again
    if hi < 14 and _check_span(lo, hi + 1, hi + 1, rules) is None:
        return lo, hi + 1, wild, hi + 1
    if lo > 1 and _check_span(lo - 1, hi, lo - 1, rules) is None:
        return lo - 1, hi, wild, lo - 1
    return None


def relocation_blocked(m: Meld, card: int, rules: RuleSet) -> bool:
    """True when ``card`` is the natural of the wild's slot and the wild cannot move."""
    if m.kind != SEQ or m.wild < 0 or SUIT[card] != m.suit or WILD_CAPABLE[card]:
        return False
    r = RANK[card]
    return m.wslot in ((14, 1) if r == 1 else (r,))
