"""The one door secrets leave through (DESIGN.md convention 5).

``view_for(state, viewer)`` is what a seat (0..players-1) or a spectator (``None``) may
see; ``redact(event, viewer, rules)`` is the form of an event that viewer receives.
Hidden hands are counts; a closed pile is its top card and a count; a muerto is its size
and whether it was taken; once a hand ends, everything is shown.
"""

from __future__ import annotations

from typing import Any

from . import events as E
from .cards import NAME
from .melds import SEQ, Meld, canasta_kind, render
from .ruleset import RuleSet
from .serialize import meld_to_dict
from .state import HAND_OVER, M_NONE, M_STOCK, M_TABLE, M_TAKEN, M_USED, OVER, State

Viewer = int | None  # a seat, or None for a spectator

_MUERTO = {M_NONE: "none", M_TABLE: "table", M_TAKEN: "taken", M_USED: "taken", M_STOCK: "stock"}


def _names(cards: tuple[int, ...]) -> list[str]:
    return [NAME[c] for c in cards]


def _meld_public(m: Meld, index: int, rules: RuleSet) -> dict[str, Any]:
    return {
        "index": index,
        "owner": m.owner,
        "type": "run" if m.kind == SEQ else "group",
        "cards": render(m),
        "size": m.size,
        "wild": NAME[m.wild] if m.wild >= 0 else None,
        "canasta": canasta_kind(m, rules),
    }


def _discard_view(rules: RuleSet, pile: tuple[int, ...], revealed: bool) -> dict[str, Any]:
    if rules.discard_pile == "closed" and not revealed:
        return {"kind": "closed", "size": len(pile), "cards": _names(pile[-1:])}
    return {"kind": rules.discard_pile, "size": len(pile), "cards": _names(pile)}


_cache: list[Any] = [None, None]  # (state, public part): states are immutable


def _public(state: State) -> dict[str, Any]:
    if _cache[0] is state:
        cached: dict[str, Any] = _cache[1]
        return cached
    rules = state.rules
    revealed = state.phase in (HAND_OVER, OVER) and state.end_reason != ""
    public: dict[str, Any] = {
        "phase": state.phase,
        "turn": state.turn,
        "hand_no": state.hand_no,
        "first": state.first,
        "players": rules.players,
        "teams": [rules.team_of(s) for s in range(rules.players)],
        "hand_sizes": [len(h) for h in state.hands],
        "melds": [[_meld_public(m, i, rules) for i, m in enumerate(team)] for team in state.melds],
        "discard": _discard_view(rules, state.discard, revealed),
        "stock_size": len(state.stock),
        "muertos": [
            {"size": len(state.muertos[t]), "status": _MUERTO[st], "taken": st in (M_TAKEN, M_USED)}
            for t, st in enumerate(state.muerto_status)
        ],
        "taken_single": NAME[state.taken_single] if state.taken_single >= 0 else None,
        "scores": {"hand": list(state.hand_scores), "totals": list(state.totals)},
        "end_reason": state.end_reason or None,
        "closer": state.closer,
        "winner": state.winner,
        "match_winner": state.match_winner,
    }
    if revealed:
        public["hands"] = [_names(h) for h in state.hands]
        public["muerto_cards"] = [_names(m) for m in state.muertos]
        public["stock"] = _names(state.stock)
    _cache[0], _cache[1] = state, public
    return public


def view_for(state: State, viewer: Viewer) -> dict[str, Any]:
    """Everything ``viewer`` may see of the table now, as a JSON-able dict."""
    view = dict(_public(state))
    view["viewer"] = viewer
    if viewer is not None and 0 <= viewer < state.rules.players:
        view["hand"] = _names(state.hands[viewer])
        view["team"] = state.rules.team_of(viewer)
    else:
        view["hand"] = None
        view["team"] = None
    return view


def redact(event: E.Event, viewer: Viewer, rules: RuleSet) -> dict[str, Any]:
    """The client form of ``event`` for ``viewer``: hidden cards never appear."""
    t = type(event)
    if t is E.Drew:
        assert isinstance(event, E.Drew)
        own = event.seat == viewer
        return {"type": "drew", "seat": event.seat, "card": NAME[event.card] if own else None}
    if t is E.Discarded:
        assert isinstance(event, E.Discarded)
        return {"type": "discarded", "seat": event.seat, "card": NAME[event.card]}
    if t is E.Melded:
        assert isinstance(event, E.Melded)
        m = event.meld
        return {
            "type": "melded",
            "seat": event.seat,
            "cards": _names(event.cards),
            "meld": _meld_public(m, -1, rules),
        }
    if t is E.Added:
        assert isinstance(event, E.Added)
        return {
            "type": "added",
            "seat": event.seat,
            "team": event.team,
            "index": event.index,
            "cards": _names(event.cards),
            "meld": _meld_public(event.meld, event.index, rules),
        }
    if t is E.TookPile:
        assert isinstance(event, E.TookPile)
        out: dict[str, Any] = {"type": "took_pile", "seat": event.seat, "count": len(event.cards)}
        if rules.discard_pile != "closed" or event.seat == viewer:
            out["cards"] = _names(event.cards)
        else:
            out["cards"] = None
            out["top"] = NAME[event.cards[-1]]
        return out
    if t is E.MuertoTaken:
        assert isinstance(event, E.MuertoTaken)
        own = event.seat == viewer
        return {
            "type": "muerto_taken",
            "seat": event.seat,
            "team": event.team,
            "direct": event.direct,
            "count": len(event.cards),
            "cards": _names(event.cards) if own else None,
        }
    if t is E.MuertoToStock:
        assert isinstance(event, E.MuertoToStock)
        return {"type": "muerto_to_stock", "team": event.team}
    if t is E.HandStarted:
        assert isinstance(event, E.HandStarted)
        seat_ok = viewer is not None and 0 <= viewer < len(event.hands)
        return {
            "type": "hand_started",
            "hand_no": event.hand_no,
            "first": event.first,
            "hand": _names(event.hands[viewer]) if seat_ok else None,  # type: ignore[index]
            "hand_sizes": [len(h) for h in event.hands],
            "muerto_sizes": [len(m) for m in event.muertos],
            "stock_size": len(event.stock),
            "discard": _discard_view(rules, event.discard, False),
        }
    assert isinstance(event, E.HandEnded)
    return {
        "type": "hand_ended",
        "reason": event.reason,
        "closer": event.closer,
        "scores": [dict(s) for s in event.scores],
        "winner": event.winner,
        "totals": list(event.totals),
        "match_over": event.match_over,
        "match_winner": event.match_winner,
    }


__all__ = ["view_for", "redact", "Viewer", "meld_to_dict"]
