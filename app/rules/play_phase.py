"""decide for the play phase: a meld laid, cards added to a meld, the discard that ends
the turn; and the checks every play shares (the phase, the cards held, no stranding).
"""

from __future__ import annotations

from collections.abc import Sequence

from . import commands as C
from . import events as E
from .cards import NAME, remove_cards
from .ending import can_close, can_go_out, close_message, end_hand, end_of_turn
from .errors import RuleViolation
from .evolve import emit, new_tuple, played
from .melds import GROUP, Meld, add_to_meld, build_meld
from .ruleset import RuleSet
from .state import DRAW, M_TABLE, MAX_TURNS, PLAY, State

_FOREIGN = 9  # the field of a Meld that lists the cards other sides laid on it


def need_phase(state: State, phase: str) -> None:
    if state.phase != phase:
        if phase == PLAY:
            raise RuleViolation("must_draw_first", "you must draw first")
        raise RuleViolation("already_drew", "you have already drawn this turn")


def take_from_hand(hand: tuple[int, ...], cards: Sequence[int]) -> tuple[int, ...]:
    rest = remove_cards(hand, cards)
    if rest is None:
        raise RuleViolation("card_not_in_hand", "you do not hold those cards")
    return rest


def after_play(state: State, seat: int, team: int, events: list[E.Event]) -> State:
    """After a meld or add: direct pickup, closing by meld, or the no-stranding check."""
    hand = state.hands[seat]
    rules = state.rules
    if not hand:
        if not rules.go_out_by_meld:
            raise RuleViolation("must_keep_card", "you must keep a card to discard")
        if state.muerto_status[team] == M_TABLE:
            return emit(state, events, E.MuertoTaken(seat, team, state.muertos[team], True))
        if can_close(rules, state.melds[team]):
            return end_hand(state, "closed", team, events)
        raise RuleViolation("cannot_close", close_message(rules))
    single = state.taken_single
    if len(hand) == 1:
        if hand[0] == single:
            raise RuleViolation("stranded", "you would keep only the card you may not discard")
        if not can_go_out(state, team):
            raise RuleViolation(
                "stranded",
                f"you would keep one card you may not discard: {close_message(rules)}",
            )
    elif single >= 0 and all(c == single for c in hand):
        raise RuleViolation("stranded", "you would keep only cards you may not discard")
    return state


def meld_for_team(
    rules: RuleSet,
    team: int,
    team_melds: tuple[Meld, ...],
    cards: Sequence[int],
    wild_as: int | None,
) -> Meld:
    """The meld ``cards`` make for ``team`` beside its ``team_melds``, or RuleViolation
    (a meld laid from the hand, or with a card taken from the pile)."""
    meld = build_meld(cards, rules, team, wild_as)
    if (
        meld.kind == GROUP
        and rules.one_group_per_rank
        and any(m.kind == GROUP and m.rank == meld.rank for m in team_melds)
    ):
        raise RuleViolation("group_rank_taken", "your side already has a group of that rank")
    return meld


def lay(
    state: State, seat: int, cards: Sequence[int], wild_as: int | None, events: list[E.Event]
) -> State:
    rules = state.rules
    team = rules.team_of(seat)
    rest = remove_cards(state.hands[seat], cards)
    if rest is None:
        raise RuleViolation("card_not_in_hand", "you do not hold those cards")
    team_melds = state.melds[team]
    meld = meld_for_team(rules, team, team_melds, cards, wild_as)
    events.append(new_tuple(E.Melded, (seat, tuple(cards), meld)))
    single = state.taken_single
    state = played(state, seat, rest, team, team_melds + (meld,))  # as evolve.py's _ev_melded
    if len(rest) > 1 and single < 0:
        return state  # nothing for after_play to do
    return after_play(state, seat, team, events)


def add_to(
    state: State,
    seat: int,
    team: int,
    index: int,
    cards: Sequence[int],
    wild_as: int | None,
    events: list[E.Event],
) -> State:
    rules = state.rules
    own = rules.team_of(seat)
    if not (isinstance(team, int) and 0 <= team < rules.teams):
        raise RuleViolation("no_such_meld", "there is no such meld")
    melds = state.melds[team]
    if not (isinstance(index, int) and 0 <= index < len(melds)):
        raise RuleViolation("no_such_meld", "there is no such meld")
    if team != own and not rules.add_to_any_meld:
        raise RuleViolation("not_your_meld", "you may add only to your own side's melds")
    rest = remove_cards(state.hands[seat], cards)
    if rest is None:
        raise RuleViolation("card_not_in_hand", "you do not hold those cards")
    meld = add_to_meld(melds[index], cards, rules, wild_as)
    if team != own:
        foreign = tuple(sorted(meld.foreign + tuple((own, c) for c in cards)))
        meld = new_tuple(Meld, (*meld[:_FOREIGN], foreign))
    events.append(new_tuple(E.Added, (seat, team, index, tuple(cards), meld)))
    team_melds = list(melds)
    team_melds[index] = meld
    single = state.taken_single
    state = played(state, seat, rest, team, tuple(team_melds))  # as evolve.py's _ev_added
    if len(rest) > 1 and single < 0:
        return state  # nothing for after_play to do
    return after_play(state, seat, own, events)


def meld_cmd(state: State, seat: int, cmd: C.LayMeld, events: list[E.Event]) -> State:
    if state.phase != PLAY:
        need_phase(state, PLAY)
    return lay(state, seat, tuple(cmd.cards), cmd.wild_as, events)


def add_cmd(state: State, seat: int, cmd: C.AddToMeld, events: list[E.Event]) -> State:
    if state.phase != PLAY:
        need_phase(state, PLAY)
    return add_to(state, seat, cmd.team, cmd.index, tuple(cmd.cards), cmd.wild_as, events)


def discard(state: State, seat: int, cmd: C.Discard, events: list[E.Event]) -> State:
    if state.phase != PLAY:
        need_phase(state, PLAY)
    card = cmd.card
    hand = state.hands[seat]
    try:
        i = hand.index(card)
    except ValueError:
        raise RuleViolation("card_not_in_hand", "you do not hold that card") from None
    if card == state.taken_single:
        raise RuleViolation(
            "cannot_discard_taken_card",
            f"you took {NAME[card]} alone from the pile and cannot discard it this turn",
        )
    if len(hand) == 1:
        rules = state.rules
        team = rules.team_of(seat)
        if state.muerto_status[team] == M_TABLE:
            state = emit(state, events, E.Discarded(seat, card))
            state = emit(state, events, E.MuertoTaken(seat, team, state.muertos[team], False))
            return end_of_turn(state, events)
        if not can_close(rules, state.melds[team]):
            raise RuleViolation("cannot_close", close_message(rules))
        state = emit(state, events, E.Discarded(seat, card))
        return end_hand(state, "closed", team, events)
    events.append(new_tuple(E.Discarded, (seat, card)))
    # evolve.py's _ev_discarded, with the card's place in the hand known
    (
        rules,
        _,
        _,
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
    new_hands = list(hands)
    new_hands[seat] = hand[:i] + hand[i + 1 :]
    turns += 1
    state = new_tuple(
        State,
        (
            rules,
            DRAW,
            (seat + 1) % rules.players,
            tuple(new_hands),
            melds,
            stock,
            discard + (card,),
            muertos,
            status,
            taker,
            -1,
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
    if len(stock) > rules.stock_end and turns < MAX_TURNS:
        return state  # the common end of a turn (_end_of_turn, without the call)
    return end_of_turn(state, events)
