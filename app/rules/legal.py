"""``legal_commands(state, seat)``: everything a seat may do now.

Candidates are generated from the hand (every run window and every group the cards allow,
every extension of every meld the seat may add to) and then each is checked by the engine
itself, so the list can never disagree with what ``decide`` accepts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from . import commands as C
from .cards import JOKER, RANK, WILD_CAPABLE, card_at
from .engine import apply
from .errors import RuleViolation
from .melds import SEQ, Meld
from .state import DRAW, PLAY, State


def _wild_ids(counts: Counter[int]) -> list[int]:
    return [c for c in counts if WILD_CAPABLE[c] and counts[c] > 0]


def meld_candidates(
    hand: tuple[int, ...], groups: bool
) -> Iterator[tuple[tuple[int, ...], int | None]]:
    """(cards, wild_as) for every run window and group the hand could form."""
    counts = Counter(hand)
    wilds = _wild_ids(counts)
    for suit in range(4):
        yield from _run_candidates(counts, wilds, suit)
    if groups:
        yield from _group_candidates(counts, wilds)


def _run_candidates(
    counts: Counter[int], wilds: list[int], suit: int
) -> Iterator[tuple[tuple[int, ...], int | None]]:
    have = [0] * 15
    for slot in range(1, 15):
        have[slot] = counts.get(card_at(suit, slot), 0)
    if sum(1 for k in range(2, 15) if have[k]) < 2:
        return
    for lo in range(1, 13):
        missing: list[int] = []
        used: Counter[int] = Counter()
        for hi in range(lo, 15):
            card = card_at(suit, hi)
            if used[card] < counts.get(card, 0):
                used[card] += 1
            else:
                missing.append(hi)
                if len(missing) > 1:
                    break
            size = hi - lo + 1
            if size < 3 or size - len(missing) < 2:
                continue
            naturals = [card_at(suit, k) for k in range(lo, hi + 1) if k not in missing]
            if not missing:
                yield tuple(naturals), None
                continue
            slot = missing[0]
            for w in wilds:
                if used[w] + 1 > counts[w]:
                    continue
                end = slot in (lo, hi)
                yield (*naturals, w), (card_at(suit, slot) if end else None)


def _group_candidates(
    counts: Counter[int], wilds: list[int]
) -> Iterator[tuple[tuple[int, ...], int | None]]:
    by_rank: dict[int, list[int]] = {}
    for c, n in counts.items():
        if c != JOKER and RANK[c] != 2:
            by_rank.setdefault(RANK[c], []).extend([c] * n)
    for cards in by_rank.values():
        if len(cards) < 2:
            continue
        for subset in _submultisets(sorted(cards), 2):
            if len(subset) >= 3:
                yield subset, None
            if len(subset) >= 2:
                for w in wilds:
                    yield (*subset, w), None


def _submultisets(cards: list[int], min_size: int) -> Iterator[tuple[int, ...]]:
    kinds = sorted(set(cards))
    limits = [cards.count(k) for k in kinds]

    def rec(i: int, acc: list[int]) -> Iterator[tuple[int, ...]]:
        if i == len(kinds):
            if len(acc) >= min_size:
                yield tuple(acc)
            return
        for n in range(limits[i] + 1):
            yield from rec(i + 1, acc + [kinds[i]] * n)

    yield from rec(0, [])


def add_candidates(
    m: Meld, hand: tuple[int, ...]
) -> Iterator[tuple[tuple[int, ...], int | None]]:
    """(cards, wild_as) for additions of hand cards to meld ``m``."""
    counts = Counter(hand)
    wilds = _wild_ids(counts)
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
    suit = m.suit
    low: list[int] = []
    k = m.lo - 1
    while k >= 1 and counts.get(card_at(suit, k), 0) > 0:
        low.append(card_at(suit, k))
        k -= 1
    high: list[int] = []
    k = m.hi + 1
    while k <= 14 and counts.get(card_at(suit, k), 0) > 0:
        high.append(card_at(suit, k))
        k += 1
    reloc = [card_at(suit, m.wslot)] if m.wild >= 0 and counts.get(card_at(suit, m.wslot)) else []
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
                yield (w,), card_at(suit, slot)
        # a wild bridging a one-card gap to naturals beyond it
        for slot, step in ((m.hi + 1, 1), (m.lo - 1, -1)):
            beyond: list[int] = []
            k = slot + step
            while 1 <= k <= 14 and counts.get(card_at(suit, k), 0) > 0:
                beyond.append(card_at(suit, k))
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
