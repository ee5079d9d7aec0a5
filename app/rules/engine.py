"""decide / evolve: the life of a command (DESIGN.md convention 2).

``decide(state, seat, command)`` validates a command and returns the events it causes,
or raises RuleViolation; ``evolve(state, event)`` applies one event and never fails.
``apply`` does both at once (the fast path the table service and the bots use): the
events it returns fold with ``evolve`` into exactly the state it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

from . import commands as C
from . import events as E
from .cards import NAME, add_cards, remove_cards
from .errors import RuleViolation
from .melds import CLEAN_KINDS, GROUP, Meld, add_to_meld, build_meld, canasta_kind
from .ruleset import RuleSet
from .scoring import best_team, score_hand
from .state import (
    DRAW,
    HAND_OVER,
    M_NONE,
    M_STOCK,
    M_TABLE,
    M_TAKEN,
    M_USED,
    MAX_HANDS,
    MAX_TURNS,
    OVER,
    PLAY,
    State,
)


def decide(state: State, seat: int, command: C.Command) -> list[E.Event]:
    return apply(state, seat, command)[0]


def evolve(state: State, event: E.Event) -> State:
    return _EVOLVE[type(event)](state, event)


def fold(state: State, events: Iterable[E.Event]) -> State:
    for event in events:
        state = evolve(state, event)
    return state


def apply(state: State, seat: object, command: object) -> tuple[list[E.Event], State]:
    # ``seat`` and ``command`` come typed ``object``: anything a caller hands in gets a
    # RuleViolation, never a TypeError (also where mypyc compiles this module, which
    # checks the declared type of every argument, and would turn True into seat 1)
    if type(command) is C.Deal:
        if seat != C.SYSTEM:
            raise RuleViolation("not_allowed", "only the table deals")
        return _deal(state, command)
    last = _last[0]
    if last is not None and last[0] is state and last[2] is command and last[1] is seat:
        return list(last[3]), last[4]
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise RuleViolation("bad_command", "unknown command")
    if not (
        type(seat) is int and seat == state.turn and (state.phase == DRAW or state.phase == PLAY)
    ):
        _check_turn(state, seat)  # the seat to play, during a hand, passes without a call
    events: list[E.Event] = []
    # (``_check_turn`` let only an int through)
    new = handler(state, cast(int, seat), cast(C.Command, command), events)
    _last[0] = (state, seat, command, tuple(events), new)
    return events, new


# The last command accepted and its outcome. States are immutable and apply is a pure
# function, so when a bot has checked its move and the caller then plays it (the very
# same state, seat and command objects), the second apply is answered from here.
_last: list[tuple[State, object, object, tuple[E.Event, ...], State] | None] = [None]


# ---------------------------------------------------------------- checks


def _check_turn(state: State, seat: object) -> None:
    if type(seat) is int and seat == state.turn and (state.phase == DRAW or state.phase == PLAY):
        return  # the common case: the seat to play, during a hand
    if state.phase == OVER:
        raise RuleViolation("game_over", "the game is over")
    if state.phase == HAND_OVER:
        raise RuleViolation("hand_over", "the hand is over")
    if not (type(seat) is int and 0 <= seat < state.rules.players):  # (True is no seat)
        raise RuleViolation("bad_seat", "there is no such seat")
    if seat != state.turn:
        raise RuleViolation("not_your_turn", "it is not your turn")


def _need_phase(state: State, phase: str) -> None:
    if state.phase != phase:
        if phase == PLAY:
            raise RuleViolation("must_draw_first", "you must draw first")
        raise RuleViolation("already_drew", "you have already drawn this turn")


def _take_from_hand(hand: tuple[int, ...], cards: Sequence[int]) -> tuple[int, ...]:
    rest = remove_cards(hand, cards)
    if rest is None:
        raise RuleViolation("card_not_in_hand", "you do not hold those cards")
    return rest


def can_close(rules: RuleSet, melds: tuple[Meld, ...]) -> bool:
    """Does a side own a canasta of a kind in ``close_requires``?"""
    for m in melds:
        kind = canasta_kind(m, rules)
        if kind and (rules.close_requires == "any" or kind in CLEAN_KINDS):
            return True
    return False


def _close_message(rules: RuleSet) -> str:
    need = "a clean canasta" if rules.close_requires == "clean" else "a canasta"
    return f"you cannot close without {need}"


def can_go_out(state: State, team: int, melds: tuple[Meld, ...] | None = None) -> bool:
    """Could the side's player empty his hand now (muerto to take, or a closing)?"""
    if state.muerto_status[team] == M_TABLE:
        return True
    return can_close(state.rules, state.melds[team] if melds is None else melds)


def _after_play(state: State, seat: int, team: int, events: list[E.Event]) -> State:
    """After a meld or add: direct pickup, closing by meld, or the no-stranding check."""
    hand = state.hands[seat]
    rules = state.rules
    if not hand:
        if not rules.go_out_by_meld:
            raise RuleViolation("must_keep_card", "you must keep a card to discard")
        if state.muerto_status[team] == M_TABLE:
            return _emit(state, events, E.MuertoTaken(seat, team, state.muertos[team], True))
        if can_close(rules, state.melds[team]):
            return _end_hand(state, "closed", team, events)
        raise RuleViolation("cannot_close", _close_message(rules))
    single = state.taken_single
    if len(hand) == 1:
        if hand[0] == single:
            raise RuleViolation("stranded", "you would keep only the card you may not discard")
        if not can_go_out(state, team):
            raise RuleViolation(
                "stranded",
                f"you would keep one card you may not discard: {_close_message(rules)}",
            )
    elif single >= 0 and all(c == single for c in hand):
        raise RuleViolation("stranded", "you would keep only cards you may not discard")
    return state


def _emit(state: State, events: list[E.Event], event: E.Event) -> State:
    events.append(event)
    return evolve(state, event)


# ---------------------------------------------------------------- commands


def _draw(state: State, seat: int, cmd: C.Draw, events: list[E.Event]) -> State:
    if state.phase != DRAW:
        _need_phase(state, DRAW)
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
    events.append(_new_tuple(E.Drew, (seat, card)))
    # _ev_drew, inline
    if M_TAKEN in status:
        status = _start_turn(state, seat)[0]
    new_hands = list(hands)
    new_hands[seat] = tuple(sorted(hands[seat] + (card,)))
    state = _new_tuple(
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
    return _exhaust_stock(state, events)


def _exhaust_stock(state: State, events: list[E.Event]) -> State:
    """Section 7: a muerto goes under the stock as soon as the stock runs low."""
    while len(state.stock) <= state.rules.stock_end and M_TABLE in state.muerto_status:
        team = state.muerto_status.index(M_TABLE)  # team 0's first, then team 1's
        state = _emit(state, events, E.MuertoToStock(team))
    return state


def _take(state: State, seat: int, cmd: C.TakeDiscard, events: list[E.Event]) -> State:
    if state.phase != DRAW:
        _need_phase(state, DRAW)
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
        rest = _take_from_hand(state.hands[seat], meld)
        events.append(_new_tuple(E.TookPile, (seat, taken)))
        return _take_and_lay(state, seat, taken, card, meld, rest, wild_as, events)
    event: E.TookPile = _new_tuple(E.TookPile, (seat, taken))
    events.append(event)
    state = _ev_took(state, event)
    if add is not None:
        team, index = add
        return _add(state, seat, team, index, (card,), wild_as, events)
    single = state.taken_single
    if (
        single >= 0
        and all(c == single for c in state.hands[seat])
        and not _can_lay_all(state, seat)
    ):
        raise RuleViolation("stranded", "you would hold only cards you may not discard")
    return state


def _take_and_lay(
    state: State,
    seat: int,
    taken: tuple[int, ...],
    card: int,
    meld: Sequence[int],
    rest: tuple[int, ...],
    wild_as: int | None,
    events: list[E.Event],
) -> State:
    """_ev_took of the TookPile just emitted, then _lay of ``card`` and ``meld``, in one
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
    new_meld = _meld_for_team(rules, team, team_melds, cards, wild_as)
    events.append(_new_tuple(E.Melded, (seat, cards, new_meld)))
    if M_TAKEN in status:  # as _ev_took
        status = _start_turn(state, seat)[0]
    single = taken[0] if len(taken) == 1 and rules.single_take_no_discard else -1
    others = list(taken)
    others.remove(card)
    # the hand after the take minus the melded cards (both sorted multisets)
    hand = tuple(sorted((*rest, *others)))
    new_hands = list(hands)
    new_hands[seat] = hand
    new_melds = list(melds)
    new_melds[team] = team_melds + (new_meld,)
    state = _new_tuple(
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
        return state  # nothing for _after_play to do
    return _after_play(state, seat, team, events)


def _can_lay_all(state: State, seat: int) -> bool:
    """No stranding (section 6) for a single card taken alone: the hand holds only copies
    of it, none of which may be discarded, so the take stands only if one meld or add can
    lay the whole hand down (a play that leaves a copy behind is refused as stranded)."""
    hand = state.hands[seat]
    rules = state.rules
    own = rules.team_of(seat)
    teams = range(rules.teams) if rules.add_to_any_meld else (own,)
    plays: list[C.Command] = [C.LayMeld(hand)]
    plays += [C.AddToMeld(t, i, hand) for t in teams for i in range(len(state.melds[t]))]
    for play in plays:
        try:
            _HANDLERS[type(play)](state, seat, play, [])
        except RuleViolation:
            continue
        return True
    return False


def _meld_for_team(
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


def _lay(
    state: State, seat: int, cards: Sequence[int], wild_as: int | None, events: list[E.Event]
) -> State:
    rules = state.rules
    team = rules.team_of(seat)
    rest = remove_cards(state.hands[seat], cards)
    if rest is None:
        raise RuleViolation("card_not_in_hand", "you do not hold those cards")
    team_melds = state.melds[team]
    meld = _meld_for_team(rules, team, team_melds, cards, wild_as)
    events.append(_new_tuple(E.Melded, (seat, tuple(cards), meld)))
    single = state.taken_single
    state = _played(state, seat, rest, team, team_melds + (meld,))  # as _ev_melded
    if len(rest) > 1 and single < 0:
        return state  # nothing for _after_play to do
    return _after_play(state, seat, team, events)


def _add(
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
        meld = _new_tuple(Meld, (*meld[:_FOREIGN], foreign))
    events.append(_new_tuple(E.Added, (seat, team, index, tuple(cards), meld)))
    team_melds = list(melds)
    team_melds[index] = meld
    single = state.taken_single
    state = _played(state, seat, rest, team, tuple(team_melds))  # as _ev_added
    if len(rest) > 1 and single < 0:
        return state  # nothing for _after_play to do
    return _after_play(state, seat, own, events)


def _meld_cmd(state: State, seat: int, cmd: C.LayMeld, events: list[E.Event]) -> State:
    if state.phase != PLAY:
        _need_phase(state, PLAY)
    return _lay(state, seat, tuple(cmd.cards), cmd.wild_as, events)


def _add_cmd(state: State, seat: int, cmd: C.AddToMeld, events: list[E.Event]) -> State:
    if state.phase != PLAY:
        _need_phase(state, PLAY)
    return _add(state, seat, cmd.team, cmd.index, tuple(cmd.cards), cmd.wild_as, events)


def _discard(state: State, seat: int, cmd: C.Discard, events: list[E.Event]) -> State:
    if state.phase != PLAY:
        _need_phase(state, PLAY)
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
            state = _emit(state, events, E.Discarded(seat, card))
            state = _emit(state, events, E.MuertoTaken(seat, team, state.muertos[team], False))
            return _end_of_turn(state, events)
        if not can_close(rules, state.melds[team]):
            raise RuleViolation("cannot_close", _close_message(rules))
        state = _emit(state, events, E.Discarded(seat, card))
        return _end_hand(state, "closed", team, events)
    events.append(_new_tuple(E.Discarded, (seat, card)))
    # _ev_discarded, with the card's place in the hand known
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
    state = _new_tuple(
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
    return _end_of_turn(state, events)


def _end_of_turn(state: State, events: list[E.Event]) -> State:
    if len(state.stock) <= state.rules.stock_end and M_TABLE not in state.muerto_status:
        return _end_hand(state, "stock", -1, events)
    if state.turns >= MAX_TURNS:
        return _end_hand(state, "turn_cap", -1, events)
    return state


def _end_hand(state: State, reason: str, closer: int, events: list[E.Event]) -> State:
    rules = state.rules
    scores = score_hand(state, closer)
    hand_totals = [s["total"] for s in scores]
    winner = best_team(rules, hand_totals, state.first)
    totals = tuple(t + h for t, h in zip(state.totals, hand_totals, strict=True))
    if rules.target_score:
        over = max(totals) >= rules.target_score or state.hand_no >= MAX_HANDS
    else:
        over = True
    match_winner = best_team(rules, totals, state.match_first) if over else -1
    event = E.HandEnded(reason, closer, scores, winner, totals, over, match_winner)
    return _emit(state, events, event)


def _deal(state: State, cmd: C.Deal) -> tuple[list[E.Event], State]:
    rules = state.rules
    if state.phase != HAND_OVER:
        raise RuleViolation("hand_in_play", "a hand is already being played")
    if len(cmd.hands) != rules.players:
        raise RuleViolation("bad_deal", f"a deal needs {rules.players} hands")
    if len(cmd.muertos) not in (0, rules.muertos) or (rules.muertos and not cmd.muertos):
        raise RuleViolation("bad_deal", f"a deal needs {rules.muertos} muertos")
    if not 0 <= cmd.first < rules.players:
        raise RuleViolation("bad_deal", "the first seat is not at the table")
    all_cards = [c for h in cmd.hands for c in h] + [c for m in cmd.muertos for c in m]
    all_cards += list(cmd.stock) + list(cmd.discard)
    if any(not isinstance(c, int) or not 0 <= c <= 52 for c in all_cards):
        raise RuleViolation("bad_deal", "a deal holds only cards")
    event = E.HandStarted(
        state.hand_no + 1,
        cmd.first,
        tuple(tuple(sorted(h)) for h in cmd.hands),
        tuple(tuple(m) for m in cmd.muertos),
        tuple(cmd.stock),
        tuple(cmd.discard),
    )
    events: list[E.Event] = [event]
    new = evolve(state, event)
    return events, _exhaust_stock(new, events)


_HANDLERS: dict[type, Callable[..., State]] = {
    C.Draw: _draw,
    C.TakeDiscard: _take,
    C.LayMeld: _meld_cmd,
    C.AddToMeld: _add_cmd,
    C.Discard: _discard,
}


# ---------------------------------------------------------------- evolve


def _set_hand(state: State, seat: int, hand: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    hands = list(state.hands)
    hands[seat] = hand
    return tuple(hands)


# Evolve builds the next state from a list of the fields (tuple.__new__) rather than with
# _replace, which is several times slower: it runs on every command. Field positions:
_PHASE, _TURN, _HANDS, _MELDS, _STOCK, _DISCARD, _MUERTOS, _STATUS, _TAKER, _SINGLE = range(1, 11)
_TURNS = 14
_FOREIGN = 9  # of a Meld
_new_tuple = tuple.__new__


def _start_turn(state: State, seat: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
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
        status = _start_turn(state, seat)[0]
    new_hands = list(hands)
    new_hands[seat] = tuple(sorted(hands[seat] + (card,)))
    return _new_tuple(
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


def _ev_took(state: State, e: E.TookPile) -> State:
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
        status = _start_turn(state, seat)[0]
    single = cards[0] if len(cards) == 1 and rules.single_take_no_discard else -1
    new_hands = list(hands)
    new_hands[seat] = tuple(sorted((*hands[seat], *cards)))  # add_cards
    return _new_tuple(
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


def _played(
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
    return _new_tuple(State, fields)


def _ev_melded(state: State, e: E.Melded) -> State:
    hand = remove_cards(state.hands[e.seat], e.cards) or ()
    team = e.meld.owner
    return _played(state, e.seat, hand, team, state.melds[team] + (e.meld,))


def _ev_added(state: State, e: E.Added) -> State:
    hand = remove_cards(state.hands[e.seat], e.cards) or ()
    team_melds = list(state.melds[e.team])
    team_melds[e.index] = e.meld
    return _played(state, e.seat, hand, e.team, tuple(team_melds))


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
    return _new_tuple(
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
    E.TookPile: _ev_took,
    E.Melded: _ev_melded,
    E.Added: _ev_added,
    E.Discarded: _ev_discarded,
    E.MuertoTaken: _ev_muerto,
    E.MuertoToStock: _ev_to_stock,
    E.HandEnded: _ev_ended,
}

__all__ = ["apply", "decide", "evolve", "fold", "can_close", "can_go_out", "M_NONE", "M_USED"]
