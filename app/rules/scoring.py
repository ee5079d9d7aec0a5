"""Scoring a hand (docs/rules-reference.md, "Scoring a hand")."""

from __future__ import annotations

from typing import Any

from .cards import JOKER, RANK, card_at
from .melds import BONUS, GROUP, canasta_kind
from .ruleset import RuleSet
from .state import M_STOCK, M_TABLE, M_TAKEN, State

_VALUES: dict[tuple[str, int, int], tuple[int, ...]] = {}


def card_values(rules: RuleSet) -> tuple[int, ...]:
    """Points of each card int under these rules (cached: rules are few)."""
    key = (rules.card_points, rules.two_points, rules.joker_points)
    values = _VALUES.get(key)
    if values is None:
        out = []
        for c in range(53):
            r = RANK[c]
            if c == JOKER:
                out.append(rules.joker_points)
            elif r == 2:
                out.append(rules.two_points)
            elif r == 1:
                out.append(15)
            elif rules.card_points == "face":
                out.append(min(r, 10))
            else:
                out.append(5 if r <= 7 else 10)
        values = _VALUES[key] = tuple(out)
    return values


_PREFIX: dict[tuple[int, ...], tuple[int, ...]] = {}


def _slot_prefix(values: tuple[int, ...]) -> tuple[int, ...]:
    """Points of the natural cards of run slots 1..k, for k = 0..14 (a card's value
    depends only on its rank, so one table serves every suit). Cached per values table."""
    prefix = _PREFIX.get(values)
    if prefix is None:
        out = [0]
        for slot in range(1, 15):
            out.append(out[-1] + values[card_at(0, slot)])
        prefix = _PREFIX[values] = tuple(out)
    return prefix


def score_hand(state: State, closer: int) -> tuple[dict[str, Any], ...]:
    """Each side's breakdown: table cards, canastas, closing, hand, muerto, total."""
    rules = state.rules
    values = card_values(rules)
    prefix = _slot_prefix(values)
    teams = rules.teams
    table = [0] * teams
    canastas: list[list[str]] = [[] for _ in range(teams)]
    bonus = [0] * teams
    for team, melds in enumerate(state.melds):
        for m in melds:
            # the points of meld_cards(m), without listing them
            wild = m.wild
            if m.kind == GROUP:
                points = sum([values[c] for c in m.naturals])
                size = len(m.naturals) + (wild >= 0)
            else:
                lo, hi, wslot = m.lo, m.hi, m.wslot
                points = prefix[hi] - prefix[lo - 1]
                if lo <= wslot <= hi:  # the wild's slot holds no natural
                    points -= prefix[wslot] - prefix[wslot - 1]
                size = hi - lo + 1
            if wild >= 0:
                points += values[wild]
            table[team] += points
            for layer, card in m.foreign:  # add_to_any_meld: a card counts for who laid it
                table[team] -= values[card]
                table[layer] += values[card]
            if size < 7:
                continue  # not a canasta (canasta_kind would say None)
            kind = canasta_kind(m, rules)
            if kind:
                canastas[team].append(kind)
                bonus[team] += BONUS[kind]
    hand = [0] * teams
    for seat, cards in enumerate(state.hands):
        hand[rules.team_of(seat)] += sum([values[c] for c in cards])
    out = []
    for team in range(teams):
        status = state.muerto_status[team]
        penalty = 0
        if status in (M_TABLE, M_STOCK) or (status == M_TAKEN and rules.muerto_unused_penalty):
            penalty = rules.muerto_penalty
        close = rules.close_bonus if team == closer else 0
        total = table[team] + bonus[team] + close - hand[team] - penalty
        out.append(
            {
                "table": table[team],
                "canastas": canastas[team],
                "canasta_bonus": bonus[team],
                "close_bonus": close,
                "hand": -hand[team],
                "muerto_penalty": -penalty,
                "total": total,
            }
        )
    return tuple(out)


def best_team(rules: RuleSet, totals: tuple[int, ...] | list[int], first_seat: int) -> int:
    """The side with most points; a tie goes to the side that played first (seeds
    001, 003), then to the next side in turn order."""
    order: list[int] = []
    for i in range(rules.players):
        team = rules.team_of((first_seat + i) % rules.players)
        if team not in order:
            order.append(team)
    top = max(totals)
    return next(t for t in order if totals[t] == top)
