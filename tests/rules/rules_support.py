"""Helpers shared by the rules-engine tests: dealing, seeded bot line-ups, card counts.

Tests may use ``random.Random`` instances (seeded, reproducible); the engine never does.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

from app.rules import commands as C
from app.rules.bots import Bot, RandomBot
from app.rules.cards import NAME, full_deck, parse_many
from app.rules.deal import random_deal
from app.rules.engine import apply
from app.rules.greedy import GreedyBot
from app.rules.melds import meld_cards
from app.rules.ruleset import PRESET_PLAYERS, PRESETS, RuleSet, make_ruleset
from app.rules.state import DRAW, HAND_OVER, M_TABLE, OVER, PLAY, State, initial_state

# Every (preset, players) the presets are offered with (docs/rules-reference.md, part 3).
GAMES: list[tuple[str, int]] = [(p, n) for p in PRESETS for n in PRESET_PLAYERS[p]]


def dealt(rules: RuleSet, seed: int, first: int = 0, state: State | None = None) -> State:
    """``state`` (default: a fresh table) after a seeded deal."""
    base = state if state is not None else initial_state(rules)
    deal = random_deal(rules, first, random.Random(seed))
    return apply(base, C.SYSTEM, deal)[1]


def new_hand(preset: str, players: int, seed: int) -> State:
    return dealt(make_ruleset(preset, players), seed)


def bots_for(lineup: str, players: int, seed: int) -> list[Bot]:
    """``lineup`` is one letter per seat class: "greedy", "random", or "mixed"
    (greedy on even seats, random on odd ones) and "random_greedy" (the other way)."""
    out: list[Bot] = []
    for seat in range(players):
        greedy = {
            "greedy": True,
            "random": False,
            "mixed": seat % 2 == 0,
            "random_greedy": seat % 2 == 1,
        }[lineup]
        out.append(GreedyBot() if greedy else RandomBot(random.Random(seed * 31 + seat)))
    return out


def in_play(state: State) -> bool:
    return state.phase in (DRAW, PLAY)


def all_cards(state: State) -> Counter[int]:
    """Every card of the hand wherever it lies: hands, melds, stock, pile, muertos."""
    out: Counter[int] = Counter()
    for h in state.hands:
        out.update(h)
    for team in state.melds:
        for m in team:
            out.update(meld_cards(m))
    out.update(state.stock)
    out.update(state.discard)
    for m in state.muertos:
        out.update(m)
    return out


_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_NAMES = set(NAME)


def card_names(obj: Any) -> Counter[str]:
    """Every card name in a JSON-able value, keys included (``2H=5H`` counts both)."""
    found = []
    for text in _STRING.findall(json.dumps(obj)):
        if text in _NAMES:
            found.append(text)
        elif "=" in text:
            found.extend(part for part in text.split("=") if part in _NAMES)
    return Counter(found)


def table(
    preset: str,
    hands: list[list[str]],
    stock_top: list[str] = (),  # type: ignore[assignment]
    discard: list[str] = (),  # type: ignore[assignment]
    players: int | None = None,
    first: int = 0,
    overrides: dict[str, Any] | None = None,
) -> State:
    """A hand dealt from a full deck with these hands, pile (bottom first) and stock top;
    the muertos and the rest of the stock come from the remaining cards, in deck order."""
    rules = make_ruleset(preset, players or len(hands), overrides)
    rest = list(full_deck(rules.jokers))
    fixed = [parse_many(h) for h in hands]
    top = parse_many(stock_top)
    pile = parse_many(discard)
    for c in [*(c for h in fixed for c in h), *top, *pile]:
        rest.remove(c)
    muertos = []
    for _ in range(rules.muertos):
        muertos.append(tuple(rest[: rules.muerto_size]))
        del rest[: rules.muerto_size]
    deal = C.Deal(
        hands=tuple(fixed),
        muertos=tuple(muertos),
        stock=top + tuple(rest),
        discard=pile,
        first=first,
    )
    return apply(initial_state(rules), C.SYSTEM, deal)[1]


def revealed(state: State) -> bool:
    """Once a hand has ended everything is shown (section: views)."""
    return state.phase in (HAND_OVER, OVER) and state.end_reason != ""


def resample(
    state: State, viewer: int | None, rng: random.Random, keep: int | None = None
) -> State:
    """``state`` with everything ``viewer`` cannot see dealt again: the cards of the other
    seats' hands (except ``keep``'s), the muertos still on the table, the stock, and a
    closed pile's cards below its top are shuffled among those places, sizes kept."""
    if revealed(state):
        return state
    rules = state.rules
    seats = [s for s in range(rules.players) if s != viewer and s != keep]
    pool: list[int] = []
    for s in seats:
        pool.extend(state.hands[s])
    on_table = [t for t, m in enumerate(state.muertos) if m]
    for t in on_table:
        assert state.muerto_status[t] == M_TABLE
        pool.extend(state.muertos[t])
    pool.extend(state.stock)
    closed = rules.discard_pile == "closed" and len(state.discard) > 1
    if closed:
        pool.extend(state.discard[:-1])
    rng.shuffle(pool)
    pos = 0

    def take(n: int) -> tuple[int, ...]:
        nonlocal pos
        out = tuple(pool[pos : pos + n])
        pos += n
        return out

    hands = list(state.hands)
    for s in seats:
        hands[s] = tuple(sorted(take(len(state.hands[s]))))
    muertos = list(state.muertos)
    for t in on_table:
        muertos[t] = take(len(state.muertos[t]))
    stock = take(len(state.stock))
    discard = state.discard
    if closed:
        discard = take(len(discard) - 1) + discard[-1:]
    assert pos == len(pool)
    return state._replace(hands=tuple(hands), muertos=tuple(muertos), stock=stock, discard=discard)
