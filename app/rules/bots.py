"""Bots: ``RandomBot`` (uniform over legal commands) and ``GreedyBot``.

A bot looks only at what its seat may see (its hand, the melds, the visible pile, sizes)
and answers one command at a time; the caller applies it and asks again. GreedyBot lays
the biggest melds, builds toward canastas, takes the pile when it pays, discards the
least useful card and closes when it can. It tries its preferred moves best first and
keeps the first one the engine accepts, so it never plays an illegal move.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Protocol

from . import commands as C
from .cards import RANK, SUIT, WILD_CAPABLE
from .engine import apply
from .errors import RuleViolation
from .legal import add_candidates, legal_commands, meld_candidates
from .melds import canasta_kind
from .scoring import card_values
from .state import DRAW, State


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


def _accepts(state: State, seat: int, cmd: C.Command) -> bool:
    try:
        apply(state, seat, cmd)
    except RuleViolation:
        return False
    return True


def _first_accepted(state: State, seat: int, cmds: Iterable[C.Command]) -> C.Command | None:
    for cmd in cmds:
        if _accepts(state, seat, cmd):
            return cmd
    return None


def _meld_rank(cards: tuple[int, ...]) -> tuple[int, int]:
    wilds = sum(1 for c in cards if WILD_CAPABLE[c])
    return (len(cards) - 3 * wilds, -wilds)


class GreedyBot:
    """A simple strong-enough player: see the module docstring."""

    def choose(self, state: State, seat: int) -> C.Command:
        if state.phase == DRAW:
            return self._draw(state, seat)
        return self._play(state, seat)

    # -- drawing

    def _draw(self, state: State, seat: int) -> C.Command:
        rules = state.rules
        pile = state.discard
        hand = state.hands[seat]
        if pile and rules.discard_pile == "open":
            if (len(pile) >= 3 or self._fits(state, seat, pile[-1])) and _accepts(
                state, seat, C.TakeDiscard()
            ):
                return C.TakeDiscard()
        elif pile:
            takes: list[tuple[int, C.Command]] = []
            depths = range(1, len(pile) + 1) if rules.discard_pile == "any_depth" else (1,)
            for depth in depths:
                card = pile[-depth]
                for cards, wild_as in meld_candidates((*hand, card), rules.groups):
                    if card in cards:
                        rest = list(cards)
                        rest.remove(card)
                        takes.append((2 * depth + len(cards),
                                      C.TakeDiscard(depth, tuple(rest), None, wild_as)))
                for team, index in self._meld_targets(state, seat):
                    takes.append((2 * depth, C.TakeDiscard(depth, None, (team, index))))
            takes.sort(key=lambda t: -t[0])
            cmd = _first_accepted(state, seat, (c for _, c in takes))
            if cmd is not None and (takes[0][0] >= 3 or len(pile) >= 2):
                return cmd
        return C.Draw()

    def _fits(self, state: State, seat: int, card: int) -> bool:
        """Does ``card`` extend one of our melds or make a meld with our hand?"""
        if WILD_CAPABLE[card]:
            return True
        for team, index in self._meld_targets(state, seat):
            for cards, _ in add_candidates(state.melds[team][index], (card,)):
                if cards == (card,):
                    return True
        hand = state.hands[seat]
        near = sum(1 for c in hand if SUIT[c] == SUIT[card] and 0 < abs(RANK[c] - RANK[card]) <= 2)
        same = sum(1 for c in hand if RANK[c] == RANK[card] and c != card)
        return near >= 2 or (state.rules.groups and same >= 2)

    def _meld_targets(self, state: State, seat: int) -> list[tuple[int, int]]:
        rules = state.rules
        own = rules.team_of(seat)
        teams = range(rules.teams) if rules.add_to_any_meld else (own,)
        order = [own] + [t for t in teams if t != own]
        return [(t, i) for t in order for i in range(len(state.melds[t]))]

    # -- playing

    def _play(self, state: State, seat: int) -> C.Command:
        rules = state.rules
        hand = state.hands[seat]
        melds = sorted(meld_candidates(hand, rules.groups), key=lambda mw: _meld_rank(mw[0]),
                       reverse=True)
        cmd = _first_accepted(
            state, seat,
            (C.LayMeld(cards, wild_as) for cards, wild_as in melds if _worth(cards, len(hand))),
        )
        if cmd is not None:
            return cmd
        adds: list[tuple[tuple[int, int, int], C.Command]] = []
        for team, index in self._meld_targets(state, seat):
            m = state.melds[team][index]
            for cards, wild_as in add_candidates(m, hand):
                wilds = sum(1 for c in cards if WILD_CAPABLE[c])
                if wilds and canasta_kind(m, rules) in _CLEAN:
                    continue  # a wild would spoil a clean canasta
                reach = 1 if m.size < 7 <= m.size + len(cards) else 0
                adds.append(((reach, len(cards) - 2 * wilds, -wilds),
                             C.AddToMeld(team, index, cards, wild_as)))
        adds.sort(key=lambda a: a[0], reverse=True)
        cmd = _first_accepted(state, seat, (c for _, c in adds))
        if cmd is not None:
            return cmd
        return self._discard(state, seat)

    def _discard(self, state: State, seat: int) -> C.Command:
        hand = state.hands[seat]
        values = card_values(state.rules)
        counts = Counter(hand)

        def usefulness(card: int) -> tuple[int, int]:
            if WILD_CAPABLE[card]:
                return (100, 0)
            score = 0
            for c in counts:
                if c == card or WILD_CAPABLE[c]:
                    continue
                if SUIT[c] == SUIT[card] and abs(RANK[c] - RANK[card]) in (1, 2, 12):
                    score += 3 - min(abs(RANK[c] - RANK[card]), 2)
                if RANK[c] == RANK[card] and state.rules.groups:
                    score += 2
            if counts[card] > 1 and state.rules.groups:
                score += 1
            return (score, -values[card])

        order = sorted(set(hand), key=usefulness)
        cmd = _first_accepted(state, seat, (C.Discard(c) for c in order))
        if cmd is None:  # cannot happen: the engine never strands a hand
            cmd = legal_commands(state, seat)[0]
        return cmd


_CLEAN = ("clean", "royal", "ace_to_ace")


def _worth(cards: tuple[int, ...], hand_size: int) -> bool:
    """A 3-card meld leaning on a wild is only worth it late in the hand."""
    wilds = sum(1 for c in cards if WILD_CAPABLE[c])
    return not wilds or len(cards) >= 4 or hand_size <= 5


def play_hand(state: State, bots: list[Bot], max_steps: int = 20_000) -> State:
    """Let ``bots`` (one per seat) play until the hand ends."""
    steps = 0
    while state.phase in (DRAW, "play") and steps < max_steps:
        seat = state.turn
        state = apply(state, seat, bots[seat].choose(state, seat))[1]
        steps += 1
    return state
