"""What GreedyBot keeps between decisions, so that a decision costs little: per bot, the
hand's index derived from the last one and the facts of its side's melds; shared by
every bot, the hooks, feeding cards and facts of a tuple of melds. Every cache is a pure
function of the objects it is keyed by (docs/rules.md), so none changes a move.
"""

from __future__ import annotations

from bisect import bisect_left

from .greedy_view import FOREIGN_MAX, Facts, View, facts_of_melds
from .handplan import Hand, feeding, hooks
from .melds import CLEAN_KINDS, GROUP, SEQ, Meld, canasta_kind
from .ruleset import RuleSet
from .state import State

# ``hooks`` of a tuple of melds, shared by every GreedyBot (the bots at one table read the
# same melds): id -> (melds, rules, hooks). Holding the melds keeps their id unique.
_HOOKS: dict[int, tuple[tuple[Meld, ...], RuleSet, dict[int, list[int]]]] = {}


def hooks_of(rules: RuleSet, melds: tuple[Meld, ...]) -> dict[int, list[int]]:
    memo = _HOOKS.get(id(melds))
    if memo is None or memo[0] is not melds or memo[1] is not rules:
        if len(_HOOKS) >= 256:
            _HOOKS.clear()
        memo = _HOOKS[id(melds)] = (melds, rules, hooks(melds, rules))
    return memo[2]


# ``feeding`` of a tuple of melds, shared likewise.
_FEEDING: dict[int, tuple[tuple[Meld, ...], RuleSet, set[int]]] = {}


def feeding_of(rules: RuleSet, melds: tuple[Meld, ...]) -> set[int]:
    memo = _FEEDING.get(id(melds))
    if memo is None or memo[0] is not melds or memo[1] is not rules:
        if len(_FEEDING) >= 256:
            _FEEDING.clear()
        memo = _FEEDING[id(melds)] = (melds, rules, feeding(list(melds), rules))
    return memo[2]


# Each side with melds and their ``hooks``, for the last ``state.melds`` seen:
# (state.melds, rules, [(side bit, hooks)]), shared.
_HOOKED: tuple[object, RuleSet, list[tuple[int, dict[int, list[int]]]]] | None = None


def hooked_sides(state: State) -> list[tuple[int, dict[int, list[int]]]]:
    global _HOOKED
    memo = _HOOKED
    if memo is None or memo[0] is not state.melds or memo[1] is not state.rules:
        memo = _HOOKED = (
            state.melds,
            state.rules,
            [
                (1 << t, hooks_of(state.rules, melds))
                for t, melds in enumerate(state.melds)
                if melds
            ],
        )
    return memo[2]


# For another side's melds (where anyone may add to any meld), shared likewise: the
# ``hooks`` of the melds ``foreign_ok`` lets us add one card to (it takes no more where it
# refuses one), and the indexes of its clean canastas (a wild of ours spoils them).
_FOREIGN: dict[int, tuple[tuple[Meld, ...], RuleSet, dict[int, list[int]], list[int]]] = {}


def foreign_of(rules: RuleSet, melds: tuple[Meld, ...]) -> tuple[dict[int, list[int]], list[int]]:
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
            for c, indexes in hooks_of(rules, melds).items():
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


# ``facts_of_melds`` of a tuple of melds, shared by the bots of one side: id -> facts.
_FACTS: dict[int, Facts] = {}

# The last ``danger``: (state.melds, rules, team or -1, cards), shared.
_DANGER: tuple[object, RuleSet, int, set[int]] | None = None


def danger(state: State, team: int) -> set[int]:
    """Cards the next player could lay (anywhere, where anyone may add to any meld)."""
    global _DANGER
    rules = state.rules
    if rules.add_to_any_meld:
        team = -1  # the same cards for every side: shared by all the bots
    memo = _DANGER
    if memo is None or memo[0] is not state.melds or memo[1] is not rules or memo[2] != team:
        sets = [feeding_of(rules, ms) for t, ms in enumerate(state.melds) if t != team]
        cards = sets[0] if len(sets) == 1 else set().union(*sets)
        memo = _DANGER = (state.melds, rules, team, cards)
    return memo[3]


class Memory:
    """One bot's caches: its last hand read and its side's facts, the other sides' melds."""

    __slots__ = ("facts", "others", "other", "hand", "gone")

    def __init__(self) -> None:
        self.facts: Facts | None = None
        # every meld of the other sides, kept while state.melds is the same object
        self.others: tuple[object, int, list[tuple[int, int, Meld]]] | None = None
        # the other sides' melds with their hooks, kept while state.melds is the same
        self.other: (
            tuple[object, int, list[tuple[int, tuple[Meld, ...], dict[int, list[int]]]]] | None
        ) = None
        # the last hand read, and the cards our last command took out of it: the next
        # hand is usually that one plus a drawn card or minus those cards
        self.hand: tuple[tuple[int, ...], Hand] | None = None
        self.gone: tuple[int, ...] | None = None

    def hand_of(self, hand: tuple[int, ...]) -> Hand:
        """``Hand(hand)``, derived from the last hand read when it is that one plus one
        card (a draw) or minus the cards of our last command (checked as multisets)."""
        memo = self.hand
        if memo is not None:
            old, h = memo
            if old is hand:
                return h
            n, n_old = len(hand), len(old)
            gone = self.gone
            # (the engine keeps hands sorted and removes cards in place, so comparing in
            # that order suffices; if it ever did otherwise we would just rebuild)
            if n == n_old + 1:
                card = sum(hand) - sum(old)
                if 0 <= card <= 52:
                    i = bisect_left(old, card)
                    # ``hand`` is ``old`` with ``card`` put in at i
                    if hand[i] == card and hand[:i] == old[:i] and hand[i + 1 :] == old[i:]:
                        h = h.plus(card, hand)
                        self.hand = (hand, h)
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
                        self.hand = (hand, h)
                        return h
        h = Hand(hand)
        self.hand = (hand, h)
        return h

    def facts_of(self, rules: RuleSet, melds: tuple[Meld, ...]) -> Facts:
        facts = self.facts
        if facts is None or facts.melds is not melds or facts.rules is not rules:
            facts = _FACTS.get(id(melds))
            if facts is None or facts.melds is not melds or facts.rules is not rules:
                if len(_FACTS) >= 256:
                    _FACTS.clear()
                facts = _FACTS[id(melds)] = facts_of_melds(rules, melds)
            self.facts = facts
        return facts

    def others_of(self, state: State, team: int) -> list[tuple[int, int, Meld]]:
        """Every meld of the other sides, where anyone may add to any meld (else none)."""
        if not state.rules.add_to_any_meld:
            return []
        memo = self.others
        if memo is None or memo[0] is not state.melds or memo[1] != team:
            memo = self.others = (
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

    def view(self, state: State, seat: int) -> View:
        """The view of ``seat``."""
        rules = state.rules
        team = seat % 2 if rules.pairs and rules.players == 4 else seat  # (team_of)
        melds = state.melds[team]
        facts = self.facts
        if facts is None or facts.melds is not melds or facts.rules is not rules:
            facts = self.facts_of(rules, melds)
        return View(state, seat, team, facts, self.hand_of(state.hands[seat]))

    def other_hooks_of(
        self, state: State, team: int
    ) -> list[tuple[int, tuple[Meld, ...], dict[int, list[int]]]]:
        """Each other side with its melds and their hooks (natural card -> indexes of the
        melds it goes onto), each side's kept while its melds do not change."""
        memo = self.other
        if memo is None or memo[0] is not state.melds or memo[1] != team:
            memo = self.other = (
                state.melds,
                team,
                [
                    (t, melds, hooks_of(state.rules, melds))
                    for t, melds in enumerate(state.melds)
                    if t != team
                ],
            )
        return memo[2]
