"""The immutable state of one table's game (a match of one or more hands)."""

from __future__ import annotations

from typing import NamedTuple

from .melds import Meld
from .ruleset import RuleSet

# Phases (DESIGN.md convention 3): each has its own legal commands.
DRAW = "draw"  # the seat to play must draw or take the pile
PLAY = "play"  # meld, add, then discard
HAND_OVER = "hand_over"  # between hands of a match: the service deals the next one
OVER = "over"  # the match (game) is over

# Muerto status per side.
M_NONE = 0  # this rule set deals no muertos
M_TABLE = 1  # still on the table
M_TAKEN = 2  # taken, not yet played with (indirect pickup before the taker's next turn)
M_USED = 3  # taken and played with
M_STOCK = 4  # went under the stock: never taken

# A hard cap on turns per hand. Taking the open pile does not shrink the stock, so two
# players (or bots) could pass a pile back and forth forever; at the cap the hand ends
# as if the stock ran out. Real hands last well under 200 turns.
MAX_TURNS = 600
# A match to a target score ends after this many hands even if nobody reached it.
MAX_HANDS = 60


class State(NamedTuple):
    rules: RuleSet
    phase: str
    turn: int
    hands: tuple[tuple[int, ...], ...]
    melds: tuple[tuple[Meld, ...], ...]  # per team, in the order laid
    stock: tuple[int, ...]  # top first
    discard: tuple[int, ...]  # bottom first
    muertos: tuple[tuple[int, ...], ...]  # per team, top first; () once gone
    muerto_status: tuple[int, ...]
    muerto_taker: tuple[int, ...]  # seat that took each side's muerto, or -1
    taken_single: int  # single_take_no_discard: the card taken alone this turn, or -1
    hand_no: int
    first: int  # the seat that played first this hand
    match_first: int  # the seat that played first in the match
    turns: int  # turns ended this hand
    closer: int  # team that closed the last hand, or -1
    end_reason: str
    hand_scores: tuple[int, ...]  # the last hand's score per team
    totals: tuple[int, ...]  # match totals per team
    winner: int  # the last hand's winning team, or -1
    match_winner: int


def initial_state(rules: RuleSet) -> State:
    """A table before its first deal: the service deals with ``commands.Deal``."""
    teams = rules.teams
    zero = (0,) * teams
    return State(
        rules=rules,
        phase=HAND_OVER,
        turn=0,
        hands=((),) * rules.players,
        melds=((),) * teams,
        stock=(),
        discard=(),
        muertos=((),) * teams,
        muerto_status=(M_NONE,) * teams,
        muerto_taker=(-1,) * teams,
        taken_single=-1,
        hand_no=0,
        first=0,
        match_first=0,
        turns=0,
        closer=-1,
        end_reason="",
        hand_scores=zero,
        totals=zero,
        winner=-1,
        match_winner=-1,
    )


def team_seats(rules: RuleSet, team: int) -> list[int]:
    return [s for s in range(rules.players) if rules.team_of(s) == team]


def next_first(state: State) -> int:
    """The seat that starts the next hand: the first seat moves round."""
    if state.hand_no == 0:
        return state.first
    return (state.first + 1) % state.rules.players
