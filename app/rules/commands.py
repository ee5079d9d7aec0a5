"""Commands a seat (or the table service) asks the engine to carry out."""

from __future__ import annotations

from typing import NamedTuple


class Draw(NamedTuple):
    """Draw the top card of the stock."""


class TakeDiscard(NamedTuple):
    """Take the discard pile. ``depth`` counts from the top (1 = top card); a closed or
    any-depth pile needs ``meld`` (cards from the hand melded with the card taken for)
    or ``add`` ((team, meld index) the card is added to), played in the same action."""

    depth: int = 1
    meld: tuple[int, ...] | None = None
    add: tuple[int, int] | None = None
    wild_as: int | None = None


class LayMeld(NamedTuple):
    cards: tuple[int, ...]
    wild_as: int | None = None


class AddToMeld(NamedTuple):
    team: int
    index: int  # type: ignore[assignment]  # shadows tuple.index, harmlessly
    cards: tuple[int, ...]
    wild_as: int | None = None


class Discard(NamedTuple):
    card: int


class Deal(NamedTuple):
    """Start a hand with exactly these cards (the service shuffles; tests fix decks).
    ``stock`` is top first, ``discard`` bottom first, each muerto top first."""

    hands: tuple[tuple[int, ...], ...]
    muertos: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    discard: tuple[int, ...] = ()
    first: int = 0


Command = Draw | TakeDiscard | LayMeld | AddToMeld | Discard | Deal

SYSTEM = -1  # the seat that deals: the table service, never a player
