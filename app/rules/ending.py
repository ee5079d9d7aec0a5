"""The end of a turn and of a hand: whether a side may close or go out, the muerto
going under a stock that runs low, and the hand's end with its scores
(docs/rules-reference.md: "Going out", "When the stock runs low", "Scoring a hand").
"""

from __future__ import annotations

from . import events as E
from .evolve import emit
from .melds import CLEAN_KINDS, Meld, canasta_kind
from .ruleset import RuleSet
from .scoring import best_team, score_hand
from .state import M_TABLE, MAX_HANDS, MAX_TURNS, State


def can_close(rules: RuleSet, melds: tuple[Meld, ...]) -> bool:
    """Does a side own a canasta of a kind in ``close_requires``?"""
    for m in melds:
        kind = canasta_kind(m, rules)
        if kind and (rules.close_requires == "any" or kind in CLEAN_KINDS):
            return True
    return False


def close_message(rules: RuleSet) -> str:
    need = "a clean canasta" if rules.close_requires == "clean" else "a canasta"
    return f"you cannot close without {need}"


def can_go_out(state: State, team: int, melds: tuple[Meld, ...] | None = None) -> bool:
    """Could the side's player empty his hand now (muerto to take, or a closing)?"""
    if state.muerto_status[team] == M_TABLE:
        return True
    return can_close(state.rules, state.melds[team] if melds is None else melds)


def exhaust_stock(state: State, events: list[E.Event]) -> State:
    """When the stock runs low: a muerto goes under the stock as soon as the stock runs low."""
    while len(state.stock) <= state.rules.stock_end and M_TABLE in state.muerto_status:
        team = state.muerto_status.index(M_TABLE)  # team 0's first, then team 1's
        state = emit(state, events, E.MuertoToStock(team))
    return state


def end_of_turn(state: State, events: list[E.Event]) -> State:
    if len(state.stock) <= state.rules.stock_end and M_TABLE not in state.muerto_status:
        return end_hand(state, "stock", -1, events)
    if state.turns >= MAX_TURNS:
        return end_hand(state, "turn_cap", -1, events)
    return state


def end_hand(state: State, reason: str, closer: int, events: list[E.Event]) -> State:
    rules = state.rules
    scores = score_hand(state, closer)
    hand_totals = [s["total"] for s in scores]
    winner = best_team(rules, hand_totals, state.first)
    totals = tuple(t + h for t, h in zip(state.totals, hand_totals, strict=True))
    if rules.target_score:
        over = max(totals) >= rules.target_score or state.hand_no >= MAX_HANDS
    else:
        over = True
    match_winner = best_team(rules, totals, state.match_first) if over else -1
    event = E.HandEnded(reason, closer, scores, winner, totals, over, match_winner)
    return emit(state, events, event)
