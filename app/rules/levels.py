"""The three strengths a player chooses (docs/bots.md): ``easy``, ``normal``, ``strong``.

``EasyBot`` is GreedyBot with human-like, seeded mistakes: now and then it overlooks a
meld or an add it could make, lets a useful pile go by, and discards less carefully (one
of its few least useful cards, not always the least useful one). ``normal`` is GreedyBot;
``strong`` is the search of ``search.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from . import commands as C
from .bots import Bot, accepts, first_accepted
from .cards import WILD_CAPABLE
from .greedy import GreedyBot
from .greedy_memory import danger
from .greedy_play import adds, discard, melds
from .prng import SplitMix, mix
from .search import StrongBot
from .state import State

STRENGTHS = ("easy", "normal", "strong")

MISS_MELD = 0.35  # a meld it could lay, overlooked this time
MISS_ADD = 0.5  # an add it could make, overlooked
MISS_TAKE = 0.3  # a pile it would take, let go by
CARELESS = 0.45  # a discard picked among its CARELESS_OF least useful cards
CARELESS_OF = 3


class EasyBot(GreedyBot):
    """GreedyBot that makes mistakes (rolled from its seed and the position)."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.seed = seed

    def _roll(self, state: State, seat: int) -> SplitMix:
        # the position's own numbers: the same mistakes on a replay, whatever the hidden
        # cards are (only what the seat sees goes in)
        return SplitMix(
            mix(
                self.seed,
                state.hand_no,
                state.turns,
                seat,
                len(state.hands[seat]),
                len(state.discard),
            )
        )

    def _draw(self, state: State, seat: int) -> C.Command:
        cmd = super()._draw(state, seat)
        if (
            isinstance(cmd, C.TakeDiscard)
            and self._roll(state, seat).chance(MISS_TAKE)
            and accepts(state, seat, C.Draw())
        ):
            return C.Draw()
        return cmd

    def _play(self, state: State, seat: int) -> C.Command:
        rng = self._roll(state, seat)
        v = self.memory.view(state, seat)
        cmd = None if rng.chance(MISS_MELD) else first_accepted(state, seat, melds(v))
        if cmd is None and not rng.chance(MISS_ADD):
            cmd = first_accepted(state, seat, adds(v))
        if cmd is not None:
            return cmd
        if len(v.hand) > 1 and rng.chance(CARELESS):
            order = self.discard_order(state, seat)[:CARELESS_OF]
            # (a wild stays kept even by a careless player)
            order = [c for c in order if not WILD_CAPABLE[c]] or order
            pick = C.Discard(order[rng.below(len(order))])
            if accepts(state, seat, pick):
                return pick
        v.danger = danger(state, v.team)
        return discard(state, seat, v)


def make_bot(strength: str, seed: int = 0, clock: Callable[[], float] | None = None) -> Bot:
    """A bot of that strength (unknown names play normal). ``clock`` (seconds, e.g. the
    process's CPU time) lets the strong bot stop searching at its time budget."""
    if strength == "easy":
        return EasyBot(seed)
    if strength == "strong":
        return StrongBot(seed, clock=clock)
    return GreedyBot()
