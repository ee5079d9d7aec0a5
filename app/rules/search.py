"""The strong bot: determinized Monte-Carlo search over what its seat cannot see.

At a decision that matters (draw or take the pile; which card to discard) it lists a few
candidate commands (GreedyBot's choice and its closest alternatives), then for each of
``samples`` determinizations, worlds dealt from the cards its seat cannot see, it plays
every candidate out with GreedyBot in every seat for ``horizon`` turns and scores the
result (the hand's score if it ended, else the score of the table as it stands). It
gives the candidate with the best average. Every candidate meets the same worlds
(common random numbers), so their differences are measured, not their luck.

A world is dealt only from the seat's view: the pool is the full deck less the cards the
seat sees (its hand, every meld, the visible pile), dealt into the places it cannot see
with their sizes kept (the other hands, the muertos still on the table, the stock, a
closed pile's buried cards). Nothing of the real hidden cards goes in, and the seed is
the bot's seed mixed with numbers the seat sees, so re-dealing the hidden cards does
not change a decision (tests/rules/test_levels.py).

The budget: at most ``samples`` worlds, and where a ``clock`` is given (the live tables
and the ladder pass the process's CPU time) no new world once ``budget`` seconds went.
"""

from __future__ import annotations

from collections.abc import Callable

from . import commands as C
from .bots import GreedyBot, _accepts
from .cards import full_deck
from .engine import apply
from .melds import meld_cards
from .prng import SplitMix, mix
from .scoring import score_hand
from .state import DRAW, M_TABLE, PLAY, State

SAMPLES = 10  # worlds per decision at most
HORIZON = 24  # turns each candidate is played out for (then the table is scored)
DISCARDS = 3  # discard candidates: GreedyBot's first ones
BUDGET = 0.06  # seconds of the clock per decision, checked between worlds


def hidden_pool(state: State, seat: int) -> list[int]:
    """The cards ``seat`` cannot see, as far as its view tells (sorted)."""
    counts = [0] * 53
    for c in full_deck(state.rules.jokers):
        counts[c] += 1
    seen: list[int] = list(state.hands[seat])
    for side in state.melds:
        for m in side:
            seen.extend(meld_cards(m))
    pile = state.discard
    seen.extend(pile[-1:] if state.rules.discard_pile == "closed" else pile)
    for c in seen:
        counts[c] -= 1
    return [c for c in range(53) for _ in range(counts[c])]


def determinize(state: State, seat: int, rng: SplitMix) -> State:
    """A world ``seat`` cannot tell from the real one: the hidden places dealt again
    from ``hidden_pool`` (sizes kept)."""
    pool = hidden_pool(state, seat)
    rng.shuffle(pool)
    pos = 0
    hands = list(state.hands)
    for s in range(state.rules.players):
        if s != seat:
            n = len(hands[s])
            hands[s] = tuple(sorted(pool[pos:pos + n]))
            pos += n
    muertos = list(state.muertos)
    for t, m in enumerate(muertos):
        if m and state.muerto_status[t] == M_TABLE:
            muertos[t] = tuple(pool[pos:pos + len(m)])
            pos += len(m)
    stock = tuple(pool[pos:pos + len(state.stock)])
    pos += len(state.stock)
    discard = state.discard
    if state.rules.discard_pile == "closed" and len(discard) > 1:
        buried = len(discard) - 1
        discard = tuple(pool[pos:pos + buried]) + discard[-1:]
        pos += buried
    return state._replace(hands=tuple(hands), muertos=tuple(muertos), stock=stock,
                          discard=discard)


def rollout(state: State, horizon: int) -> State:
    """GreedyBot in every seat for ``horizon`` turns (or to the hand's end)."""
    bots = [GreedyBot() for _ in range(state.rules.players)]
    stop = state.turns + horizon
    while state.phase in (DRAW, PLAY) and state.turns < stop:
        seat = state.turn
        state = apply(state, seat, bots[seat].choose(state, seat))[1]
    return state


def value(state: State, team: int) -> int:
    """Our side's points less the best other side's: the hand's score if it ended, else
    the score of the table as it stands (melds, canastas, less the cards in hand)."""
    if state.phase in (DRAW, PLAY):
        scores = tuple(s["total"] for s in score_hand(state, -1))
    else:
        scores = state.hand_scores
    best = max(s for t, s in enumerate(scores) if t != team)
    return scores[team] - best


class StrongBot:
    """Searches at the decisions that matter, plays as GreedyBot at the others."""

    def __init__(self, seed: int = 0, samples: int = SAMPLES, horizon: int = HORIZON,
                 clock: Callable[[], float] | None = None, budget: float = BUDGET) -> None:
        self.seed = seed
        self.samples = samples
        self.horizon = horizon
        self.clock = clock
        self.budget = budget
        self.greedy = GreedyBot()  # our own moves: its no-loop memory and hand index
        self.searched = 0  # decisions that searched, and worlds dealt (for benchmarks)
        self.worlds = 0

    def choose(self, state: State, seat: int) -> C.Command:
        options = self.candidates(state, seat)
        cmd = options[0] if len(options) == 1 else self.search(state, seat, options)
        self.greedy.commit(state, seat, cmd)
        return cmd

    def candidates(self, state: State, seat: int) -> list[C.Command]:
        """GreedyBot's choice first, then the alternatives worth weighing against it."""
        greedy = self.greedy
        first = greedy.propose(state, seat)
        out = [first]
        if state.phase == DRAW:
            if isinstance(first, C.TakeDiscard):
                if _accepts(state, seat, C.Draw()):
                    out.append(C.Draw())
            elif len(state.discard) > 1 and state.rules.discard_pile == "open" \
                    and _accepts(state, seat, C.TakeDiscard()) \
                    and not greedy.repeats(state, seat, C.TakeDiscard()):
                out.append(C.TakeDiscard())
        elif isinstance(first, C.Discard) and len(state.hands[seat]) > 2:
            for card in greedy.discard_order(state, seat):
                cmd = C.Discard(card)
                if len(out) >= DISCARDS:
                    break
                if cmd != first and not greedy.repeats(state, seat, cmd) \
                        and not greedy.gives_back(state, cmd):
                    out.append(cmd)
        return out

    def search(self, state: State, seat: int, options: list[C.Command]) -> C.Command:
        rules = state.rules
        team = rules.team_of(seat)
        rng = SplitMix(mix(self.seed, state.hand_no, state.turns, seat, len(state.stock),
                           len(state.discard), len(options)))
        totals = [0] * len(options)
        start = self.clock() if self.clock is not None else 0.0
        self.searched += 1
        for _ in range(self.samples):
            world = determinize(state, seat, rng)
            self.worlds += 1
            for i, cmd in enumerate(options):
                after = apply(world, seat, cmd)[1]
                totals[i] += value(rollout(after, self.horizon), team)
            if self.clock is not None and self.clock() - start >= self.budget:
                break
        best = 0
        for i in range(1, len(options)):
            if totals[i] > totals[best]:
                best = i  # a tie keeps GreedyBot's order
        return options[best]


__all__ = ["StrongBot", "determinize", "hidden_pool", "rollout", "value"]
