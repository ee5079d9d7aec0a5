"""Helpers shared by the rules-engine tests: dealing, seeded bot line-ups, card counts.

Tests may use ``random.Random`` instances (seeded, reproducible); the engine never does.
"""

from __future__ import annotations

import random
from collections import Counter

from app.rules import commands as C
from app.rules.bots import Bot, GreedyBot, RandomBot
from app.rules.deal import random_deal
from app.rules.engine import apply
from app.rules.melds import meld_cards
from app.rules.ruleset import PRESET_PLAYERS, PRESETS, RuleSet, make_ruleset
from app.rules.state import DRAW, PLAY, State, initial_state

# Every (preset, players) the presets are offered with (RULES.md section 9).
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
            "greedy": True, "random": False, "mixed": seat % 2 == 0,
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
