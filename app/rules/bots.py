"""Bots: ``RandomBot`` (uniform over legal commands) and ``GreedyBot``.

A bot looks only at what its seat may see (its hand, the melds, the visible pile, sizes)
and answers one command at a time; the caller applies it and asks again.

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

from bisect import bisect_left
from collections.abc import Iterable
from typing import NamedTuple, Protocol

from . import commands as C
from .cards import RANK, SUIT, WILD_CAPABLE
from .engine import apply
from .errors import RuleViolation
from .handplan import (
    SLOT_BITS,
    Hand,
    Plan,
    extension,
    feeding,
    fits,
    group_plans,
    hooks,
    hooks_for,
    plans_with,
    run_plans,
)
from .legal import legal_commands
from .melds import CLEAN_KINDS, GROUP, SEQ, Meld, canasta_kind
from .ruleset import RuleSet
from .scoring import card_values
from .state import DRAW, M_TABLE, PLAY, State


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


def _plan_bound(h: Hand, card: int, rules: RuleSet, use_wild: bool) -> int:
    """At least the best score of ``plans_with(h, card, rules, use_wild)`` (-1: none).
    A run holding ``card`` scores its length, at most the stretch of slots held around
    it; one a wild bridges to the next stretch scores both stretches less 2 (three cards
    with a wild: 0); a group scores its naturals, at most the hand's of its rank and
    ``card`` (two and a wild: 0)."""
    mask = h.masks[SUIT[card]]
    bits = SLOT_BITS[card]
    rank = RANK[card]
    wild = use_wild and h.wilds > 0
    if not ((mask >> 1 | mask << 1 | mask >> 2 | mask << 2) & bits) and not (
        rules.groups and h.ranks[rank] >= (1 if wild else 2)
    ):
        return -1  # ``plans_with``'s own first test
    best = -1
    m = mask | bits
    for k in (1, 14) if rank == 1 else (rank,):
        lo = hi = k
        while lo > 1 and m >> (lo - 1) & 1:
            lo -= 1
        while hi < 14 and m >> (hi + 1) & 1:
            hi += 1
        length = hi - lo + 1
        if length >= 3 and length > best:
            best = length
        if wild:
            left = 0
            j = lo - 2
            while j >= 1 and m >> j & 1:
                left += 1
                j -= 1
            right = 0
            j = hi + 2
            while j <= 14 and m >> j & 1:
                right += 1
                j += 1
            if left or right:
                best = max(best, length + max(left, right) - 2)
            if length == 2:
                best = max(best, 0)
    if rules.groups:
        same = h.ranks[rank] + 1
        if same >= 3:
            best = max(best, same)
        elif same == 2 and wild:
            best = max(best, 0)
    return best


def _without(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    rest = list(cards)
    rest.remove(card)
    return tuple(rest)


# The slot bits next to a natural card's slot (NEAR1) and two slots away (NEAR2), both
# ends for an ace: its usefulness for runs is a popcount of the suit's mask under them.
NEAR1: tuple[int, ...] = tuple(
    (1 << 13 | 1 << 2) if RANK[c] == 1 else (1 << RANK[c] + 1 | 1 << RANK[c] - 1) if c < 52 else 0
    for c in range(53)
)
NEAR2: tuple[int, ...] = tuple(
    (1 << 12 | 1 << 3)
    if RANK[c] == 1
    else (1 << RANK[c] + 2 | (1 << RANK[c] - 2 if RANK[c] > 1 else 0))
    if c < 52
    else 0
    for c in range(53)
)

# (suit, NEAR1, NEAR2, rank) of each card for ``_discard``; a wild's suit is -1
_DISCARD_INFO: tuple[tuple[int, int, int, int], ...] = tuple(
    (-1 if WILD_CAPABLE[c] else SUIT[c], NEAR1[c], NEAR2[c], RANK[c]) for c in range(53)
)

RESERVE = 12  # cards kept in hand while the side has no way to go out...
FOREIGN_MAX = 3  # largest size we let another side's meld reach by our cards
STOCK_TURNS = 1  # ...fewer once the stock holds less than RESERVE rounds of this many
# An any-depth pile is taken only for a take scoring this much (3 per card taken, plus
# the cards laid): each take is one more turn before the stock runs out, and a take of
# a card or two to lay three is little better than a draw.
DEEP_TAKE = 13


class _Facts(NamedTuple):
    """What a side's melds tell, kept while that tuple of melds stays the same object."""

    melds: tuple[Meld, ...]
    rules: RuleSet
    kinds: list[str | None]
    has_clean: bool
    closable: bool
    group_ranks: frozenset[int]
    need: tuple[int, int, int, int]  # per suit: slot bits a natural fits a run at
    need_ranks: tuple[int, ...]  # the ranks of its groups
    sizes: tuple[int, ...]  # the size of each meld


def _needs(rules: RuleSet, melds: tuple[Meld, ...]) -> tuple[list[int], tuple[int, ...]]:
    """The slots (per suit) and ranks where a natural card may join one of ``melds``:
    every card ``extension`` could find, and maybe a few more."""
    need = [0, 0, 0, 0]
    ranks = []
    reloc = rules.wild_relocation
    for m in melds:
        if m.kind == SEQ:
            bits = 1 << (m.hi + 1)
            if m.lo > 1:
                bits |= 1 << (m.lo - 1)
            if m.wild >= 0 and reloc:
                bits |= 1 << m.wslot
            need[m.suit] |= bits
        else:
            ranks.append(m.rank)
    return need, tuple(ranks)


def _facts(rules: RuleSet, melds: tuple[Meld, ...]) -> _Facts:
    sizes = tuple(
        [m.hi - m.lo + 1 if m.kind == SEQ else len(m.naturals) + (m.wild >= 0) for m in melds]
    )
    # canasta_kind only for melds of 7+ cards
    kinds = [
        canasta_kind(m, rules) if size >= 7 else None for m, size in zip(melds, sizes, strict=True)
    ]
    ranks = (
        frozenset(m.rank for m in melds if m.kind == GROUP)
        if rules.one_group_per_rank
        else frozenset()
    )
    clean = any(k in CLEAN_KINDS for k in kinds)
    closable = clean or (rules.close_requires == "any" and any(kinds))
    need, need_ranks = _needs(rules, melds)
    return _Facts(
        melds,
        rules,
        kinds,
        clean,
        closable,
        ranks,
        (need[0], need[1], need[2], need[3]),
        need_ranks,
        sizes,
    )


# ``hooks`` of a tuple of melds, shared by every GreedyBot (the bots at one table read the
# same melds): id -> (melds, rules, hooks). Holding the melds keeps their id unique.
_HOOKS: dict[int, tuple[tuple[Meld, ...], RuleSet, dict[int, list[int]]]] = {}


def _hooks_of(rules: RuleSet, melds: tuple[Meld, ...]) -> dict[int, list[int]]:
    memo = _HOOKS.get(id(melds))
    if memo is None or memo[0] is not melds or memo[1] is not rules:
        if len(_HOOKS) >= 256:
            _HOOKS.clear()
        memo = _HOOKS[id(melds)] = (melds, rules, hooks(melds, rules))
    return memo[2]


# ``feeding`` of a tuple of melds, shared likewise.
_FEEDING: dict[int, tuple[tuple[Meld, ...], RuleSet, set[int]]] = {}


def _feeding_of(rules: RuleSet, melds: tuple[Meld, ...]) -> set[int]:
    memo = _FEEDING.get(id(melds))
    if memo is None or memo[0] is not melds or memo[1] is not rules:
        if len(_FEEDING) >= 256:
            _FEEDING.clear()
        memo = _FEEDING[id(melds)] = (melds, rules, feeding(list(melds), rules))
    return memo[2]


# Each side with melds and their ``hooks``, for the last ``state.melds`` seen:
# (state.melds, rules, [(side bit, hooks)]), shared.
_HOOKED: tuple[object, RuleSet, list[tuple[int, dict[int, list[int]]]]] | None = None


def _hooked(state: State) -> list[tuple[int, dict[int, list[int]]]]:
    global _HOOKED
    memo = _HOOKED
    if memo is None or memo[0] is not state.melds or memo[1] is not state.rules:
        memo = _HOOKED = (
            state.melds,
            state.rules,
            [
                (1 << t, _hooks_of(state.rules, melds))
                for t, melds in enumerate(state.melds)
                if melds
            ],
        )
    return memo[2]


# For another side's melds (where anyone may add to any meld), shared likewise: the
# ``hooks`` of the melds ``foreign_ok`` lets us add one card to (it takes no more where it
# refuses one), and the indexes of its clean canastas (a wild of ours spoils them).
_FOREIGN: dict[int, tuple[tuple[Meld, ...], RuleSet, dict[int, list[int]], list[int]]] = {}


def _foreign_of(rules: RuleSet, melds: tuple[Meld, ...]) -> tuple[dict[int, list[int]], list[int]]:
    memo = _FOREIGN.get(id(melds))
    if memo is None or memo[0] is not melds or memo[1] is not rules:
        if len(_FOREIGN) >= 256:
            _FOREIGN.clear()
        sizes = [
            m.hi - m.lo + 1 if m.kind == SEQ else len(m.naturals) + (m.wild >= 0) for m in melds
        ]
        small_groups = 0 < rules.group_max < 7
        # (``canasta_kind`` is None exactly below 7 cards)
        ok = [
            size + 1 <= FOREIGN_MAX or size >= 7 or (small_groups and m.kind == GROUP)
            for m, size in zip(melds, sizes, strict=True)
        ]
        side_hooks: dict[int, list[int]] = {}
        if any(ok):
            for c, indexes in _hooks_of(rules, melds).items():
                kept = [i for i in indexes if ok[i]]
                if kept:
                    side_hooks[c] = kept
        clean = [
            i
            for i, m in enumerate(melds)
            if m.wild < 0 and sizes[i] >= 7 and canasta_kind(m, rules) in CLEAN_KINDS
        ]
        memo = _FOREIGN[id(melds)] = (melds, rules, side_hooks, clean)
    return memo[2], memo[3]


# _facts of a tuple of melds, shared by the bots of one side: id -> facts.
_FACTS: dict[int, _Facts] = {}

_NONE: frozenset[int] = frozenset()

# The last ``GreedyBot._danger``: (state.melds, rules, team or -1, cards), shared.
_DANGER: tuple[object, RuleSet, int, set[int]] | None = None


class _View:
    """What GreedyBot reads off the state for one decision (its own seat's view)."""

    __slots__ = (
        "state",
        "rules",
        "hand",
        "h",
        "team",
        "melds",
        "own",
        "may_go_out",
        "reserve",
        "group_ranks",
        "danger",
        "facts",
    )

    def __init__(self, state: State, seat: int, team: int, facts: _Facts, h: Hand) -> None:
        rules = state.rules
        self.state = state
        self.rules = rules
        self.hand = state.hands[seat]
        self.h = h
        self.team = team
        self.melds = state.melds
        self.own = facts.melds
        self.facts = facts
        self.may_go_out = facts.closable or state.muerto_status[team] == M_TABLE
        # as the stock runs out, cards kept in hand turn into points against: lay them
        reserve = len(state.stock) // (rules.players * STOCK_TURNS)
        self.reserve = reserve if reserve < RESERVE else RESERVE
        self.group_ranks = facts.group_ranks
        self.danger: set[int] | frozenset[int] = _NONE

    def keeps(self, left: int, closes: bool = False) -> bool:
        """May a play leave ``left`` cards? Besides the engine's no-stranding rule: while
        the side can neither take a muerto nor close, keep a few cards to build with and
        to take the pile with, unless the play itself makes the canasta to close with."""
        if not self.leaves_playable(left):
            return False
        return self.may_go_out or closes or left >= self.reserve

    def keeps_after_take(self, left: int) -> bool:
        """As ``keeps``, for a take: leaving more cards than a draw would is fine."""
        return left >= self.take_need()

    def take_need(self) -> int:
        """The fewest cards a take may leave: ``keeps_after_take(left)`` is
        ``left >= take_need()`` (``leaves_playable``, and while the side cannot go out,
        at least the reserve or one card more than now, whichever is fewer)."""
        if self.may_go_out:
            return 0 if self.rules.go_out_by_meld else 1
        return max(2, min(self.reserve, len(self.hand) + 1))

    def closes_with(self, m: Meld, n: int, wild: bool) -> bool:
        """Would ``n`` more cards on our meld ``m`` make a canasta we may close with?"""
        if m.size + n < 7:
            return False
        return self.rules.close_requires == "any" or (m.wild < 0 and not wild)

    def leaves_playable(self, left: int) -> bool:
        """Would a hand of ``left`` cards be allowed (the engine's no-stranding rule)?"""
        if left <= 0:
            return left == 0 and self.rules.go_out_by_meld and self.may_go_out
        return left > 1 or self.may_go_out

    def wild_ok(self, index: int) -> bool:
        """May a wild from the hand go onto our meld number ``index``?"""
        m = self.own[index]
        if m.wild >= 0 or (
            m.kind == GROUP and self.rules.group_max and m.size >= self.rules.group_max
        ):
            return False
        kind = self.facts.kinds[index]
        if kind in CLEAN_KINDS:
            return False  # a wild would spoil a clean canasta
        if self.rules.close_requires == "clean" and not self.facts.has_clean and m.size >= 5:
            return False  # keep it clean: the side needs a clean canasta to close
        return kind is not None or m.size + 1 >= 7 or len(self.hand) <= 4

    def foreign_ok(self, m: Meld, n: int) -> bool:
        """Lay ``n`` natural cards on another side's meld (they score for us) only while
        it stays far from a canasta, if it can never be one, or once it is one already:
        a canasta's bonus goes to the meld's owner."""
        if m.size + n <= FOREIGN_MAX:
            return True
        if m.kind == GROUP and 0 < self.rules.group_max < 7:
            return True
        return canasta_kind(m, self.rules) is not None


class GreedyBot:
    """A simple strong-enough player: see the module docstring."""

    def __init__(self) -> None:
        self._facts: _Facts | None = None
        # every meld of the other sides, kept while state.melds is the same object
        self._others: tuple[object, int, list[tuple[int, int, Meld]]] | None = None
        # the other sides' melds with their hooks, kept while state.melds is the same
        self._other: (
            tuple[object, int, list[tuple[int, tuple[Meld, ...], dict[int, list[int]]]]] | None
        ) = None
        # the last hand read, and the cards our last command took out of it: the next
        # hand is usually that one plus a drawn card or minus those cards
        self._hand: tuple[tuple[int, ...], Hand] | None = None
        self._gone: tuple[int, ...] | None = None
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
            self._gone = (cmd.card,)
        elif isinstance(cmd, (C.LayMeld, C.AddToMeld)):
            self._gone = cmd.cards
        else:
            self._gone = None  # (a draw or a take: no cards of ours went anywhere)
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
            return C.Draw() if _accepts(state, seat, C.Draw()) else cmd
        for card in self.discard_order(state, seat):
            alt = C.Discard(card)
            if (
                not self.repeats(state, seat, alt)
                and not self.gives_back(state, alt)
                and _accepts(state, seat, alt)
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

    def _hand_of(self, hand: tuple[int, ...]) -> Hand:
        """``Hand(hand)``, derived from the last hand read when it is that one plus one
        card (a draw) or minus the cards of our last command (checked as multisets)."""
        memo = self._hand
        if memo is not None:
            old, h = memo
            if old is hand:
                return h
            n, n_old = len(hand), len(old)
            gone = self._gone
            # (the engine keeps hands sorted and removes cards in place, so comparing in
            # that order suffices; if it ever did otherwise we would just rebuild)
            if n == n_old + 1:
                card = sum(hand) - sum(old)
                if 0 <= card <= 52:
                    i = bisect_left(old, card)
                    # ``hand`` is ``old`` with ``card`` put in at i
                    if hand[i] == card and hand[:i] == old[:i] and hand[i + 1 :] == old[i:]:
                        h = h.plus(card, hand)
                        self._hand = (hand, h)
                        return h
            elif gone is not None and n == n_old - len(gone):
                cards = list(old)
                try:
                    for c in gone:
                        cards.remove(c)
                except ValueError:
                    pass
                else:
                    if hand == tuple(cards):
                        h = h.minus(gone, hand)
                        self._hand = (hand, h)
                        return h
        h = Hand(hand)
        self._hand = (hand, h)
        return h

    def _facts_of(self, rules: RuleSet, melds: tuple[Meld, ...]) -> _Facts:
        facts = self._facts
        if facts is None or facts.melds is not melds or facts.rules is not rules:
            facts = _FACTS.get(id(melds))
            if facts is None or facts.melds is not melds or facts.rules is not rules:
                if len(_FACTS) >= 256:
                    _FACTS.clear()
                facts = _FACTS[id(melds)] = _facts(rules, melds)
            self._facts = facts
        return facts

    def _others_of(self, state: State, team: int) -> list[tuple[int, int, Meld]]:
        """Every meld of the other sides, where anyone may add to any meld (else none)."""
        if not state.rules.add_to_any_meld:
            return []
        memo = self._others
        if memo is None or memo[0] is not state.melds or memo[1] != team:
            memo = self._others = (
                state.melds,
                team,
                [
                    (t, i, m)
                    for t in range(state.rules.teams)
                    if t != team
                    for i, m in enumerate(state.melds[t])
                ],
            )
        return memo[2]

    def _view(self, state: State, seat: int) -> _View:
        """The view of ``seat``."""
        rules = state.rules
        team = seat % 2 if rules.pairs and rules.players == 4 else seat  # (team_of)
        melds = state.melds[team]
        facts = self._facts
        if facts is None or facts.melds is not melds or facts.rules is not rules:
            facts = self._facts_of(rules, melds)
        return _View(state, seat, team, facts, self._hand_of(state.hands[seat]))

    # -- drawing

    def _draw(self, state: State, seat: int) -> C.Command:
        pile = state.discard
        if not pile:
            return C.Draw()
        rules = state.rules
        if rules.discard_pile == "open":  # no need for a full view of the hand
            hand = state.hands[seat]
            own = state.melds[rules.team_of(seat)]
            if (
                (len(pile) >= 3 or self._fits(rules, own, hand, pile[-1]))
                and self._may_take_open(state, rules, hand)
                and not (len(pile) == 1 and _gives_back(state, seat))
            ):
                return C.TakeDiscard()
            return C.Draw()
        if (
            rules.discard_pile == "closed"
            and not rules.add_to_any_meld
            and not self._may_use(state, seat, pile[-1])
        ):
            return C.Draw()  # nothing could take the pile: no need for a full view
        best: tuple[int, int, Plan | None, tuple[int, int] | None] | None = None
        if rules.discard_pile == "any_depth":
            # Each depth's takes score at most 3 per card taken plus ``_plan_bound`` (a
            # new meld) or 1 (an add), all read off the hand and the hooks before the
            # whole view; only depths that may reach DEEP_TAKE are looked at, from the
            # deepest up, and not those that cannot reach the best take found so far (on
            # a tie the shallower depth wins: it comes first in the full ranked list).
            team = rules.team_of(seat)
            own = state.melds[team]
            hand = state.hands[seat]
            n_hand = len(hand)
            if self._facts_of(rules, own).closable or state.muerto_status[team] == M_TABLE:
                need = 0 if rules.go_out_by_meld else 1
            else:  # (``_View.take_need``)
                reserve = len(state.stock) // (rules.players * STOCK_TURNS)
                need = max(2, min(reserve, RESERVE, n_hand + 1))
            if n_hand + len(pile) - 1 < need:
                return C.Draw()  # no take keeps enough cards
            h = self._hand_of(hand)
            hooked = _hooked(state)
            me = 1 << team
            others = ~me if rules.add_to_any_meld else 0
            live: list[tuple[int, int]] = []  # (bound, depth), deepest first
            for depth in range(len(pile), 0, -1):
                size = n_hand + depth
                if size - 1 < need:
                    break  # this and every shallower take keep too few cards
                card = pile[-depth]
                if WILD_CAPABLE[card]:
                    bound = 1
                elif 3 * depth + 1 < DEEP_TAKE:  # an add (1 at most) cannot do: a meld?
                    if size - 3 < need:
                        continue
                    bound = _plan_bound(h, card, rules, depth >= 3)
                else:
                    sides = 0
                    for bit, side_hooks in hooked:
                        if card in side_hooks:
                            sides |= bit
                    bound = 1 if sides & me else 0 if sides & others else -1
                    if size - 3 >= need:
                        bound = max(bound, _plan_bound(h, card, rules, depth >= 3))
                    if bound < 0:
                        continue  # no take at all
                if 3 * depth + bound >= DEEP_TAKE:
                    live.append((3 * depth + bound, depth))
            if not live:
                return C.Draw()
            v = self._view(state, seat)
            own_hooks = _hooks_of(rules, own)
            other_hooks = self._other_hooks_of(state, team) if rules.add_to_any_meld else []
            for bound, depth in live:
                if best is not None and bound < best[0]:
                    continue
                top = None  # the first of this depth's takes with its best score
                for take in self._takes_at(state, v, depth, own_hooks, other_hooks):
                    if top is None or take[0] > top[0]:
                        top = take
                if top is not None and top[0] >= DEEP_TAKE and (best is None or top[0] >= best[0]):
                    best = top
            depths: range | tuple[int, ...] = range(1, len(pile) + 1)
            floor = DEEP_TAKE
        else:
            v = self._view(state, seat)
            depths, floor = (1,), 0
            # a closed pile offers one card: look it up meld by meld, not in a table
            own_hooks = (
                _hooks_of(rules, v.own)
                if WILD_CAPABLE[pile[-1]]
                else {pile[-1]: hooks_for(v.own, pile[-1], rules)}
            )
            other_hooks = self._other_hooks_of(state, v.team) if rules.add_to_any_meld else []
            for take in self._takes_at(state, v, 1, own_hooks, other_hooks):
                if best is None or take[0] > best[0]:
                    best = take
        if best is None:
            return C.Draw()
        cmd = self._take_cmd(pile, best)
        if _accepts(state, seat, cmd):
            return cmd
        # refused (never seen): every take, best first, as the engine accepts them
        takes = [
            t
            for depth in depths
            for t in self._takes_at(state, v, depth, own_hooks, other_hooks)
            if t[0] >= floor
        ]
        takes.sort(key=lambda t: -t[0])
        found = _first_accepted(state, seat, (self._take_cmd(pile, t) for t in takes))
        return found if found is not None else C.Draw()

    @staticmethod
    def _take_cmd(
        pile: tuple[int, ...], take: tuple[int, int, Plan | None, tuple[int, int] | None]
    ) -> C.Command:
        _, depth, plan, where = take
        if plan is not None:
            return C.TakeDiscard(depth, _without(plan.cards, pile[-depth]))
        return C.TakeDiscard(depth, None, where)

    def _takes_at(
        self,
        state: State,
        v: _View,
        depth: int,
        own_hooks: dict[int, list[int]],
        other_hooks: list[tuple[int, tuple[Meld, ...], dict[int, list[int]]]],
    ) -> list[tuple[int, int, Plan | None, tuple[int, int] | None]]:
        """The takes at ``depth`` we would play: (score, depth, plan, add), in order."""
        rules = v.rules
        pile = state.discard
        card = pile[-depth]
        gain = len(pile) if rules.discard_pile == "closed" else depth
        size = len(v.hand) + gain
        need = v.take_need()  # a take is kept if it leaves at least this many cards
        out: list[tuple[int, int, Plan | None, tuple[int, int] | None]] = []
        add = out.append
        if size - 1 < need:
            return out  # every take leaves too few cards
        if size - 3 >= need:  # (a plan lays 3 cards or more)
            for plan in plans_with(v.h, card, rules, gain >= 3, v.group_ranks):
                if size - len(plan.cards) >= need:
                    add((3 * gain + plan.score, depth, plan, None))
        team = v.team
        if not WILD_CAPABLE[card]:
            for index in own_hooks.get(card, ()):
                add((3 * gain + 1, depth, None, (team, index)))
            for side, melds, side_hooks in other_hooks:
                for index in side_hooks.get(card, ()):
                    if gain >= 3 or v.foreign_ok(melds[index], 1):
                        add((3 * gain, depth, None, (side, index)))
            return out
        for index, m in enumerate(v.own):
            if fits(m, card, rules) and v.wild_ok(index):
                add((3 * gain + 1, depth, None, (team, index)))
        for side, index, m in self._others_of(state, team):
            # a wild dirties their meld: fine unless it makes them a canasta
            if fits(m, card, rules) and (m.size + 1 < 7 or canasta_kind(m, rules) in CLEAN_KINDS):
                add((3 * gain, depth, None, (side, index)))
        return out

    @staticmethod
    def _may_use(state: State, seat: int, card: int) -> bool:
        """Could ``card``, on top of a closed pile, go into a new meld with our hand
        (``plans_with``'s first test) or onto one of our melds? If not, we draw."""
        if WILD_CAPABLE[card]:
            return True
        rules = state.rules
        hand = state.hands[seat]
        suit, rank = SUIT[card], RANK[card]
        mask = 0
        same = 0
        wilds = 0
        for c in hand:
            if WILD_CAPABLE[c]:
                wilds += 1
            if SUIT[c] == suit:  # a 2 sets its slot too (the joker's suit is -1)
                mask |= SLOT_BITS[c]
            if RANK[c] == rank:
                same += 1
        if (mask >> 1 | mask << 1 | mask >> 2 | mask << 2) & SLOT_BITS[card]:
            return True
        if rules.groups and same >= (1 if len(state.discard) >= 3 and wilds else 2):
            return True
        return bool(hooks_for(state.melds[rules.team_of(seat)], card, rules))

    def _other_hooks_of(
        self, state: State, team: int
    ) -> list[tuple[int, tuple[Meld, ...], dict[int, list[int]]]]:
        """Each other side with its melds and their hooks (natural card -> indexes of the
        melds it goes onto), each side's kept while its melds do not change."""
        memo = self._other
        if memo is None or memo[0] is not state.melds or memo[1] != team:
            memo = self._other = (
                state.melds,
                team,
                [
                    (t, melds, _hooks_of(state.rules, melds))
                    for t, melds in enumerate(state.melds)
                    if t != team
                ],
            )
        return memo[2]

    @staticmethod
    def _may_take_open(state: State, rules: RuleSet, hand: tuple[int, ...]) -> bool:
        """The open pile may always be taken, except a lone card that would strand us."""
        pile = state.discard
        if len(pile) == 1 and rules.single_take_no_discard and all(c == pile[0] for c in hand):
            return _accepts(state, state.turn, C.TakeDiscard())
        return True

    @staticmethod
    def _fits(rules: RuleSet, own: tuple[Meld, ...], hand: tuple[int, ...], card: int) -> bool:
        """Does ``card`` extend one of our melds or make a meld with our hand?"""
        if WILD_CAPABLE[card]:
            return True
        if any(fits(m, card, rules) for m in own):
            return True
        suit, rank = SUIT[card], RANK[card]
        near = sum(1 for c in hand if SUIT[c] == suit and 0 < abs(RANK[c] - rank) <= 2)
        return near >= 2 or (rules.groups and sum(1 for c in hand if RANK[c] == rank) >= 2)

    # -- playing

    def _play(self, state: State, seat: int) -> C.Command:
        v = self._view(state, seat)
        cmd = _first_accepted(state, seat, self._melds(v))
        if cmd is None:
            cmd = _first_accepted(state, seat, self._adds(v))
        if cmd is None:
            v.danger = self._danger(state, v.team)
            cmd = self._discard(state, seat, v)
        return cmd

    @staticmethod
    def _melds(v: _View) -> list[C.Command]:
        """New melds, biggest first (a wild counts against), that leave a playable hand."""
        n_hand = len(v.hand)
        late = n_hand <= 5
        if not v.may_go_out and n_hand - 3 < v.reserve:
            # ``keeps`` lets only a natural meld of 7+ cards (a canasta to close with) go
            masks = v.h.masks
            if n_hand < 7 or (
                masks[0].bit_count() < 7
                and masks[1].bit_count() < 7
                and masks[2].bit_count() < 7
                and masks[3].bit_count() < 7
                and max(v.h.ranks) < 7
            ):
                return []  # (a run's cards are slots held, a group's cards of its rank)
            plans: list[Plan] = [
                p
                for p in run_plans(v.h, v.rules, False)
                + group_plans(v.h, v.rules, False, v.group_ranks)
                if len(p.cards) >= 7
            ]
        else:
            # a 3-card meld leaning on a wild is only worth it late: not even proposed before
            plans = run_plans(v.h, v.rules, True, wild_min=0 if late else 4)
            plans += group_plans(v.h, v.rules, late, v.group_ranks)
        plans.sort(key=lambda p: (p.score, -p.wilds), reverse=True)
        out: list[C.Command] = []
        for plan in plans:
            n = len(plan.cards)
            if plan.wilds and n < 4 and not late:
                continue  # a 3-card meld leaning on a wild is only worth it late
            if v.keeps(len(v.hand) - n, n >= 7 and not plan.wilds):
                out.append(C.LayMeld(plan.cards))
        return out

    def _adds(self, v: _View) -> list[C.Command]:
        # ``keeps``, ``closes_with``, ``wild_ok`` and ``foreign_ok`` are inlined here (this
        # runs at every play); ``fits`` is their reference
        options: list[tuple[tuple[int, int, int], C.Command]] = []
        rules = v.rules
        n_hand = len(v.hand)
        h = v.h
        wilds = h.wilds
        masks, ranks = h.masks, h.ranks
        reloc = rules.wild_relocation
        facts = v.facts
        need = facts.need
        own = v.own
        go = v.may_go_out
        reserve = v.reserve
        gobm = rules.go_out_by_meld
        close_any = rules.close_requires == "any"

        def keeps(left: int, closes: bool) -> bool:
            if left <= 0:
                if not (left == 0 and gobm and go):
                    return False
            elif left <= 1 and not go:
                return False
            return go or closes or left >= reserve

        # while the reserve holds, ``keeps`` lets only a play that makes a canasta go
        locked = not go and n_hand - 1 < reserve
        if (
            not wilds
            and not (
                masks[0] & need[0] or masks[1] & need[1] or masks[2] & need[2] or masks[3] & need[3]
            )
            and not any(ranks[r] for r in facts.need_ranks)
        ):
            own = ()  # no card of ours fits any of our melds
        if own:
            sizes = facts.sizes
            kinds = facts.kinds
            team = v.team
            group_max = rules.group_max
            # ``wild_ok``'s tests that do not depend on the meld
            wild_clean = rules.close_requires == "clean" and not facts.has_clean
            wild_late = n_hand <= 4
            for index, m in enumerate(own):
                size = sizes[index]
                # locked, no add of ours makes it a canasta: naturals fit a run at slots
                # we hold, a group with cards of its rank; a wild alone, only where any
                # canasta closes
                if (
                    locked
                    and (size + (masks[m.suit].bit_count() if m.kind == SEQ else ranks[m.rank]) < 7)
                    and (not close_any or size + 1 < 7)
                ):
                    continue
                # ``extension``'s own first test, inlined: does any card of ours fit here?
                if m.kind == SEQ:
                    mask = masks[m.suit]
                    hit = (
                        mask >> (m.hi + 1) & 1
                        or (m.lo > 1 and mask >> (m.lo - 1) & 1)
                        or (m.wild >= 0 and reloc and mask >> m.wslot & 1)
                    )
                else:
                    hit = ranks[m.rank]
                if hit:
                    cards = extension(m, h, rules)
                    clean = close_any or m.wild < 0
                    while cards and not keeps(
                        n_hand - len(cards), clean and size + len(cards) >= 7
                    ):
                        cards.pop()
                    if cards:
                        reach = 1 if size < 7 <= size + len(cards) else 0
                        options.append(
                            ((2 + reach, len(cards), 0), C.AddToMeld(team, index, tuple(cards)))
                        )
                if (
                    wilds
                    and m.wild < 0
                    and not (m.kind == GROUP and group_max and size >= group_max)
                ):
                    kind = kinds[index]
                    if (
                        kind not in CLEAN_KINDS
                        and not (wild_clean and size >= 5)
                        and (kind is not None or size + 1 >= 7 or wild_late)
                        and keeps(n_hand - 1, close_any and size + 1 >= 7)
                    ):
                        reach = 1 if size < 7 <= size + 1 else 0
                        options.append(
                            ((1 + reach, -1, -1), C.AddToMeld(team, index, (h.pick_wild(m.suit),)))
                        )
        if not locked and rules.add_to_any_meld:  # (foreign adds never make our canasta)
            # only the melds some card of ours hooks onto can take naturals (``extension``
            # finds cards exactly where ``hooks`` lists one), and only where ``foreign_ok``
            # takes one card (it takes no more where it refuses one); a wild goes only
            # onto a clean canasta
            distinct = set(v.hand)
            others: set[tuple[int, int]] = set()
            spoilable: list[tuple[int, int]] = []
            me = v.team
            for t, side in enumerate(v.melds):
                if t != me and side:
                    side_hooks, side_clean = _foreign_of(rules, side)
                    for c in side_hooks.keys() & distinct:
                        for i in side_hooks[c]:
                            others.add((t, i))
                    if side_clean:
                        spoilable += [(t, i) for i in side_clean]
            spoil = wilds and spoilable and keeps(n_hand - 1, False)
            targets = others.union(spoilable) if spoil else others
            if targets:
                melds = v.melds
                for team, index in sorted(targets):
                    m = melds[team][index]
                    if (team, index) in others:
                        cards = extension(m, h, rules)
                        while cards and not (
                            v.foreign_ok(m, len(cards)) and keeps(n_hand - len(cards), False)
                        ):
                            cards.pop()
                        if cards:
                            options.append(
                                ((0, len(cards), 0), C.AddToMeld(team, index, tuple(cards)))
                            )
                    if spoil and (team, index) in spoilable:
                        # spoil their clean canasta: 100 points, and maybe their only way
                        # to close
                        options.append(
                            ((3, 0, 0), C.AddToMeld(team, index, (h.pick_wild(m.suit),)))
                        )
        if len(options) > 1:
            options.sort(key=lambda o: o[0], reverse=True)
        return [c for _, c in options]

    @staticmethod
    def _danger(state: State, team: int) -> set[int]:
        """Cards the next player could lay (anywhere, where anyone may add to any meld)."""
        global _DANGER
        rules = state.rules
        if rules.add_to_any_meld:
            team = -1  # the same cards for every side: shared by all the bots
        memo = _DANGER
        if memo is None or memo[0] is not state.melds or memo[1] is not rules or memo[2] != team:
            sets = [_feeding_of(rules, ms) for t, ms in enumerate(state.melds) if t != team]
            cards = sets[0] if len(sets) == 1 else set().union(*sets)
            memo = _DANGER = (state.melds, rules, team, cards)
        return memo[3]

    def discard_order(self, state: State, seat: int) -> list[int]:
        """Every card we could discard, the one ``_discard`` picks first."""
        v = self._view(state, seat)
        v.danger = self._danger(state, v.team)
        return [card for _, card in sorted(_discard_keys(state, v))]

    @staticmethod
    def _discard(state: State, seat: int, v: _View) -> C.Command:
        best = -1
        best_key = 1 << 30
        for key, card in _discard_keys(state, v):
            if key < best_key:
                best, best_key = card, key
        if best >= 0 and len(v.hand) > 1:
            return C.Discard(best)  # only a last card's discard can be refused
        order = [c for c in set(v.hand) if c != state.taken_single]
        cmd = _first_accepted(state, seat, (C.Discard(c) for c in order))
        if cmd is None:  # cannot happen: the engine never strands a hand
            cmd = legal_commands(state, seat)[0]
        return cmd


def _discard_keys(state: State, v: _View) -> list[tuple[int, int]]:
    """(key, card) of each card we may discard: the lowest key goes first."""
    values = card_values(v.rules)
    h = v.h
    masks = h.masks
    counts = h.counts
    ranks = h.ranks if v.rules.groups else None
    # cards the next player could lay (anywhere, where anyone may add to any meld)
    danger = v.danger
    single = state.taken_single
    # usefulness of a card: 2 per neighbour held, 1 per card two slots away, 2 per
    # other suit of its rank held (groups) and 1 for a copy, 6 if it would feed the
    # next player; the lowest is discarded, the highest valued first. A key packs
    # (usefulness, -value) into one int; wilds are kept (usefulness 100).
    info = _DISCARD_INFO
    suits_held = [-1] * 14  # per rank, the suits of it held (worked out once)
    out: list[tuple[int, int]] = []
    for card in set(v.hand):
        if card == single:
            continue
        suit, near1, near2, rank = info[card]
        if suit < 0:
            key = 100 * 1024
        else:
            mask = masks[suit]
            score = 2 * (mask & near1).bit_count() + (mask & near2).bit_count()
            if ranks is not None and ranks[rank] > 1:
                kinds = suits_held[rank]
                if kinds < 0:
                    kinds = suits_held[rank] = (
                        (counts[rank - 1] > 0)
                        + (counts[rank + 12] > 0)
                        + (counts[rank + 25] > 0)
                        + (counts[rank + 38] > 0)
                    )
                score += 2 * (kinds - 1) + (counts[card] > 1)
            if card in danger:
                score += 6  # it would feed the next player
            key = score * 1024 - values[card]
        out.append((key, card))
    return out


def _produced(state: State, seat: int, cmd: C.Command) -> int:
    """The position (our hand, the pile, the melds) ``cmd`` leaves, as a hash."""
    new = apply(state, seat, cmd)[1]
    return hash((new.hands[seat], new.discard, new.melds))


def _produced_by_discard(state: State, seat: int, card: int) -> int:
    """``_produced`` of discarding ``card``, without applying it."""
    return hash((_without(state.hands[seat], card), state.discard + (card,), state.melds))


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


def play_hand(state: State, bots: list[Bot], max_steps: int = 20_000) -> State:
    """Let ``bots`` (one per seat) play until the hand ends."""
    steps = 0
    while state.phase in (DRAW, PLAY) and steps < max_steps:
        seat = state.turn
        state = apply(state, seat, bots[seat].choose(state, seat))[1]
        steps += 1
    return state


__all__ = ["Bot", "GreedyBot", "RandomBot", "Rng", "play_hand"]
