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

The budget: at most ``samples`` worlds (``FOUR`` times as many with four players), and
where a ``clock`` is given (the live tables and the ladder pass the process's CPU time)
no new world once ``budget`` seconds went.
"""

from __future__ import annotations

from collections.abc import Callable

from . import commands as C
from . import events as E
from .bots import accepts
from .cards import full_deck
from .engine import apply
from .greedy import GreedyBot
from .melds import meld_cards
from .prng import SplitMix, mix
from .ruleset import RuleSet
from .scoring import score_hand
from .state import DRAW, M_TABLE, PLAY, State

SAMPLES = 20  # worlds per decision at most (10 gain less in closed-pile and pairs games)
FOUR = 2  # four players: that many times the worlds (three hidden hands; docs/bots.md)
HORIZON = 24  # turns each candidate is played out for (then the table is scored)
DISCARDS = 3  # discard candidates: GreedyBot's first ones
BUDGET = 0.06  # seconds of the clock per decision, checked between worlds


def worlds_for(rules: RuleSet, samples: int) -> int:
    """Worlds per decision: with four players the hidden cards spread over three hands
    and each world tells less (measured on the ladder: docs/bots.md)."""
    return samples * FOUR if rules.players == 4 else samples


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


def determinize(
    state: State, seat: int, rng: SplitMix, known: dict[int, list[int]] | None = None
) -> State:
    """A world ``seat`` cannot tell from the real one: the hidden places dealt again
    from ``hidden_pool`` (sizes kept), the cards ``known`` to be in a seat's hand (it
    took them from the pile) in that hand."""
    pool = hidden_pool(state, seat)
    fixed: dict[int, list[int]] = {}
    buried = max(0, len(state.discard) - 1) if state.rules.discard_pile == "closed" else 0
    for s, cards in (known or {}).items():
        room = buried if s == PILE else len(state.hands[s])
        if s == PILE and len(cards) != buried:
            continue  # (not the pile we know: it changed in a way we did not follow)
        mine = fixed[s] = []
        for c in cards:
            if c in pool and len(mine) < room:
                pool.remove(c)
                mine.append(c)
    rng.shuffle(pool)
    pos = 0
    hands = list(state.hands)
    for s in range(state.rules.players):
        if s != seat:
            mine = fixed.get(s, [])
            n = len(hands[s]) - len(mine)
            hands[s] = tuple(sorted(mine + pool[pos : pos + n]))
            pos += n
    muertos = list(state.muertos)
    for t, m in enumerate(muertos):
        if m and state.muerto_status[t] == M_TABLE:
            muertos[t] = tuple(pool[pos : pos + len(m)])
            pos += len(m)
    stock = tuple(pool[pos : pos + len(state.stock)])
    pos += len(state.stock)
    discard = state.discard
    if buried:
        mine = fixed.get(PILE, [])
        if len(mine) == buried:
            discard = tuple(mine) + discard[-1:]
        else:  # (known cards put back: their order is lost, the pile is dealt anew)
            pool.extend(mine)
            discard = tuple(pool[pos : pos + buried]) + discard[-1:]
            pos += buried
    return state._replace(hands=tuple(hands), muertos=tuple(muertos), stock=stock, discard=discard)


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
        scores = tuple(int(s["total"]) for s in score_hand(state, -1))
    else:
        scores = state.hand_scores
    best = max(s for t, s in enumerate(scores) if t != team)
    return scores[team] - best


PILE = -1  # ``PileMemory.cards`` key of a closed pile's buried cards, bottom first


def _table_counts(state: State) -> list[int]:
    counts = [0] * 53
    for side in state.melds:
        for m in side:
            for c in meld_cards(m):
                counts[c] += 1
    return counts


def wants_events(rules: RuleSet) -> bool:
    """With three or four players several others play between two of our turns, so the
    table's events are what tells who took the pile (``PileMemory.see``); with two, the
    positions our seat sees at its own turns tell it (``observe`` and ``left``)."""
    return rules.players > 2


class PileMemory:
    """What our seat learnt of the other hands from the pile: the cards each other
    player took from it and has not laid or discarded since, and a closed pile's buried
    cards in their order (each was face up once). Only what the seat saw goes in.

    With two players it is read off the positions at our own turns: the pile as we left
    it (all of an open pile; of a closed one only the top we saw), and the pile and the
    melds when our turn comes round again. With three or four (``wants_events``) the
    caller tells it every event of the table instead (``start``, then ``see``), and it
    reads only their public parts: who took which pile cards, laid or added which cards,
    discarded which card (never a card drawn from the stock, nor a hand dealt)."""

    def __init__(self) -> None:
        self.cards: dict[int, list[int]] = {}
        self._hand = (-1, -1)
        self._pile: tuple[int, ...] = ()  # the pile (what we saw of it) as we left it
        self._size = 0  # its size then
        self._table: list[int] = []  # the meld cards then, per card
        self.fed = False  # told the events (``see``): the two-player reading stands aside
        self._seen_pile: list[int] = []  # the pile as the events built it, bottom first

    def start(self, state: State) -> None:
        """A hand we join at its start, or a memory that starts now: the pile as it is
        (of a closed one only its top is known), nobody known to hold anything."""
        self.fed = True
        self._hand = (state.hand_no, state.first)
        self.cards = {}
        # (of a closed pile only the top shows: its buried cards, if any, are unknown)
        shown = state.rules.discard_pile == "open" or len(state.discard) <= 1
        self._seen_pile = list(state.discard) if shown else []
        self._note_pile(state.rules)

    def see(self, event: object, seat: int, rules: RuleSet) -> None:
        """One event of the table, any seat's, told to ``seat``'s memory."""
        self.fed = True
        if isinstance(event, E.HandStarted):
            self._hand = (event.hand_no, event.first)
            self.cards = {}
            self._seen_pile = list(event.discard)  # the pile's first card is face up
        elif isinstance(event, E.TookPile):
            if event.seat != seat:
                self.cards.setdefault(event.seat, []).extend(event.cards)
            del self._seen_pile[max(0, len(self._seen_pile) - len(event.cards)) :]
        elif isinstance(event, (E.Melded, E.Added)):
            self._forget(event.seat, event.cards)
        elif isinstance(event, E.Discarded):
            self._forget(event.seat, (event.card,))
            self._seen_pile.append(event.card)
        else:
            return
        self._note_pile(rules)

    def _forget(self, seat: int, cards: tuple[int, ...]) -> None:
        known = self.cards.get(seat)
        for c in cards:
            if known and c in known:
                known.remove(c)

    def _note_pile(self, rules: RuleSet) -> None:
        if rules.discard_pile == "closed":
            self.cards[PILE] = self._seen_pile[:-1]

    def left(self, state: State, card: int) -> None:
        """Our turn ends with this discard."""
        if self.fed:
            return
        self._reset(state)
        pile = state.discard + (card,)
        if state.rules.discard_pile == "closed":
            # every card of a closed pile was face up once: the ones we saw, in order
            seen = self._pile if len(self._pile) == len(state.discard) else ()
            self._pile = seen + (card,) if seen else state.discard[-1:] + (card,)
            self.cards[PILE] = list(self._pile[:-1])
        else:
            self._pile = pile
        self._size = len(pile)
        self._table = _table_counts(state)

    def observe(self, state: State, seat: int) -> None:
        """Our turn starts: what did the other player take, lay and discard?"""
        if self.fed:
            return
        self._reset(state)
        if state.rules.players != 2 or not self._table:
            return
        other = 1 - seat
        known = self.cards.setdefault(other, [])
        pile = state.discard
        closed = state.rules.discard_pile == "closed"
        if (
            pile
            and self._size >= len(pile)
            and (closed or pile[:-1] == self._pile[: len(pile) - 1])
        ):
            # the pile lost cards: the other player took the top ``taken`` of it
            taken = self._size - (len(pile) - 1)
            known.extend(self._pile[-taken:] if taken <= len(self._pile) else self._pile)
            if closed:
                self._pile = pile
        elif closed and pile and len(pile) == self._size + 1:
            self._pile = self._pile + pile[-1:] if len(self._pile) == self._size else ()
        if closed:
            self.cards[PILE] = list(self._pile[:-1])
        table = _table_counts(state)
        gone = [c for c in range(53) for _ in range(max(0, table[c] - self._table[c]))]
        gone.extend(pile[-1:])
        for c in gone:  # laid or discarded since: not in the hand any more
            if c in known:
                known.remove(c)
        self._table = []

    def _reset(self, state: State) -> None:
        if self._hand != (state.hand_no, state.first):
            self._hand = (state.hand_no, state.first)
            self.cards = {}
            self._table = []


class StrongBot:
    """Searches at the decisions that matter, plays as GreedyBot at the others."""

    def __init__(
        self,
        seed: int = 0,
        samples: int = SAMPLES,
        horizon: int = HORIZON,
        clock: Callable[[], float] | None = None,
        budget: float = BUDGET,
        discards: int = DISCARDS,
    ) -> None:
        self.seed = seed
        self.discards = discards
        self.samples = samples
        self.horizon = horizon
        self.clock = clock
        self.budget = budget
        self.greedy = GreedyBot()  # our own moves: its no-loop memory and hand index
        self.searched = 0  # decisions that searched, and worlds dealt (for benchmarks)
        self.worlds = 0
        self.known = PileMemory()

    def choose(self, state: State, seat: int) -> C.Command:
        if state.phase == DRAW:
            self.known.observe(state, seat)
        options = self.candidates(state, seat)
        cmd = options[0] if len(options) == 1 else self.search(state, seat, options)
        self.commit(state, seat, cmd)
        return cmd

    def commit(self, state: State, seat: int, cmd: C.Command) -> None:
        """``cmd`` is given (chosen here or by a worker's ``search``)."""
        self.greedy.commit(state, seat, cmd)
        if isinstance(cmd, C.Discard):
            self.known.left(state, cmd.card)

    def candidates(self, state: State, seat: int) -> list[C.Command]:
        """GreedyBot's choice first, then the alternatives worth weighing against it."""
        greedy = self.greedy
        first = greedy.propose(state, seat)
        out = [first]
        if state.phase == DRAW:
            if isinstance(first, C.TakeDiscard):
                if accepts(state, seat, C.Draw()):
                    out.append(C.Draw())
            elif (
                len(state.discard) > 1
                and state.rules.discard_pile == "open"
                and accepts(state, seat, C.TakeDiscard())
                and not greedy.repeats(state, seat, C.TakeDiscard())
            ):
                out.append(C.TakeDiscard())
        elif isinstance(first, C.Discard) and len(state.hands[seat]) > 2:
            for card in greedy.discard_order(state, seat):
                cmd = C.Discard(card)
                if len(out) >= self.discards:
                    break
                if (
                    cmd != first
                    and not greedy.repeats(state, seat, cmd)
                    and not greedy.gives_back(state, cmd)
                ):
                    out.append(cmd)
        return out

    def search(self, state: State, seat: int, options: list[C.Command]) -> C.Command:
        rules = state.rules
        team = rules.team_of(seat)
        rng = SplitMix(
            mix(
                self.seed,
                state.hand_no,
                state.turns,
                seat,
                len(state.stock),
                len(state.discard),
                len(options),
            )
        )
        totals = [0] * len(options)
        start = self.clock() if self.clock is not None else 0.0
        self.searched += 1
        for _ in range(worlds_for(rules, self.samples)):
            world = determinize(state, seat, rng, self.known.cards)
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


__all__ = [
    "PileMemory",
    "wants_events",
    "StrongBot",
    "determinize",
    "hidden_pool",
    "rollout",
    "value",
    "worlds_for",
]
