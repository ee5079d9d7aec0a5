"""``view_for`` and ``redact``: the one door secrets leave through (DESIGN.md convention 5)."""

from __future__ import annotations

import json
from collections import Counter

from app.rules import commands as C
from app.rules import events as E
from app.rules.cards import NAME, parse, parse_many
from app.rules.engine import apply
from app.rules.state import State, initial_state
from app.rules.views import redact, view_for
from tests.rules.rules_support import card_names, table

H0 = ["3H", "4H", "5H", "6H", "9C", "9D", "JS", "QS", "KS", "AC", "8D"]
H1 = ["3S", "4S", "5S", "7C", "7D", "10C", "10D", "JH", "QH", "KH", "AD"]


def names(cards: tuple[int, ...]) -> list[str]:
    return [NAME[c] for c in cards]


def play(state: State, seat: int, cmd: C.Command) -> tuple[list[E.Event], State]:
    return apply(state, seat, cmd)


def test_own_hand_visible_others_as_counts() -> None:
    s = table("cerrado", [H0, H1], stock_top=["7H"])
    v0 = view_for(s, 0)
    assert Counter(v0["hand"]) == Counter(H0)
    assert v0["hand_sizes"] == [11, 11]
    assert v0["viewer"] == 0 and v0["team"] == 0
    assert "hands" not in v0 and "stock" not in v0 and "muerto_cards" not in v0
    # nothing of the other hand, the stock or the muertos appears by name
    assert set(card_names(v0)) == set(H0)
    v1 = view_for(s, 1)
    assert Counter(v1["hand"]) == Counter(H1) and set(card_names(v1)) == set(H1)
    json.dumps(v0)


def test_spectator_sees_no_hand() -> None:
    s = table("abierto", [H0, H1], stock_top=["7H"])
    v = view_for(s, None)
    assert v["hand"] is None and v["team"] is None and v["viewer"] is None
    assert v["hand_sizes"] == [11, 11]
    assert card_names(v) == Counter()
    # an out-of-range seat is a spectator too
    assert view_for(s, 7)["hand"] is None


def test_four_players_partner_hand_hidden() -> None:
    hands = [H0, H1, ["2C", "3C", "4C"], ["5C", "6C", "8C", "9H"]]
    s = table("cerrado", hands, stock_top=["7H"])
    v = view_for(s, 0)
    assert v["teams"] == [0, 1, 0, 1]
    assert v["hand_sizes"] == [11, 11, 3, 4]
    assert set(card_names(v)) == set(H0)  # not the partner's 2C 3C 4C


def test_closed_pile_shows_top_and_size() -> None:
    s = table("cerrado", [H0, H1], stock_top=["7H"], discard=["KD", "2S", "9S"])
    for viewer in (0, 1, None):
        pile = view_for(s, viewer)["discard"]
        assert pile == {"kind": "closed", "size": 3, "cards": ["9S"]}
        assert "KD" not in card_names(view_for(s, viewer))
    empty = table("cerrado", [H0, H1], stock_top=["7H"])
    assert view_for(empty, 0)["discard"] == {"kind": "closed", "size": 0, "cards": []}


def test_open_pile_in_full() -> None:
    s = table("abierto", [H0, H1], stock_top=["7H"], discard=["KD", "2S", "9S"])
    assert view_for(s, None)["discard"] == {"kind": "open", "size": 3, "cards": ["KD", "2S", "9S"]}
    b = table("brasil", [H0, H1], stock_top=["7H"], discard=["KD", "2S", "9S"])
    assert view_for(b, 1)["discard"]["cards"] == ["KD", "2S", "9S"]
    assert view_for(b, 1)["discard"]["kind"] == "any_depth"


def test_stock_size_only() -> None:
    s = table("cerrado", [H0, H1], stock_top=["7H"])
    v = view_for(s, 0)
    assert v["stock_size"] == 108 - 22 - 22 == len(s.stock)
    assert "7H" not in card_names(v)


def test_muerto_size_and_taken_indirect() -> None:
    """Seat 0 melds down to one card and discards it: the muerto goes to the hand
    (indirect). Everybody sees its size and that it was taken, only seat 0 its cards."""
    s = table("cerrado", [["3H", "4H", "5H"], H1], stock_top=["KD"])
    assert [m["size"] for m in view_for(s, 1)["muertos"]] == [11, 11]
    assert [m["taken"] for m in view_for(s, 1)["muertos"]] == [False, False]
    assert view_for(s, None)["muertos"][0]["status"] == "table"
    muerto = s.muertos[0]
    _, s = play(s, 0, C.Draw())
    _, s = play(s, 0, C.LayMeld(parse_many(["3H", "4H", "5H"])))
    events, s = play(s, 0, C.Discard(parse("KD")))
    assert [type(e) for e in events] == [E.Discarded, E.MuertoTaken]
    taken = events[1]
    assert isinstance(taken, E.MuertoTaken) and not taken.direct
    for viewer in (1, None):
        m = view_for(s, viewer)["muertos"]
        assert m[0] == {"size": 0, "status": "taken", "taken": True}
        assert m[1]["size"] == 11 and not m[1]["taken"]
        assert view_for(s, viewer)["hand_sizes"][0] == 11
        r = redact(taken, viewer, s.rules)
        assert r["cards"] is None and r["count"] == 11 and r["direct"] is False
        assert card_names(r) == Counter()
        v = view_for(s, viewer)
        own = Counter(H1) if viewer == 1 else Counter()
        assert card_names(v) - own - card_names([v["melds"], v["discard"]]) == Counter()
    assert redact(taken, 0, s.rules)["cards"] == names(muerto)
    assert Counter(view_for(s, 0)["hand"]) == Counter(names(muerto))


def test_muerto_taken_direct_hidden_from_others() -> None:
    s = table("cerrado", [["3H", "4H", "5H", "6H"], H1], stock_top=["7H"])
    _, s = play(s, 0, C.Draw())
    events, s = play(s, 0, C.LayMeld(parse_many(["3H", "4H", "5H", "6H", "7H"])))
    taken = events[-1]
    assert isinstance(taken, E.MuertoTaken) and taken.direct
    assert redact(taken, 1, s.rules)["cards"] is None
    assert redact(taken, None, s.rules)["cards"] is None
    assert redact(taken, 0, s.rules)["cards"] == names(taken.cards)
    assert view_for(s, 1)["muertos"][0]["taken"] is True


def test_drew_hidden_from_others() -> None:
    s = table("cerrado", [H0, H1], stock_top=["7H"])
    events, s = play(s, 0, C.Draw())
    (drew,) = events
    assert isinstance(drew, E.Drew)
    assert redact(drew, 0, s.rules) == {"type": "drew", "seat": 0, "card": "7H"}
    assert redact(drew, 1, s.rules) == {"type": "drew", "seat": 0, "card": None}
    assert redact(drew, None, s.rules) == {"type": "drew", "seat": 0, "card": None}
    assert "7H" not in card_names(view_for(s, 1))
    assert "7H" in view_for(s, 0)["hand"]


def test_closed_take_shows_top_and_count_to_others() -> None:
    """Cerrado: seat 0 takes a closed pile KD 2S 9S with 9C 9D: the others learn the top
    (it is melded in the open anyway) and the count, not KD or 2S."""
    s = table("cerrado", [H0, H1], stock_top=["7H"], discard=["KD", "2S", "9S"])
    events, s = play(s, 0, C.TakeDiscard(meld=parse_many(["9C", "9D"])))
    took = events[0]
    assert isinstance(took, E.TookPile)
    assert names(took.cards) == ["KD", "2S", "9S"]
    for viewer in (1, None):
        r = redact(took, viewer, s.rules)
        assert r == {"type": "took_pile", "seat": 0, "count": 3, "cards": None, "top": "9S"}
        v = view_for(s, viewer)
        assert "KD" not in card_names(v) and "2S" not in card_names(v)
        assert v["hand_sizes"][0] == 11 + 3 - 3
    assert redact(took, 0, s.rules)["cards"] == ["KD", "2S", "9S"]
    assert {"KD", "2S"} <= set(view_for(s, 0)["hand"])


def test_open_take_known_to_all() -> None:
    s = table("abierto", [H0, H1], stock_top=["7H"], discard=["KD", "3S", "9S"])
    events, s = play(s, 0, C.TakeDiscard())
    (took,) = events
    for viewer in (0, 1, None):
        assert redact(took, viewer, s.rules)["cards"] == ["KD", "3S", "9S"]
    assert view_for(s, 1)["discard"]["size"] == 0


def test_public_events_are_public() -> None:
    s = table("cerrado", [H0, H1], stock_top=["7H"])
    _, s = play(s, 0, C.Draw())
    melded, s = play(s, 0, C.LayMeld(parse_many(["3H", "4H", "5H", "6H", "7H"])))
    discarded, s = play(s, 0, C.Discard(parse("JS")))
    for viewer in (0, 1, None):
        r = redact(melded[0], viewer, s.rules)
        assert r["cards"] == ["3H", "4H", "5H", "6H", "7H"]
        assert r["meld"]["cards"] == ["3H", "4H", "5H", "6H", "7H"]
        assert redact(discarded[0], viewer, s.rules)["card"] == "JS"
        v = view_for(s, viewer)
        assert v["melds"][0][0]["cards"] == ["3H", "4H", "5H", "6H", "7H"]
        assert v["discard"]["cards"] == ["JS"]
        assert v["turn"] == 1 and v["phase"] == "draw"


def test_hand_started_shows_only_own_hand() -> None:
    rules_state = table("cerrado", [H0, H1], stock_top=["7H"], discard=["KD", "2S"])
    deal = C.Deal(
        hands=rules_state.hands,
        muertos=rules_state.muertos,
        stock=rules_state.stock,
        discard=rules_state.discard,
    )
    (started,) = apply(initial_state(rules_state.rules), C.SYSTEM, deal)[0]
    rules = rules_state.rules
    r0 = redact(started, 0, rules)
    assert Counter(r0["hand"]) == Counter(H0)
    assert r0["hand_sizes"] == [11, 11] and r0["muerto_sizes"] == [11, 11]
    assert r0["discard"] == {"kind": "closed", "size": 2, "cards": ["2S"]}
    assert set(card_names(r0)) == set(H0) | {"2S"}
    rs = redact(started, None, rules)
    assert rs["hand"] is None and set(card_names(rs)) == {"2S"}


def test_everything_revealed_after_the_hand() -> None:
    """No muertos, one card in the stock: seat 0 draws it and discards; the stock is out
    and the hand ends. Every viewer now sees every hand, the stock and the whole pile."""
    s = table("cerrado", [H0, H1], stock_top=["7H"], discard=["KD", "2S"], overrides={"muertos": 0})
    s = s._replace(stock=s.stock[:1])
    before = view_for(s, None)
    assert "hands" not in before
    _, s = play(s, 0, C.Draw())
    events, s = play(s, 0, C.Discard(parse("JS")))
    assert isinstance(events[-1], E.HandEnded) and s.end_reason == "stock"
    for viewer in (0, 1, None):
        v = view_for(s, viewer)
        assert [Counter(h) for h in v["hands"]] == [Counter(names(h)) for h in s.hands]
        assert v["discard"]["cards"] == ["KD", "2S", "JS"]  # the closed pile opens
        assert v["stock"] == names(s.stock)
        assert v["end_reason"] == "stock" and v["phase"] == "over"
        assert v["scores"]["hand"] == list(s.hand_scores)
        ended = redact(events[-1], viewer, s.rules)
        assert ended["type"] == "hand_ended" and ended["reason"] == "stock"
        assert [x["total"] for x in ended["scores"]] == list(s.hand_scores)


def test_muerto_under_the_stock_stays_hidden() -> None:
    s = table("cerrado", [["3H", "4H", "5H"], H1], stock_top=["KD"])
    s = s._replace(stock=s.stock[:2])
    _, s = play(s, 0, C.Draw())
    _, s = play(s, 0, C.Discard(parse("KD")))
    _, s = play(s, 1, C.Draw())  # the stock runs out: team 0's muerto goes under it
    assert view_for(s, None)["muertos"][0]["status"] == "stock"
    assert view_for(s, None)["stock_size"] == 11
    assert "muerto_cards" not in view_for(s, 0) and "stock" not in view_for(s, 0)
    assert set(card_names(view_for(s, 0))) <= {"3H", "4H", "5H", "KD"}
