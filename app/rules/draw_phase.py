"""decide for the draw phase: a card drawn from the stock, or the discard pile taken
(whole, or down to a depth where the rules allow it), with its card laid at once where
the rules want it played.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import commands as C
from . import events as E
from .ending import exhaust_stock
from .errors import RuleViolation
from .evolve import ev_took, new_tuple, start_turn
from .play_phase import (
    add_cmd,
    add_to,
    after_play,
    meld_cmd,
    meld_for_team,
    need_phase,
    take_from_hand,
)
from .state import DRAW, M_TAKEN, PLAY, State


def draw(state: State, seat: int, cmd: C.Draw, events: list[E.Event]) -> State:
    if state.phase != DRAW:
        need_phase(state, DRAW)
    (
        rules,
        _,
        turn,
        hands,
        melds,
        stock,
        discard,
        muertos,
        status,
        taker,
        single,
        hand_no,
        first,
        match_first,
        turns,
        closer,
        reason,
        scores,
        totals,
        winner,
        match_winner,
    ) = state
    if not stock:
        raise RuleViolation("stock_empty", "the stock is empty")
    card = stock[0]
    events.append(new_tuple(E.Drew, (seat, card)))
    # evolve.py's _ev_drew, inline
    if M_TAKEN in status:
        status = start_turn(state, seat)[0]
    new_hands = list(hands)
    new_hands[seat] = tuple(sorted(hands[seat] + (card,)))
    state = new_tuple(
        State,
        (
            rules,
            PLAY,
            turn,
            tuple(new_hands),
            melds,
            stock[1:],
            discard,
            muertos,
            status,
            taker,
            single,
            hand_no,
            first,
            match_first,
            turns,
            closer,
            reason,
            scores,
            totals,
            winner,
            match_winner,
        ),
    )
    if len(stock) - 1 > rules.stock_end:
        return state
    return exhaust_stock(state, events)


def take(state: State, seat: int, cmd: C.TakeDiscard, events: list[E.Event]) -> State:
    if state.phase != DRAW:
        need_phase(state, DRAW)
    pile = state.discard
    if not pile:
        raise RuleViolation("pile_empty", "the discard pile is empty")
    depth, meld, add, wild_as = cmd
    if not isinstance(depth, int) or depth < 1 or depth > len(pile):
        raise RuleViolation("bad_depth", "there is no card at that depth in the pile")
    mode = state.rules.discard_pile
    if depth > 1 and mode != "any_depth":
        raise RuleViolation("bad_depth", "the pile is taken whole")
    plays = (meld is not None) + (add is not None)
    if plays > 1:
        raise RuleViolation("bad_command", "play the card either in a meld or on one meld")
    if mode != "open" and not plays:
        raise RuleViolation(
            "pile_needs_play", "to take the pile you must play the card you take at once"
        )
    if mode == "open" and wild_as is not None and not plays:
        raise RuleViolation("bad_wild_slot", "there is no wild card to place")
    if mode == "any_depth":
        taken = pile[-depth:]  # the card taken for, and every card above it
        card = taken[0]
    else:
        taken = pile  # the whole pile; the play is with its top card
        card = pile[-1]
    if meld is not None:
        # the partners of the taken card come from the hand
        rest = take_from_hand(state.hands[seat], meld)
        events.append(new_tuple(E.TookPile, (seat, taken)))
        return take_andlay(state, seat, taken, card, meld, rest, wild_as, events)
    event: E.TookPile = new_tuple(E.TookPile, (seat, taken))
    events.append(event)
    state = ev_took(state, event)
    if add is not None:
        team, index = add
        return add_to(state, seat, team, index, (card,), wild_as, events)
    single = state.taken_single
    if single >= 0 and all(c == single for c in state.hands[seat]) and not can_lay_all(state, seat):
        raise RuleViolation("stranded", "you would hold only cards you may not discard")
    return state


def take_andlay(
    state: State,
    seat: int,
    taken: tuple[int, ...],
    card: int,
    meld: Sequence[int],
    rest: tuple[int, ...],
    wild_as: int | None,
    events: list[E.Event],
) -> State:
    """ev_took of the TookPile just emitted, then play_phase.lay of ``card`` and ``meld``, in one
    step: the same checks in the same order and the same final state, without building
    the state between them. ``rest`` is the hand before the take minus ``meld``."""
    (
        rules,
        _,
        turn,
        hands,
        melds,
        stock,
        discard,
        muertos,
        status,
        taker,
        _,
        hand_no,
        first,
        match_first,
        turns,
        closer,
        reason,
        scores,
        totals,
        winner,
        match_winner,
    ) = state
    team = rules.team_of(seat)
    cards = (card, *meld)
    team_melds = melds[team]
    new_meld = meld_for_team(rules, team, team_melds, cards, wild_as)
    events.append(new_tuple(E.Melded, (seat, cards, new_meld)))
    if M_TAKEN in status:  # as ev_took
        status = start_turn(state, seat)[0]
    single = taken[0] if len(taken) == 1 and rules.single_take_no_discard else -1
    others = list(taken)
    others.remove(card)
    # the hand after the take minus the melded cards (both sorted multisets)
    hand = tuple(sorted((*rest, *others)))
    new_hands = list(hands)
    new_hands[seat] = hand
    new_melds = list(melds)
    new_melds[team] = team_melds + (new_meld,)
    state = new_tuple(
        State,
        (
            rules,
            PLAY,
            turn,
            tuple(new_hands),
            tuple(new_melds),
            stock,
            discard[: len(discard) - len(taken)],
            muertos,
            status,
            taker,
            single,
            hand_no,
            first,
            match_first,
            turns,
            closer,
            reason,
            scores,
            totals,
            winner,
            match_winner,
        ),
    )
    if len(hand) > 1 and single < 0:
        return state  # nothing for after_play to do
    return after_play(state, seat, team, events)


def can_lay_all(state: State, seat: int) -> bool:
    """No stranding (docs/rules-reference.md, "Never stranded") for a single card taken
    alone: the hand holds only copies of it, none of which may be discarded, so the take
    stands only if one meld or add can lay the whole hand down (a play that leaves a copy
    behind is refused as stranded)."""
    hand = state.hands[seat]
    rules = state.rules
    own = rules.team_of(seat)
    teams = range(rules.teams) if rules.add_to_any_meld else (own,)
    try:
        meld_cmd(state, seat, C.LayMeld(hand), [])
    except RuleViolation:
        pass
    else:
        return True
    for t in teams:
        for i in range(len(state.melds[t])):
            try:
                add_cmd(state, seat, C.AddToMeld(t, i, hand), [])
            except RuleViolation:
                continue
            return True
    return False
