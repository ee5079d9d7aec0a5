"""Bots: what a bot is, ``RandomBot`` (uniform over legal commands) and ``play_hand``.

A bot looks only at what its seat may see (its hand, the melds, the visible pile, sizes)
and answers one command at a time; the caller applies it and asks again. The bots that
play well are ``greedy.py`` (normal), ``levels.py`` (easy) and ``search.py`` (strong).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from . import commands as C
from .engine import apply
from .errors import RuleViolation
from .legal import legal_commands
from .state import DRAW, PLAY, State


class Rng(Protocol):
    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int: ...


class Bot(Protocol):
    def choose(self, state: State, seat: int) -> C.Command: ...


class RandomBot:
    """Picks uniformly among every legal command."""

    def __init__(self, rng: Rng) -> None:
        self.rng = rng

    def choose(self, state: State, seat: int) -> C.Command:
        options = legal_commands(state, seat)
        return options[self.rng.randrange(len(options))]


def accepts(state: State, seat: int, cmd: C.Command) -> bool:
    """Does the engine take ``cmd`` from ``seat`` now?"""
    try:
        apply(state, seat, cmd)
    except RuleViolation:
        return False
    return True


def first_accepted(state: State, seat: int, cmds: Iterable[C.Command]) -> C.Command | None:
    """The first of ``cmds`` the engine takes (None: none)."""
    for cmd in cmds:
        if accepts(state, seat, cmd):
            return cmd
    return None


def play_hand(state: State, bots: list[Bot], max_steps: int = 20_000) -> State:
    """Let ``bots`` (one per seat) play until the hand ends."""
    steps = 0
    while state.phase in (DRAW, PLAY) and steps < max_steps:
        seat = state.turn
        state = apply(state, seat, bots[seat].choose(state, seat))[1]
        steps += 1
    return state


__all__ = ["Bot", "RandomBot", "Rng", "accepts", "first_accepted", "play_hand"]
