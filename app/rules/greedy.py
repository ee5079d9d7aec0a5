"""GreedyBot: the normal-strength bot (``bots.py`` says what a bot is).

GreedyBot lays the biggest melds, builds toward canastas, takes the pile when it pays,
discards the least useful card and closes when it can. It reads its hand with the fast
helpers of ``handplan.py`` (a few best proposals, not every possibility), ranks them, and
has the engine confirm them best first, so it never gives an illegal command and
usually pays for one ``apply`` per decision. Rules of thumb, each for a reason:

- while its side can neither take a muerto nor close (brasil has no muerto and closes
  only with a clean canasta), it keeps a reserve of cards (``RESERVE``, fewer as the
  stock runs out) instead of melding down to one card it can only draw and discard with;
- it takes a closed pile whenever it can play the card; an any-depth pile (brasil) only
  for a take worth about four cards (``DEEP_TAKE``: 3 per card taken plus the cards laid),
  the deeper the better, since every take is one more turn before the stock runs out
  (fewer takes: shorter hands, at about the same strength against RandomBot);
- a wild goes into a new meld only to bridge a gap in a run of 4+ cards, or late in the
  hand; it never goes onto a clean canasta of its own side, nor, where closing needs a
  clean canasta the side lacks, onto a clean meld of 5+ cards that could become one;
- where anyone may add to anyone's melds (brasil), it lays cards on another side's meld
  only while that meld stays small, if it can never be a canasta, or once it already is
  one (the canasta bonus goes to the meld's owner), and it spends a wild to turn another
  side's clean canasta dirty (100 points, and maybe their only way to close);
- it keeps cards that extend melds the next player may add to (he could take the pile
  for them) and otherwise discards the card with the fewest neighbours, the highest first.

How its strength is measured (``benchmarks/bots_strength.py``; the bar is 90% of 1,000
seeded hands, won by ``state.winner``): one GreedyBot against one RandomBot with two
players; a pair of GreedyBots against a pair of RandomBots with four players in pairs.
With three or four individual players (brasil) ONE GreedyBot plays against RandomBots in
every other seat, and "beats RandomBot" is read per opponent: Greedy must outscore each
RandomBot in 90% of the (hand, opponent) pairs. (Winning the hand outright, ahead of
all of them at once, is the stricter figure the script prints beside it.)

How it stays fast (``benchmarks/engine.py``, GreedyBot hands per second): every cache is
a pure function of the objects it is keyed by (see docs/rules.md), so none changes a
move; the hand's index is derived from the previous one; tests that ``keeps`` and the
take rules would refuse anyway are made before the work they would throw away (e.g.
any-depth depths are bounded from the hand before ``plans_with`` and before the view).
``tests/rules/test_bots.py`` checks the bounds and the derived index. Where the server
and the benchmarks run, ``make native`` compiles this module with the rest of the engine
(mypyc, about three times faster: docs/rules.md, "Compiled engine").
"""

from __future__ import annotations

from . import commands as C
from .bots import accepts, first_accepted
from .cards import RANK
from .engine import apply
from .errors import RuleViolation
from .greedy_draw import draw, without
from .greedy_memory import Memory, danger
from .greedy_play import adds, discard, discard_keys, melds
from .state import DRAW, PLAY, State


class GreedyBot:
    """A simple strong-enough player: see the module docstring."""

    def __init__(self) -> None:
        self.memory = Memory()  # what makes a decision cheap (greedy_memory.py)
        # positions our takes and discards produced this hand (``_progress``), with the
        # turn each was produced at: asked the same decision again (a retry) we answer
        # the same, only an earlier turn's position counts as a repeat
        self._seen: dict[int, int] = {}
        self._seen_hand: tuple[int, int] = (-1, -1)
        self._seen_turns = 0
        self._last: tuple[State, C.Command, int | None] | None = None  # ``produces``
        self._took = (-1, -1, -1)  # (turns, hand_no, card) of a one-card pile taken

    def choose(self, state: State, seat: int) -> C.Command:
        cmd = self.propose(state, seat)
        self.commit(state, seat, cmd)
        return cmd

    def propose(self, state: State, seat: int) -> C.Command:
        """The command we would give, without remembering it (``commit`` does)."""
        hand_key = (state.hand_no, state.first)
        if self._seen_hand != hand_key or state.turns < self._seen_turns:
            self._seen_hand = hand_key  # a new hand: forget the last one's positions
            self._seen.clear()
        self._seen_turns = state.turns
        if state.phase == DRAW:
            return self._progress(state, seat, self._draw(state, seat))
        return self._progress(state, seat, self._play(state, seat))

    def commit(self, state: State, seat: int, cmd: C.Command) -> None:
        """``cmd`` is given: remember the position it produces (``_progress``) and the
        cards it takes out of our hand (``_hand_of``)."""
        key = self.produces(state, seat, cmd)
        if key is not None and key not in self._seen:
            self._seen[key] = state.turns
        if isinstance(cmd, C.Discard):
            self.memory.gone = (cmd.card,)
        elif isinstance(cmd, (C.LayMeld, C.AddToMeld)):
            self.memory.gone = cmd.cards
        else:
            self.memory.gone = None  # (a draw or a take: no cards of ours went anywhere)
            if (
                isinstance(cmd, C.TakeDiscard)
                and len(state.discard) == 1
                and cmd.meld is None
                and cmd.add is None
            ):
                self._took = (state.turns, state.hand_no, state.discard[0])

    def produces(self, state: State, seat: int, cmd: C.Command) -> int | None:
        """The position (as a hash) a take or a discard leaves; None for other commands
        (a draw shows a new card, melds only grow: neither can repeat a position)."""
        memo = self._last
        if memo is not None and memo[0] is state and memo[1] == cmd:
            return memo[2]
        if isinstance(cmd, C.Discard):
            key: int | None = _produced_by_discard(state, seat, cmd.card)
        elif isinstance(cmd, C.TakeDiscard):
            key = _produced(state, seat, cmd)
        else:
            key = None
        self._last = (state, cmd, key)
        return key

    def repeats(self, state: State, seat: int, cmd: C.Command) -> bool:
        """Would ``cmd`` produce a position we produced already this hand?"""
        key = self.produces(state, seat, cmd)
        return key is not None and self._seen.get(key, state.turns) < state.turns

    def _progress(self, state: State, seat: int, cmd: C.Command) -> C.Command:
        """No loops: a take or a discard that would give a position (our hand, the pile,
        the melds) this bot already produced this hand gives way to another choice (a
        draw; the next discard in our order) when there is one."""
        if not self.repeats(state, seat, cmd) and not self.gives_back(state, cmd):
            return cmd
        if isinstance(cmd, C.TakeDiscard):
            return C.Draw() if accepts(state, seat, C.Draw()) else cmd
        for card in self.discard_order(state, seat):
            alt = C.Discard(card)
            if (
                not self.repeats(state, seat, alt)
                and not self.gives_back(state, alt)
                and accepts(state, seat, alt)
            ):
                return alt
        return cmd

    def gives_back(self, state: State, cmd: C.Command) -> bool:
        """Would ``cmd`` discard a card of the rank of the one-card pile we took this
        turn (the take only passed the card round)?"""
        took = self._took
        return (
            isinstance(cmd, C.Discard)
            and took[0] == state.turns
            and took[1] == state.hand_no
            and RANK[cmd.card] == RANK[took[2]]
        )

    def _draw(self, state: State, seat: int) -> C.Command:
        cmd = draw(self.memory, state, seat)
        if (
            state.rules.discard_pile == "open"
            and len(state.discard) == 1
            and isinstance(cmd, C.TakeDiscard)
            and _gives_back(state, seat)
        ):
            return C.Draw()
        return cmd

    def _play(self, state: State, seat: int) -> C.Command:
        v = self.memory.view(state, seat)
        cmd = first_accepted(state, seat, melds(v))
        if cmd is None:
            cmd = first_accepted(state, seat, adds(v))
        if cmd is None:
            v.danger = danger(state, v.team)
            cmd = discard(state, seat, v)
        return cmd

    def discard_order(self, state: State, seat: int) -> list[int]:
        """Every card we could discard, the one ``_play`` discards first."""
        v = self.memory.view(state, seat)
        v.danger = danger(state, v.team)
        return [card for _, card in sorted(discard_keys(state, v))]


def _produced(state: State, seat: int, cmd: C.Command) -> int:
    """The position (our hand, the pile, the melds) ``cmd`` leaves, as a hash."""
    new = apply(state, seat, cmd)[1]
    return hash((new.hands[seat], new.discard, new.melds))


def _produced_by_discard(state: State, seat: int, card: int) -> int:
    """``_produced`` of discarding ``card``, without applying it."""
    return hash((without(state.hands[seat], card), state.discard + (card,), state.melds))


def _gives_back(state: State, seat: int) -> bool:
    """Would taking this one-card pile end with our turn discarding a card of its rank
    (the card kept nowhere)? Then the take only passes the card round: draw instead."""
    card = state.discard[-1]
    try:
        after = apply(state, seat, C.TakeDiscard())[1]
    except RuleViolation:
        return False
    bot = GreedyBot()
    while after.phase == PLAY and after.turn == seat:
        cmd = bot.choose(after, seat)
        if isinstance(cmd, C.Discard):
            return RANK[cmd.card] == RANK[card] and card in after.hands[seat]
        after = apply(after, seat, cmd)[1]
    return False


__all__ = ["GreedyBot"]
