"""States, events and commands as plain JSON-able dicts, and back, exactly.

States are what the live tables keep in Redis, so they use card ints and flat lists
(fast); events and commands are what clients see, so they use card names.
"""

from __future__ import annotations

from typing import Any

from . import commands as C
from . import events as E
from .cards import NAME, parse, parse_many
from .melds import SEQ, Meld, render
from .ruleset import RuleSet, ruleset_from_dict
from .state import State

_RULES_DICT: dict[RuleSet, dict[str, Any]] = {}


def _rules_dict(rules: RuleSet) -> dict[str, Any]:
    d = _RULES_DICT.get(rules)
    if d is None:
        d = _RULES_DICT[rules] = rules.to_dict()
    return d


def _meld_list(m: Meld) -> list[Any]:
    return [
        m.kind,
        m.suit,
        m.lo,
        m.hi,
        m.rank,
        list(m.naturals),
        m.wild,
        m.wslot,
        m.owner,
        [list(f) for f in m.foreign],
    ]


# A meld is built from its fields as a tuple directly (``tuple.__new__``), without the
# NamedTuple's generated ``__new__``: a state holds a dozen melds or more.
_new_tuple = tuple.__new__


def _meld_from_list(x: list[Any]) -> Meld:
    foreign = x[9]
    return _new_tuple(
        Meld,
        (
            x[0],
            x[1],
            x[2],
            x[3],
            x[4],
            tuple(x[5]),
            x[6],
            x[7],
            x[8],
            tuple([tuple(f) for f in foreign]) if foreign else (),
        ),
    )


def state_to_dict(s: State) -> dict[str, Any]:
    return {
        "rules": _rules_dict(s.rules),
        "phase": s.phase,
        "turn": s.turn,
        "hands": [list(h) for h in s.hands],
        "melds": [[_meld_list(m) for m in team] for team in s.melds],
        "stock": list(s.stock),
        "discard": list(s.discard),
        "muertos": [list(m) for m in s.muertos],
        "muerto_status": list(s.muerto_status),
        "muerto_taker": list(s.muerto_taker),
        "taken_single": s.taken_single,
        "hand_no": s.hand_no,
        "first": s.first,
        "match_first": s.match_first,
        "turns": s.turns,
        "closer": s.closer,
        "end_reason": s.end_reason,
        "hand_scores": list(s.hand_scores),
        "totals": list(s.totals),
        "winner": s.winner,
        "match_winner": s.match_winner,
    }


_STATE_FIELDS = (
    "rules",
    "phase",
    "turn",
    "hands",
    "melds",
    "stock",
    "discard",
    "muertos",
    "muerto_status",
    "muerto_taker",
    "taken_single",
    "hand_no",
    "first",
    "match_first",
    "turns",
    "closer",
    "end_reason",
    "hand_scores",
    "totals",
    "winner",
    "match_winner",
)
if State._fields != _STATE_FIELDS:  # pragma: no cover - state_from_dict needs updating
    raise ImportError("State's fields changed: update serialize.state_from_dict")


def state_from_dict(d: dict[str, Any]) -> State:
    # the fields in State's order (checked above; the tests round-trip every state of
    # random games of every preset)
    return _new_tuple(
        State,
        (
            ruleset_from_dict(d["rules"]),
            d["phase"],
            d["turn"],
            tuple([tuple(h) for h in d["hands"]]),
            tuple([tuple([_meld_from_list(m) for m in team]) for team in d["melds"]]),
            tuple(d["stock"]),
            tuple(d["discard"]),
            tuple([tuple(m) for m in d["muertos"]]),
            tuple(d["muerto_status"]),
            tuple(d["muerto_taker"]),
            d["taken_single"],
            d["hand_no"],
            d["first"],
            d["match_first"],
            d["turns"],
            d["closer"],
            d["end_reason"],
            tuple(d["hand_scores"]),
            tuple(d["totals"]),
            d["winner"],
            d["match_winner"],
        ),
    )


# ---------------------------------------------------------------- melds and events


def meld_to_dict(m: Meld) -> dict[str, Any]:
    return {
        "kind": "run" if m.kind == SEQ else "group",
        "suit": m.suit,
        "lo": m.lo,
        "hi": m.hi,
        "rank": m.rank,
        "naturals": [NAME[c] for c in m.naturals],
        "wild": NAME[m.wild] if m.wild >= 0 else None,
        "wslot": m.wslot,
        "owner": m.owner,
        "foreign": [[t, NAME[c]] for t, c in m.foreign],
        "cards": render(m),
    }


def meld_from_dict(d: dict[str, Any]) -> Meld:
    return Meld(
        0 if d["kind"] == "run" else 1,
        d["suit"],
        d["lo"],
        d["hi"],
        d["rank"],
        parse_many(d["naturals"]),
        parse(d["wild"]) if d["wild"] else -1,
        d["wslot"],
        d["owner"],
        tuple((t, parse(c)) for t, c in d["foreign"]),
    )


def _cards(cards: tuple[int, ...]) -> list[str]:
    return [NAME[c] for c in cards]


def event_to_dict(e: E.Event) -> dict[str, Any]:
    t = type(e)
    if t is E.HandStarted:
        assert isinstance(e, E.HandStarted)
        return {
            "type": "hand_started",
            "hand_no": e.hand_no,
            "first": e.first,
            "hands": [_cards(h) for h in e.hands],
            "muertos": [_cards(m) for m in e.muertos],
            "stock": _cards(e.stock),
            "discard": _cards(e.discard),
        }
    if t is E.Drew:
        assert isinstance(e, E.Drew)
        return {"type": "drew", "seat": e.seat, "card": NAME[e.card]}
    if t is E.TookPile:
        assert isinstance(e, E.TookPile)
        return {"type": "took_pile", "seat": e.seat, "cards": _cards(e.cards)}
    if t is E.Melded:
        assert isinstance(e, E.Melded)
        return {
            "type": "melded",
            "seat": e.seat,
            "cards": _cards(e.cards),
            "meld": meld_to_dict(e.meld),
        }
    if t is E.Added:
        assert isinstance(e, E.Added)
        return {
            "type": "added",
            "seat": e.seat,
            "team": e.team,
            "index": e.index,
            "cards": _cards(e.cards),
            "meld": meld_to_dict(e.meld),
        }
    if t is E.Discarded:
        assert isinstance(e, E.Discarded)
        return {"type": "discarded", "seat": e.seat, "card": NAME[e.card]}
    if t is E.MuertoTaken:
        assert isinstance(e, E.MuertoTaken)
        return {
            "type": "muerto_taken",
            "seat": e.seat,
            "team": e.team,
            "cards": _cards(e.cards),
            "direct": e.direct,
        }
    if t is E.MuertoToStock:
        assert isinstance(e, E.MuertoToStock)
        return {"type": "muerto_to_stock", "team": e.team}
    assert isinstance(e, E.HandEnded)
    return {
        "type": "hand_ended",
        "reason": e.reason,
        "closer": e.closer,
        "scores": [dict(s, canastas=list(s["canastas"])) for s in e.scores],
        "winner": e.winner,
        "totals": list(e.totals),
        "match_over": e.match_over,
        "match_winner": e.match_winner,
    }


def event_from_dict(d: dict[str, Any]) -> E.Event:
    t = d["type"]
    if t == "hand_started":
        return E.HandStarted(
            d["hand_no"],
            d["first"],
            tuple(parse_many(h) for h in d["hands"]),
            tuple(parse_many(m) for m in d["muertos"]),
            parse_many(d["stock"]),
            parse_many(d["discard"]),
        )
    if t == "drew":
        return E.Drew(d["seat"], parse(d["card"]))
    if t == "took_pile":
        return E.TookPile(d["seat"], parse_many(d["cards"]))
    if t == "melded":
        return E.Melded(d["seat"], parse_many(d["cards"]), meld_from_dict(d["meld"]))
    if t == "added":
        return E.Added(
            d["seat"], d["team"], d["index"], parse_many(d["cards"]), meld_from_dict(d["meld"])
        )
    if t == "discarded":
        return E.Discarded(d["seat"], parse(d["card"]))
    if t == "muerto_taken":
        return E.MuertoTaken(d["seat"], d["team"], parse_many(d["cards"]), d["direct"])
    if t == "muerto_to_stock":
        return E.MuertoToStock(d["team"])
    if t == "hand_ended":
        return E.HandEnded(
            d["reason"],
            d["closer"],
            tuple(dict(s) for s in d["scores"]),
            d["winner"],
            tuple(d["totals"]),
            d["match_over"],
            d["match_winner"],
        )
    raise ValueError(f"unknown event type {t!r}")


# ---------------------------------------------------------------- commands


def command_to_dict(c: C.Command) -> dict[str, Any]:
    t = type(c)
    if t is C.Draw:
        return {"type": "draw"}
    if t is C.TakeDiscard:
        assert isinstance(c, C.TakeDiscard)
        d: dict[str, Any] = {"type": "take_discard", "depth": c.depth}
        if c.meld is not None:
            d["meld"] = _cards(c.meld)
        if c.add is not None:
            d["add"] = {"team": c.add[0], "meld": c.add[1]}
        if c.wild_as is not None:
            d["wild_as"] = NAME[c.wild_as]
        return d
    if t is C.LayMeld:
        assert isinstance(c, C.LayMeld)
        d = {"type": "meld", "cards": _cards(c.cards)}
        if c.wild_as is not None:
            d["wild_as"] = NAME[c.wild_as]
        return d
    if t is C.AddToMeld:
        assert isinstance(c, C.AddToMeld)
        d = {"type": "add", "team": c.team, "meld": c.index, "cards": _cards(c.cards)}
        if c.wild_as is not None:
            d["wild_as"] = NAME[c.wild_as]
        return d
    if t is C.Discard:
        assert isinstance(c, C.Discard)
        return {"type": "discard", "card": NAME[c.card]}
    raise ValueError("that command has no client form")


def command_from_dict(d: dict[str, Any]) -> C.Command:
    """A client's command (already shape-checked by the protocol layer) as a command.
    Raises ValueError for unknown cards or types."""
    t = d.get("type")
    wild = d.get("wild_as")
    wild_as = parse(wild) if wild else None
    if t == "draw":
        return C.Draw()
    if t == "take_discard":
        add = d.get("add")
        return C.TakeDiscard(
            depth=int(d.get("depth", 1)),
            meld=parse_many(d["meld"]) if d.get("meld") is not None else None,
            add=(int(add["team"]), int(add["meld"])) if add is not None else None,
            wild_as=wild_as,
        )
    if t == "meld":
        return C.LayMeld(parse_many(d["cards"]), wild_as)
    if t == "add":
        return C.AddToMeld(int(d["team"]), int(d["meld"]), parse_many(d["cards"]), wild_as)
    if t == "discard":
        return C.Discard(parse(d["card"]))
    raise ValueError(f"unknown command type {t!r}")
