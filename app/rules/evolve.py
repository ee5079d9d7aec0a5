"""evolve: an event applied to a state (DESIGN.md convention 2).

``evolve(state, event)`` never fails: events are facts, already validated by the phase
that decided them (``draw_phase.py``, ``play_phase.py``, ``ending.py``). It dispatches
on the event type; the decide side calls ``emit`` (append the event, evolve at once) so
that its later checks see the new state, and the commonest commands build the next
state themselves exactly as these functions would (a property test folds every step's
events and compares).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from . import events as E
from .cards import add_cards, remove_cards
from .melds import Meld
from .state import (
    DRAW,
    HAND_OVER,
    M_NONE,
    M_STOCK,
    M_TABLE,
    M_TAKEN,
    M_USED,
    OVER,
    PLAY,
    State,
)


def evolve(state: State, event: E.Event) -> State:
    return _EVOLVE[type(event)](state, event)


def fold(state: State, events: Iterable[E.Event]) -> State:
    for event in events:
        state = evolve(state, event)
    return state


def emit(state: State, events: list[E.Event], event: E.Event) -> State:
    """Record ``event`` among a command's ``events`` and apply it at once."""
    events.append(event)
    return evolve(state, event)


def _set_hand(state: State, seat: int, hand: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    hands = list(state.hands)
    hands[seat] = hand
    return tuple(hands)


# Evolve builds the next state from a list of the fields (tuple.__new__) rather than with
# _replace, which is several times slower: it runs on every command. Field positions:
_HANDS, _MELDS = 3, 4
new_tuple = tuple.__new__


def start_turn(state: State, seat: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Muerto status and takers once ``seat`` starts a turn (a taken muerto is now used)."""
    team = state.rules.team_of(seat)
    status = state.muerto_status
    if status[team] == M_TAKEN and state.muerto_taker[team] == seat:
        status = status[:team] + (M_USED,) + status[team + 1 :]
    return status, state.muerto_taker


def _ev_started(state: State, e: E.HandStarted) -> State:
    rules = state.rules
    teams = rules.teams
    muertos = e.muertos if e.muertos else ((),) * teams
    status = tuple(M_TABLE if rules.muertos else M_NONE for _ in range(teams))
    return state._replace(
        phase=DRAW,
        turn=e.first,
        hands=e.hands,
        melds=((),) * teams,
        stock=e.stock,
        discard=e.discard,
        muertos=muertos,
        muerto_status=status,
        muerto_taker=(-1,) * teams,
        taken_single=-1,
        hand_no=e.hand_no,
        first=e.first,
        match_first=e.first if e.hand_no == 1 else state.match_first,
        turns=0,
        closer=-1,
        end_reason="",
        winner=-1,
    )


def _ev_drew(state: State, e: E.Drew) -> State:
    seat, card = e
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
    if M_TAKEN in status:
        status = start_turn(state, seat)[0]
    new_hands = list(hands)
    new_hands[seat] = tuple(sorted(hands[seat] + (card,)))
    return new_tuple(
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


def ev_took(state: State, e: E.TookPile) -> State:
    seat, cards = e
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
    if M_TAKEN in status:
        status = start_turn(state, seat)[0]
    single = cards[0] if len(cards) == 1 and rules.single_take_no_discard else -1
    new_hands = list(hands)
    new_hands[seat] = tuple(sorted((*hands[seat], *cards)))  # add_cards
    return new_tuple(
        State,
        (
            rules,
            PLAY,
            turn,
            tuple(new_hands),
            melds,
            stock,
            discard[: len(discard) - len(cards)],
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


def played(
    state: State, seat: int, hand: tuple[int, ...], team: int, team_melds: tuple[Meld, ...]
) -> State:
    """The state with the seat's hand and one side's melds replaced (a meld or an add)."""
    fields = list(state)
    hands = list(state.hands)
    hands[seat] = hand
    fields[_HANDS] = tuple(hands)
    melds = list(state.melds)
    melds[team] = team_melds
    fields[_MELDS] = tuple(melds)
    return new_tuple(State, fields)


def _ev_melded(state: State, e: E.Melded) -> State:
    hand = remove_cards(state.hands[e.seat], e.cards) or ()
    team = e.meld.owner
    return played(state, e.seat, hand, team, state.melds[team] + (e.meld,))


def _ev_added(state: State, e: E.Added) -> State:
    hand = remove_cards(state.hands[e.seat], e.cards) or ()
    team_melds = list(state.melds[e.team])
    team_melds[e.index] = e.meld
    return played(state, e.seat, hand, e.team, tuple(team_melds))


def _ev_discarded(state: State, e: E.Discarded) -> State:
    seat, card = e
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
    hand = hands[seat]
    if card in hand:
        i = hand.index(card)
        hand = hand[:i] + hand[i + 1 :]
    else:
        hand = ()
    new_hands = list(hands)
    new_hands[seat] = hand
    return new_tuple(
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
            turns + 1,
            closer,
            reason,
            scores,
            totals,
            winner,
            match_winner,
        ),
    )


def _ev_muerto(state: State, e: E.MuertoTaken) -> State:
    team = e.team
    status = M_USED if e.direct else M_TAKEN
    return state._replace(
        hands=_set_hand(state, e.seat, add_cards(state.hands[e.seat], e.cards)),
        muertos=state.muertos[:team] + ((),) + state.muertos[team + 1 :],
        muerto_status=state.muerto_status[:team] + (status,) + state.muerto_status[team + 1 :],
        muerto_taker=state.muerto_taker[:team] + (e.seat,) + state.muerto_taker[team + 1 :],
    )


def _ev_to_stock(state: State, e: E.MuertoToStock) -> State:
    team = e.team
    return state._replace(
        stock=state.stock + state.muertos[team],
        muertos=state.muertos[:team] + ((),) + state.muertos[team + 1 :],
        muerto_status=state.muerto_status[:team] + (M_STOCK,) + state.muerto_status[team + 1 :],
    )


def _ev_ended(state: State, e: E.HandEnded) -> State:
    return state._replace(
        phase=OVER if e.match_over else HAND_OVER,
        closer=e.closer,
        end_reason=e.reason,
        hand_scores=tuple(s["total"] for s in e.scores),
        totals=e.totals,
        winner=e.winner,
        match_winner=e.match_winner,
    )


_EVOLVE: dict[type, Callable[[State, Any], State]] = {
    E.HandStarted: _ev_started,
    E.Drew: _ev_drew,
    E.TookPile: ev_took,
    E.Melded: _ev_melded,
    E.Added: _ev_added,
    E.Discarded: _ev_discarded,
    E.MuertoTaken: _ev_muerto,
    E.MuertoToStock: _ev_to_stock,
    E.HandEnded: _ev_ended,
}
