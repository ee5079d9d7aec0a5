"""GreedyBot's play: the new melds it would lay and the cards it would add, best first,
and the card it would discard (the fewest neighbours, the highest first, keeping the
cards that would feed the next player). Proposals only: ``greedy.py`` has the engine
confirm them.
"""

from __future__ import annotations

from . import commands as C
from .bots import first_accepted
from .cards import RANK, SUIT, WILD_CAPABLE
from .greedy_memory import foreign_of
from .greedy_view import View
from .handplan import Plan, extension, group_plans, run_plans
from .legal import legal_commands
from .melds import CLEAN_KINDS, GROUP, SEQ
from .scoring import card_values
from .state import State

# The slot bits next to a natural card's slot (NEAR1) and two slots away (NEAR2), both
# ends for an ace: its usefulness for runs is a popcount of the suit's mask under them.
NEAR1: tuple[int, ...] = tuple(
    (1 << 13 | 1 << 2) if RANK[c] == 1 else (1 << RANK[c] + 1 | 1 << RANK[c] - 1) if c < 52 else 0
    for c in range(53)
)
NEAR2: tuple[int, ...] = tuple(
    (1 << 12 | 1 << 3)
    if RANK[c] == 1
    else (1 << RANK[c] + 2 | (1 << RANK[c] - 2 if RANK[c] > 1 else 0))
    if c < 52
    else 0
    for c in range(53)
)

# (suit, NEAR1, NEAR2, rank) of each card for ``discard_keys``; a wild's suit is -1
_DISCARD_INFO: tuple[tuple[int, int, int, int], ...] = tuple(
    (-1 if WILD_CAPABLE[c] else SUIT[c], NEAR1[c], NEAR2[c], RANK[c]) for c in range(53)
)


def melds(v: View) -> list[C.Command]:
    """New melds, biggest first (a wild counts against), that leave a playable hand."""
    n_hand = len(v.hand)
    late = n_hand <= 5
    if not v.may_go_out and n_hand - 3 < v.reserve:
        # ``keeps`` lets only a natural meld of 7+ cards (a canasta to close with) go
        masks = v.h.masks
        if n_hand < 7 or (
            masks[0].bit_count() < 7
            and masks[1].bit_count() < 7
            and masks[2].bit_count() < 7
            and masks[3].bit_count() < 7
            and max(v.h.ranks) < 7
        ):
            return []  # (a run's cards are slots held, a group's cards of its rank)
        plans: list[Plan] = [
            p
            for p in run_plans(v.h, v.rules, False)
            + group_plans(v.h, v.rules, False, v.group_ranks)
            if len(p.cards) >= 7
        ]
    else:
        # a 3-card meld leaning on a wild is only worth it late: not even proposed before
        plans = run_plans(v.h, v.rules, True, wild_min=0 if late else 4)
        plans += group_plans(v.h, v.rules, late, v.group_ranks)
    plans.sort(key=lambda p: (p.score, -p.wilds), reverse=True)
    out: list[C.Command] = []
    for plan in plans:
        n = len(plan.cards)
        if plan.wilds and n < 4 and not late:
            continue  # a 3-card meld leaning on a wild is only worth it late
        if v.keeps(len(v.hand) - n, n >= 7 and not plan.wilds):
            out.append(C.LayMeld(plan.cards))
    return out


def adds(v: View) -> list[C.Command]:
    # ``keeps``, ``closes_with``, ``wild_ok`` and ``foreign_ok`` are inlined here (this
    # runs at every play); ``fits`` is their reference
    options: list[tuple[tuple[int, int, int], C.Command]] = []
    rules = v.rules
    n_hand = len(v.hand)
    h = v.h
    wilds = h.wilds
    masks, ranks = h.masks, h.ranks
    reloc = rules.wild_relocation
    facts = v.facts
    need = facts.need
    own = v.own
    go = v.may_go_out
    reserve = v.reserve
    gobm = rules.go_out_by_meld
    close_any = rules.close_requires == "any"

    def keeps(left: int, closes: bool) -> bool:
        if left <= 0:
            if not (left == 0 and gobm and go):
                return False
        elif left <= 1 and not go:
            return False
        return go or closes or left >= reserve

    # while the reserve holds, ``keeps`` lets only a play that makes a canasta go
    locked = not go and n_hand - 1 < reserve
    if (
        not wilds
        and not (
            masks[0] & need[0] or masks[1] & need[1] or masks[2] & need[2] or masks[3] & need[3]
        )
        and not any(ranks[r] for r in facts.need_ranks)
    ):
        own = ()  # no card of ours fits any of our melds
    if own:
        sizes = facts.sizes
        kinds = facts.kinds
        team = v.team
        group_max = rules.group_max
        # ``wild_ok``'s tests that do not depend on the meld
        wild_clean = rules.close_requires == "clean" and not facts.has_clean
        wild_late = n_hand <= 4
        for index, m in enumerate(own):
            size = sizes[index]
            # locked, no add of ours makes it a canasta: naturals fit a run at slots
            # we hold, a group with cards of its rank; a wild alone, only where any
            # canasta closes
            if (
                locked
                and (size + (masks[m.suit].bit_count() if m.kind == SEQ else ranks[m.rank]) < 7)
                and (not close_any or size + 1 < 7)
            ):
                continue
            # ``extension``'s own first test, inlined: does any card of ours fit here?
            if m.kind == SEQ:
                mask = masks[m.suit]
                hit = (
                    mask >> (m.hi + 1) & 1
                    or (m.lo > 1 and mask >> (m.lo - 1) & 1)
                    or (m.wild >= 0 and reloc and mask >> m.wslot & 1)
                )
            else:
                hit = ranks[m.rank]
            if hit:
                cards = extension(m, h, rules)
                clean = close_any or m.wild < 0
                while cards and not keeps(n_hand - len(cards), clean and size + len(cards) >= 7):
                    cards.pop()
                if cards:
                    reach = 1 if size < 7 <= size + len(cards) else 0
                    options.append(
                        ((2 + reach, len(cards), 0), C.AddToMeld(team, index, tuple(cards)))
                    )
            if wilds and m.wild < 0 and not (m.kind == GROUP and group_max and size >= group_max):
                kind = kinds[index]
                if (
                    kind not in CLEAN_KINDS
                    and not (wild_clean and size >= 5)
                    and (kind is not None or size + 1 >= 7 or wild_late)
                    and keeps(n_hand - 1, close_any and size + 1 >= 7)
                ):
                    reach = 1 if size < 7 <= size + 1 else 0
                    options.append(
                        ((1 + reach, -1, -1), C.AddToMeld(team, index, (h.pick_wild(m.suit),)))
                    )
    if not locked and rules.add_to_any_meld:  # (foreign adds never make our canasta)
        # only the melds some card of ours hooks onto can take naturals (``extension``
        # finds cards exactly where ``hooks`` lists one), and only where ``foreign_ok``
        # takes one card (it takes no more where it refuses one); a wild goes only
        # onto a clean canasta
        distinct = set(v.hand)
        others: set[tuple[int, int]] = set()
        spoilable: list[tuple[int, int]] = []
        me = v.team
        for t, side in enumerate(v.melds):
            if t != me and side:
                side_hooks, side_clean = foreign_of(rules, side)
                for c in side_hooks.keys() & distinct:
                    for i in side_hooks[c]:
                        others.add((t, i))
                if side_clean:
                    spoilable += [(t, i) for i in side_clean]
        spoil = wilds and spoilable and keeps(n_hand - 1, False)
        targets = others.union(spoilable) if spoil else others
        if targets:
            melds = v.melds
            for team, index in sorted(targets):
                m = melds[team][index]
                if (team, index) in others:
                    cards = extension(m, h, rules)
                    while cards and not (
                        v.foreign_ok(m, len(cards)) and keeps(n_hand - len(cards), False)
                    ):
                        cards.pop()
                    if cards:
                        options.append(((0, len(cards), 0), C.AddToMeld(team, index, tuple(cards))))
                if spoil and (team, index) in spoilable:
                    # spoil their clean canasta: 100 points, and maybe their only way
                    # to close
                    options.append(((3, 0, 0), C.AddToMeld(team, index, (h.pick_wild(m.suit),))))
    if len(options) > 1:
        options.sort(key=lambda o: o[0], reverse=True)
    return [c for _, c in options]


def discard(state: State, seat: int, v: View) -> C.Command:
    """The card to discard: the lowest of ``discard_keys``."""
    best = -1
    best_key = 1 << 30
    for key, card in discard_keys(state, v):
        if key < best_key:
            best, best_key = card, key
    if best >= 0 and len(v.hand) > 1:
        return C.Discard(best)  # only a last card's discard can be refused
    order = [c for c in set(v.hand) if c != state.taken_single]
    cmd = first_accepted(state, seat, (C.Discard(c) for c in order))
    if cmd is None:  # cannot happen: the engine never strands a hand
        cmd = legal_commands(state, seat)[0]
    return cmd


def discard_keys(state: State, v: View) -> list[tuple[int, int]]:
    """(key, card) of each card we may discard: the lowest key goes first."""
    values = card_values(v.rules)
    h = v.h
    masks = h.masks
    counts = h.counts
    ranks = h.ranks if v.rules.groups else None
    # cards the next player could lay (anywhere, where anyone may add to any meld)
    danger = v.danger
    single = state.taken_single
    # usefulness of a card: 2 per neighbour held, 1 per card two slots away, 2 per
    # other suit of its rank held (groups) and 1 for a copy, 6 if it would feed the
    # next player; the lowest is discarded, the highest valued first. A key packs
    # (usefulness, -value) into one int; wilds are kept (usefulness 100).
    info = _DISCARD_INFO
    suits_held = [-1] * 14  # per rank, the suits of it held (worked out once)
    out: list[tuple[int, int]] = []
    for card in set(v.hand):
        if card == single:
            continue
        suit, near1, near2, rank = info[card]
        if suit < 0:
            key = 100 * 1024
        else:
            mask = masks[suit]
            score = 2 * (mask & near1).bit_count() + (mask & near2).bit_count()
            if ranks is not None and ranks[rank] > 1:
                kinds = suits_held[rank]
                if kinds < 0:
                    kinds = suits_held[rank] = (
                        (counts[rank - 1] > 0)
                        + (counts[rank + 12] > 0)
                        + (counts[rank + 25] > 0)
                        + (counts[rank + 38] > 0)
                    )
                score += 2 * (kinds - 1) + (counts[card] > 1)
            if card in danger:
                score += 6  # it would feed the next player
            key = score * 1024 - values[card]
        out.append((key, card))
    return out
