"""Events: the facts a command produced. ``evolve`` folds them into the state."""

from __future__ import annotations

from typing import Any, NamedTuple

from .melds import Meld


class HandStarted(NamedTuple):
    hand_no: int
    first: int
    hands: tuple[tuple[int, ...], ...]
    muertos: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    discard: tuple[int, ...]


class Drew(NamedTuple):
    seat: int
    card: int


class TookPile(NamedTuple):
    seat: int
    cards: tuple[int, ...]  # the cards taken, bottom first (the last was the top)


class Melded(NamedTuple):
    seat: int
    cards: tuple[int, ...]  # from the hand
    meld: Meld


class Added(NamedTuple):
    seat: int
    team: int
    index: int  # type: ignore[assignment]  # shadows tuple.index, harmlessly
    cards: tuple[int, ...]
    meld: Meld  # the meld after the cards went in


class Discarded(NamedTuple):
    seat: int
    card: int


class MuertoTaken(NamedTuple):
    seat: int
    team: int
    cards: tuple[int, ...]
    direct: bool


class MuertoToStock(NamedTuple):
    team: int


class HandEnded(NamedTuple):
    reason: str  # "closed", "stock" or "turn_cap"
    closer: int  # the team that closed, or -1
    scores: tuple[dict[str, Any], ...]  # per team: the breakdown (scoring.py)
    winner: int
    totals: tuple[int, ...]
    match_over: bool
    match_winner: int


Event = (
    HandStarted
    | Drew
    | TookPile
    | Melded
    | Added
    | Discarded
    | MuertoTaken
    | MuertoToStock
    | HandEnded
)
