"""decide / evolve: the life of a command (DESIGN.md convention 2).

``decide(state, seat, command)`` validates a command and returns the events it causes,
or raises RuleViolation; ``evolve(state, event)`` applies one event and never fails.
``apply`` does both at once (the fast path the table service and the bots use): the
events it returns fold with ``evolve`` into exactly the state it returns.

This module checks the turn and hands the command to its phase: ``draw_phase.py`` (draw,
take the pile), ``play_phase.py`` (meld, add, discard); ``ending.py`` ends turns and
hands, ``evolve.py`` applies events. The table's own ``Deal`` is decided here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from . import commands as C
from . import events as E
from .draw_phase import draw, take
from .ending import exhaust_stock
from .errors import RuleViolation
from .evolve import evolve, fold
from .play_phase import add_cmd, discard, meld_cmd
from .state import DRAW, HAND_OVER, OVER, PLAY, State


def decide(state: State, seat: int, command: C.Command) -> list[E.Event]:
    return apply(state, seat, command)[0]


def apply(state: State, seat: object, command: object) -> tuple[list[E.Event], State]:
    # ``seat`` and ``command`` come typed ``object``: anything a caller hands in gets a
    # RuleViolation, never a TypeError (also where mypyc compiles this module, which
    # checks the declared type of every argument, and would turn True into seat 1)
    if type(command) is C.Deal:
        if seat != C.SYSTEM:
            raise RuleViolation("not_allowed", "only the table deals")
        return deal(state, command)
    last = _last[0]
    if last is not None and last[0] is state and last[2] is command and last[1] is seat:
        return list(last[3]), last[4]
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise RuleViolation("bad_command", "unknown command")
    if not (
        type(seat) is int and seat == state.turn and (state.phase == DRAW or state.phase == PLAY)
    ):
        check_turn(state, seat)  # the seat to play, during a hand, passes without a call
    events: list[E.Event] = []
    # (``check_turn`` let only an int through)
    new = handler(state, cast(int, seat), cast(C.Command, command), events)
    _last[0] = (state, seat, command, tuple(events), new)
    return events, new


# The last command accepted and its outcome. States are immutable and apply is a pure
# function, so when a bot has checked its move and the caller then plays it (the very
# same state, seat and command objects), the second apply is answered from here.
_last: list[tuple[State, object, object, tuple[E.Event, ...], State] | None] = [None]


# ---------------------------------------------------------------- checks


def check_turn(state: State, seat: object) -> None:
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


def deal(state: State, cmd: C.Deal) -> tuple[list[E.Event], State]:
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
    return events, exhaust_stock(new, events)


_HANDLERS: dict[type, Callable[..., State]] = {
    C.Draw: draw,
    C.TakeDiscard: take,
    C.LayMeld: meld_cmd,
    C.AddToMeld: add_cmd,
    C.Discard: discard,
}

__all__ = ["apply", "decide", "evolve", "fold"]
