"""``legal_commands(state, seat)``: everything a seat may do now.

Candidates are generated from the hand (every run window and every group the cards allow,
every extension of every meld the seat may add to) and then each is checked by the engine
itself, so the list can never disagree with what ``decide`` accepts.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import commands as C
from .cards import JOKER, RANK, WILD_CAPABLE, card_at
from .engine import apply
from .errors import RuleViolation
from .melds import SEQ, Meld
from .state import DRAW, PLAY, State

_SLOT_CARD: tuple[tuple[int, ...], ...] = tuple(
    tuple([-1] + [card_at(suit, slot) for slot in range(1, 15)]) for suit in range(4)
)


def _counts(cards: tuple[int, ...]) -> list[int]:
    counts = [0] * 53
    for c in cards:
        counts[c] += 1
    return counts


def _wild_ids(cards: tuple[int, ...]) -> list[int]:
    """The distinct wild-capable cards, in the order they first appear."""
    return [c for c in dict.fromkeys(cards) if WILD_CAPABLE[c]]


def meld_candidates(
    hand: tuple[int, ...], groups: bool
) -> Iterator[tuple[tuple[int, ...], int | None]]:
    """(cards, wild_as) for every run window and group the hand could form."""
    counts = _counts(hand)
    wilds = _wild_ids(hand)
    for suit in range(4):
        yield from _run_candidates(counts, wilds, suit)
    if groups:
        yield from _group_candidates(hand, counts, wilds)


def _run_candidates(
    counts: list[int], wilds: list[int], suit: int
) -> Iterator[tuple[tuple[int, ...], int | None]]:
    """Every window lo..hi of 3+ slots with at most one hole (filled by a wild) and two
    naturals or more. An ace serves slot 1 or slot 14, so both need one each."""
    slot_card = _SLOT_CARD[suit]
    have = [counts[c] if c >= 0 else 0 for c in slot_card]
    if sum(1 for k in range(2, 15) if have[k]) < 2:
        return
    two = slot_card[2]
    two_spare = counts[two] >= 2
    for lo in range(1, 13):
        miss = 0
        holes = 0
        for hi in range(lo, 15):
            avail = have[hi] - (1 if hi == 14 and lo == 1 and have[1] else 0)
            if avail <= 0:
                holes += 1
                if holes > 1:
                    break
                miss = hi
            size = hi - lo + 1
            if size < 3 or size - holes < 2:
                continue
            naturals = tuple([slot_card[k] for k in range(lo, hi + 1) if k != miss])
            if not holes:
                yield naturals, None
                continue
            two_used = lo <= 2 <= hi and miss != 2
            wild_as = slot_card[miss] if miss in (lo, hi) else None
            for w in wilds:
                if w == two and two_used and not two_spare:
                    continue
                yield (*naturals, w), wild_as


def _group_candidates(
    hand: tuple[int, ...], counts: list[int], wilds: list[int]
) -> Iterator[tuple[tuple[int, ...], int | None]]:
    by_rank: dict[int, list[int]] = {}
    for c in dict.fromkeys(hand):
        if c != JOKER and RANK[c] != 2:
            by_rank.setdefault(RANK[c], []).extend([c] * counts[c])
    for cards in by_rank.values():
        if len(cards) < 2:
            continue
        for subset in _submultisets(sorted(cards), 2):
            if len(subset) >= 3:
                yield subset, None
            for w in wilds:
                yield (*subset, w), None


def _submultisets(cards: list[int], min_size: int) -> list[tuple[int, ...]]:
    """Every sub-multiset of the sorted ``cards`` with ``min_size`` cards or more, in the
    order of a depth-first walk taking 0, 1, ... copies of each distinct card."""
    out: list[tuple[int, ...]] = [()]
    for kind in sorted(set(cards)):
        limit = cards.count(kind)
        out = [acc + (kind,) * n for acc in out for n in range(limit + 1)]
    return [acc for acc in out if len(acc) >= min_size]


def add_candidates(m: Meld, hand: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], int | None]]:
    """(cards, wild_as) for additions of hand cards to meld ``m``."""
    wilds = _wild_ids(hand)
    if m.kind != SEQ:
        same = sorted(c for c in hand if c != JOKER and RANK[c] == m.rank)
        for subset in _submultisets(same, 1):
            yield subset, None
            if m.wild < 0:
                for w in wilds:
                    yield (*subset, w), None
        if m.wild < 0:
            for w in wilds:
                yield (w,), None
        return
    counts = _counts(hand)
    slot_card = _SLOT_CARD[m.suit]
    low: list[int] = []
    k = m.lo - 1
    while k >= 1 and counts[slot_card[k]] > 0:
        low.append(slot_card[k])
        k -= 1
    high: list[int] = []
    k = m.hi + 1
    while k <= 14 and counts[slot_card[k]] > 0:
        high.append(slot_card[k])
        k += 1
    reloc = [slot_card[m.wslot]] if m.wild >= 0 and counts[slot_card[m.wslot]] else []
    for a in range(len(low) + 1):
        for b in range(len(high) + 1):
            for r in range(len(reloc) + 1):
                cards = tuple(low[:a] + high[:b] + reloc[:r])
                if cards:
                    yield cards, None
    if m.wild >= 0:
        return
    for w in wilds:
        for slot in (m.hi + 1, m.lo - 1):
            if 1 <= slot <= 14:
                yield (w,), slot_card[slot]
        # a wild bridging a one-card gap to naturals beyond it
        for slot, step in ((m.hi + 1, 1), (m.lo - 1, -1)):
            beyond: list[int] = []
            k = slot + step
            while 1 <= k <= 14 and counts[slot_card[k]] > 0:
                beyond.append(slot_card[k])
                yield (w, *beyond), None
                k += step


def _valid(state: State, seat: int, cmd: C.Command) -> bool:
    try:
        apply(state, seat, cmd)
    except RuleViolation:
        return False
    return True


def legal_commands(state: State, seat: int) -> list[C.Command]:
    """Every command ``seat`` may give now (empty when it is not that seat's turn)."""
    if state.turn != seat or state.phase not in (DRAW, PLAY):
        return []
    rules = state.rules
    hand = state.hands[seat]
    out: list[C.Command] = []
    seen: set[C.Command] = set()

    def offer(cmd: C.Command) -> None:
        if cmd not in seen:
            seen.add(cmd)
            if _valid(state, seat, cmd):
                out.append(cmd)

    own = rules.team_of(seat)
    teams = range(rules.teams) if rules.add_to_any_meld else (own,)
    if state.phase == DRAW:
        offer(C.Draw())
        pile = state.discard
        if not pile:
            return out
        if rules.discard_pile == "open":
            offer(C.TakeDiscard())
            return out
        depths = range(1, len(pile) + 1) if rules.discard_pile == "any_depth" else (1,)
        for depth in depths:
            card = pile[-depth]
            for cards, wild_as in meld_candidates((*hand, card), rules.groups):
                if card in cards:
                    rest = list(cards)
                    rest.remove(card)
                    offer(C.TakeDiscard(depth, tuple(sorted(rest)), None, wild_as))
            for team in teams:
                for index, m in enumerate(state.melds[team]):
                    for _cards, wild_as in add_candidates(m, (card,)):
                        offer(C.TakeDiscard(depth, None, (team, index), wild_as))
        return out
    for cards, wild_as in meld_candidates(hand, rules.groups):
        offer(C.LayMeld(tuple(sorted(cards)), wild_as))
    for team in teams:
        for index, m in enumerate(state.melds[team]):
            for cards, wild_as in add_candidates(m, hand):
                offer(C.AddToMeld(team, index, tuple(sorted(cards)), wild_as))
    for card in sorted(set(hand)):
        offer(C.Discard(card))
    return out


__all__ = ["legal_commands", "meld_candidates", "add_candidates"]
