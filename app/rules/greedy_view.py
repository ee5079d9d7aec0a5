"""What GreedyBot reads off the table for one decision: its side's melds summed up
(``Facts``) and the seat's ``View`` with the rules of thumb that weigh a play (keep a
reserve of cards, keep a wild off a clean canasta, feed another side's meld only while it
stays far from a canasta). See ``greedy.py`` for the bot and its reasons.
"""

from __future__ import annotations

from typing import NamedTuple

from .handplan import Hand
from .melds import CLEAN_KINDS, GROUP, SEQ, Meld, canasta_kind
from .ruleset import RuleSet
from .state import M_TABLE, State

RESERVE = 12  # cards kept in hand while the side has no way to go out...
FOREIGN_MAX = 3  # largest size we let another side's meld reach by our cards
STOCK_TURNS = 1  # ...fewer once the stock holds less than RESERVE rounds of this many


class Facts(NamedTuple):
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


def needs(rules: RuleSet, melds: tuple[Meld, ...]) -> tuple[list[int], tuple[int, ...]]:
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


def facts_of_melds(rules: RuleSet, melds: tuple[Meld, ...]) -> Facts:
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
    need, need_ranks = needs(rules, melds)
    return Facts(
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


_NONE: frozenset[int] = frozenset()


class View:
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

    def __init__(self, state: State, seat: int, team: int, facts: Facts, h: Hand) -> None:
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
