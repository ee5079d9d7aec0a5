"""GreedyBot's draw: whether to take the discard pile, and how to play the card taken.

It takes a closed pile whenever it can play the card; an any-depth pile (brasil) only
for a take worth ``DEEP_TAKE`` (3 per card taken plus the cards laid), the deepest
such take first: each depth's takes are bounded from the hand and the hooks before the
seat's whole view is read, so the depths that cannot pay are never looked at.
"""

from __future__ import annotations

from . import commands as C
from .bots import accepts, first_accepted
from .cards import RANK, SUIT, WILD_CAPABLE
from .greedy_memory import Memory, hooked_sides, hooks_of
from .greedy_view import RESERVE, STOCK_TURNS, View
from .handplan import SLOT_BITS, Hand, Plan, fits, hooks_for, plans_with
from .melds import CLEAN_KINDS, Meld, canasta_kind
from .ruleset import RuleSet
from .state import M_TABLE, State

# An any-depth pile is taken only for a take scoring this much (3 per card taken, plus
# the cards laid): each take is one more turn before the stock runs out, and a take of
# a card or two to lay three is little better than a draw.
DEEP_TAKE = 13


def plan_bound(h: Hand, card: int, rules: RuleSet, use_wild: bool) -> int:
    """At least the best score of ``plans_with(h, card, rules, use_wild)`` (-1: none).
    A run holding ``card`` scores its length, at most the stretch of slots held around
    it; one a wild bridges to the next stretch scores both stretches less 2 (three cards
    with a wild: 0); a group scores its naturals, at most the hand's of its rank and
    ``card`` (two and a wild: 0)."""
    mask = h.masks[SUIT[card]]
    bits = SLOT_BITS[card]
    rank = RANK[card]
    wild = use_wild and h.wilds > 0
    if not ((mask >> 1 | mask << 1 | mask >> 2 | mask << 2) & bits) and not (
        rules.groups and h.ranks[rank] >= (1 if wild else 2)
    ):
        return -1  # ``plans_with``'s own first test
    best = -1
    m = mask | bits
    for k in (1, 14) if rank == 1 else (rank,):
        lo = hi = k
        while lo > 1 and m >> (lo - 1) & 1:
            lo -= 1
        while hi < 14 and m >> (hi + 1) & 1:
            hi += 1
        length = hi - lo + 1
        if length >= 3 and length > best:
            best = length
        if wild:
            left = 0
            j = lo - 2
            while j >= 1 and m >> j & 1:
                left += 1
                j -= 1
            right = 0
            j = hi + 2
            while j <= 14 and m >> j & 1:
                right += 1
                j += 1
            if left or right:
                best = max(best, length + max(left, right) - 2)
            if length == 2:
                best = max(best, 0)
    if rules.groups:
        same = h.ranks[rank] + 1
        if same >= 3:
            best = max(best, same)
        elif same == 2 and wild:
            best = max(best, 0)
    return best


def without(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    rest = list(cards)
    rest.remove(card)
    return tuple(rest)


def draw(memory: Memory, state: State, seat: int) -> C.Command:
    """Draw from the stock or take the pile (a one-card open pile whose card would only be
    passed round is for ``GreedyBot`` to turn down: it plays the turn out to know)."""
    pile = state.discard
    if not pile:
        return C.Draw()
    rules = state.rules
    if rules.discard_pile == "open":  # no need for a full view of the hand
        hand = state.hands[seat]
        own = state.melds[rules.team_of(seat)]
        if (len(pile) >= 3 or fits_ours(rules, own, hand, pile[-1])) and may_take_open(
            state, rules, hand
        ):
            return C.TakeDiscard()
        return C.Draw()
    if (
        rules.discard_pile == "closed"
        and not rules.add_to_any_meld
        and not may_use(state, seat, pile[-1])
    ):
        return C.Draw()  # nothing could take the pile: no need for a full view
    best: tuple[int, int, Plan | None, tuple[int, int] | None] | None = None
    if rules.discard_pile == "any_depth":
        # Each depth's takes score at most 3 per card taken plus ``plan_bound`` (a
        # new meld) or 1 (an add), all read off the hand and the hooks before the
        # whole view; only depths that may reach DEEP_TAKE are looked at, from the
        # deepest up, and not those that cannot reach the best take found so far (on
        # a tie the shallower depth wins: it comes first in the full ranked list).
        team = rules.team_of(seat)
        own = state.melds[team]
        hand = state.hands[seat]
        n_hand = len(hand)
        if memory.facts_of(rules, own).closable or state.muerto_status[team] == M_TABLE:
            need = 0 if rules.go_out_by_meld else 1
        else:  # (``View.take_need``)
            reserve = len(state.stock) // (rules.players * STOCK_TURNS)
            need = max(2, min(reserve, RESERVE, n_hand + 1))
        if n_hand + len(pile) - 1 < need:
            return C.Draw()  # no take keeps enough cards
        h = memory.hand_of(hand)
        hooked = hooked_sides(state)
        me = 1 << team
        others = ~me if rules.add_to_any_meld else 0
        live: list[tuple[int, int]] = []  # (bound, depth), deepest first
        for depth in range(len(pile), 0, -1):
            size = n_hand + depth
            if size - 1 < need:
                break  # this and every shallower take keep too few cards
            card = pile[-depth]
            if WILD_CAPABLE[card]:
                bound = 1
            elif 3 * depth + 1 < DEEP_TAKE:  # an add (1 at most) cannot do: a meld?
                if size - 3 < need:
                    continue
                bound = plan_bound(h, card, rules, depth >= 3)
            else:
                sides = 0
                for bit, side_hooks in hooked:
                    if card in side_hooks:
                        sides |= bit
                bound = 1 if sides & me else 0 if sides & others else -1
                if size - 3 >= need:
                    bound = max(bound, plan_bound(h, card, rules, depth >= 3))
                if bound < 0:
                    continue  # no take at all
            if 3 * depth + bound >= DEEP_TAKE:
                live.append((3 * depth + bound, depth))
        if not live:
            return C.Draw()
        v = memory.view(state, seat)
        own_hooks = hooks_of(rules, own)
        other_hooks = memory.other_hooks_of(state, team) if rules.add_to_any_meld else []
        for bound, depth in live:
            if best is not None and bound < best[0]:
                continue
            top = None  # the first of this depth's takes with its best score
            for take in takes_at(memory, state, v, depth, own_hooks, other_hooks):
                if top is None or take[0] > top[0]:
                    top = take
            if top is not None and top[0] >= DEEP_TAKE and (best is None or top[0] >= best[0]):
                best = top
        depths: range | tuple[int, ...] = range(1, len(pile) + 1)
        floor = DEEP_TAKE
    else:
        v = memory.view(state, seat)
        depths, floor = (1,), 0
        # a closed pile offers one card: look it up meld by meld, not in a table
        own_hooks = (
            hooks_of(rules, v.own)
            if WILD_CAPABLE[pile[-1]]
            else {pile[-1]: hooks_for(v.own, pile[-1], rules)}
        )
        other_hooks = memory.other_hooks_of(state, v.team) if rules.add_to_any_meld else []
        for take in takes_at(memory, state, v, 1, own_hooks, other_hooks):
            if best is None or take[0] > best[0]:
                best = take
    if best is None:
        return C.Draw()
    cmd = take_cmd(pile, best)
    if accepts(state, seat, cmd):
        return cmd
    # refused (never seen): every take, best first, as the engine accepts them
    takes = [
        t
        for depth in depths
        for t in takes_at(memory, state, v, depth, own_hooks, other_hooks)
        if t[0] >= floor
    ]
    takes.sort(key=lambda t: -t[0])
    found = first_accepted(state, seat, (take_cmd(pile, t) for t in takes))
    return found if found is not None else C.Draw()


def take_cmd(
    pile: tuple[int, ...], take: tuple[int, int, Plan | None, tuple[int, int] | None]
) -> C.Command:
    _, depth, plan, where = take
    if plan is not None:
        return C.TakeDiscard(depth, without(plan.cards, pile[-depth]))
    return C.TakeDiscard(depth, None, where)


def takes_at(
    memory: Memory,
    state: State,
    v: View,
    depth: int,
    own_hooks: dict[int, list[int]],
    other_hooks: list[tuple[int, tuple[Meld, ...], dict[int, list[int]]]],
) -> list[tuple[int, int, Plan | None, tuple[int, int] | None]]:
    """The takes at ``depth`` we would play: (score, depth, plan, add), in order."""
    rules = v.rules
    pile = state.discard
    card = pile[-depth]
    gain = len(pile) if rules.discard_pile == "closed" else depth
    size = len(v.hand) + gain
    need = v.take_need()  # a take is kept if it leaves at least this many cards
    out: list[tuple[int, int, Plan | None, tuple[int, int] | None]] = []
    add = out.append
    if size - 1 < need:
        return out  # every take leaves too few cards
    if size - 3 >= need:  # (a plan lays 3 cards or more)
        for plan in plans_with(v.h, card, rules, gain >= 3, v.group_ranks):
            if size - len(plan.cards) >= need:
                add((3 * gain + plan.score, depth, plan, None))
    team = v.team
    if not WILD_CAPABLE[card]:
        for index in own_hooks.get(card, ()):
            add((3 * gain + 1, depth, None, (team, index)))
        for side, melds, side_hooks in other_hooks:
            for index in side_hooks.get(card, ()):
                if gain >= 3 or v.foreign_ok(melds[index], 1):
                    add((3 * gain, depth, None, (side, index)))
        return out
    for index, m in enumerate(v.own):
        if fits(m, card, rules) and v.wild_ok(index):
            add((3 * gain + 1, depth, None, (team, index)))
    for side, index, m in memory.others_of(state, team):
        # a wild dirties their meld: fine unless it makes them a canasta
        if fits(m, card, rules) and (m.size + 1 < 7 or canasta_kind(m, rules) in CLEAN_KINDS):
            add((3 * gain, depth, None, (side, index)))
    return out


def may_use(state: State, seat: int, card: int) -> bool:
    """Could ``card``, on top of a closed pile, go into a new meld with our hand
    (``plans_with``'s first test) or onto one of our melds? If not, we draw."""
    if WILD_CAPABLE[card]:
        return True
    rules = state.rules
    hand = state.hands[seat]
    suit, rank = SUIT[card], RANK[card]
    mask = 0
    same = 0
    wilds = 0
    for c in hand:
        if WILD_CAPABLE[c]:
            wilds += 1
        if SUIT[c] == suit:  # a 2 sets its slot too (the joker's suit is -1)
            mask |= SLOT_BITS[c]
        if RANK[c] == rank:
            same += 1
    if (mask >> 1 | mask << 1 | mask >> 2 | mask << 2) & SLOT_BITS[card]:
        return True
    if rules.groups and same >= (1 if len(state.discard) >= 3 and wilds else 2):
        return True
    return bool(hooks_for(state.melds[rules.team_of(seat)], card, rules))


def may_take_open(state: State, rules: RuleSet, hand: tuple[int, ...]) -> bool:
    """The open pile may always be taken, except a lone card that would strand us."""
    pile = state.discard
    if len(pile) == 1 and rules.single_take_no_discard and all(c == pile[0] for c in hand):
        return accepts(state, state.turn, C.TakeDiscard())
    return True


def fits_ours(rules: RuleSet, own: tuple[Meld, ...], hand: tuple[int, ...], card: int) -> bool:
    """Does ``card`` extend one of our melds or make a meld with our hand?"""
    if WILD_CAPABLE[card]:
        return True
    if any(fits(m, card, rules) for m in own):
        return True
    suit, rank = SUIT[card], RANK[card]
    near = sum(1 for c in hand if SUIT[c] == suit and 0 < abs(RANK[c] - rank) <= 2)
    return near >= 2 or (rules.groups and sum(1 for c in hand if RANK[c] == rank) >= 2)
