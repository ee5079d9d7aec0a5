"""The spy: checks every frame a viewer received against the engine's truth.

The truth is the archived game (GET /api/games/{id}), whose log holds every record with
unredacted events. Folding those events with ``app.rules.engine.evolve`` gives the state
at each version; each frame is then checked on its own terms, independently of
``app.rules.views``:

* a card name may appear in a frame only where this viewer may see it (other seats'
  draws and muerto pickups carry no cards, a closed pile shows its top card, a deal and
  its salt stay secret until the hand is revealed, a snapshot shows the viewer's own
  hand only);
* the viewer's own hand, folded from its frames, equals the engine's at every version;
* versions are contiguous and every version of the log reaches the viewer.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from app.rules.cards import NAME, parse
from app.rules.engine import evolve
from app.rules.melds import meld_cards
from app.rules.ruleset import ruleset_from_dict
from app.rules.serialize import event_from_dict
from app.rules.state import HAND_OVER, OVER, State, initial_state

CARD_NAMES = frozenset(NAME)


def card_names(obj: Any) -> list[str]:
    """Every string anywhere in ``obj`` that names a card."""
    out: list[str] = []
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            if x in CARD_NAMES:
                out.append(x)
        elif isinstance(x, dict):
            # wild_as names the slot a wild card stands for, not a card anyone holds
            stack.extend(val for key, val in x.items() if key != "wild_as")
        elif isinstance(x, list | tuple):
            stack.extend(x)
    return out


def names(cards: Any) -> list[str]:
    return [NAME[c] for c in cards]


@dataclass
class Truth:
    rules: Any
    records: dict[int, dict[str, Any]]  # by version
    states: dict[int, State]  # the engine state after each version
    last_v: int
    final: State
    revealed_at: dict[int, int] = field(default_factory=dict)  # hand_no -> version

    def state_at(self, v: int) -> State:
        return self.states[v]


def truth_from_archive(game: dict[str, Any]) -> Truth:
    rules = ruleset_from_dict(game["rules"])
    state = initial_state(rules)
    records: dict[int, dict[str, Any]] = {}
    states: dict[int, State] = {}
    revealed: dict[int, int] = {}
    expected_v = 0
    for record in game["events"]:
        v = record["v"]
        expected_v += 1
        assert v == expected_v, f"archived log not contiguous at {v}"
        records[v] = record
        if record["k"] == "g":
            state = evolve(state, event_from_dict(record["e"]))
        elif record["k"] == "t" and record["change"] == "hand_revealed":
            for h in record["meta"]["hands"]:
                revealed.setdefault(h["hand_no"], v)
        states[v] = state
    return Truth(rules, records, states, expected_v, state, revealed)


def _public_cards(state: State) -> list[str]:
    """Cards every viewer has seen: the melds on the table and the whole discard pile
    (each discarded card was shown to all when it was thrown)."""
    out = names(state.discard)
    for team in state.melds:
        for m in team:
            out += names(meld_cards(m))  # a sequence keeps no list of its naturals
    return out


class SpyError(AssertionError):
    pass


def check_viewer(
    frames: list[dict[str, Any]],
    truth: Truth,
    table: str,
    viewer_seat: int | None,
    conn_starts: list[int] | None = None,
) -> int:
    """Check every frame one viewer received for ``table``. Returns how many frames were
    checked. ``viewer_seat`` is the seat the viewer held (None: a spectator)."""
    rules = truth.rules
    closed_pile = rules.discard_pile == "closed"
    hand: Counter[str] | None = None
    v = 0
    checked = 0
    starts = set(conn_starts or [])
    seen_versions: set[int] = set()

    def fail(i: int, why: str) -> None:
        raise SpyError(f"viewer seat {viewer_seat}, frame {i} ({frames[i]}): {why}")

    for i, f in enumerate(frames):
        if i in starts:
            v = -1  # a new connection: the next snapshot or resume sets the base
        if f.get("table") not in (table, None) and not isinstance(f.get("table"), dict):
            continue
        typ = f["type"]
        if typ in ("hello", "pong", "lobby", "lobby_table", "lobby_remove"):
            if card_names(f):
                fail(i, "cards in a frame that carries none")
            continue
        if f.get("table") != table:
            continue
        checked += 1
        if typ == "resume":
            if v not in (-1, f["from"]):
                fail(i, "resume base is not what the viewer had")
            v = f["from"]
            continue
        if typ == "snapshot":
            v = f["v"]
            seen_versions.update(range(1, v + 1))
            state = truth.states[v] if v else None
            _check_meta(i, f["meta"], truth, v, fail)
            if state is None or f["game"] is None:
                continue
            game = f["game"]
            revealed = state.phase in (HAND_OVER, OVER) and state.end_reason != ""
            own = names(state.hands[viewer_seat]) if viewer_seat is not None else []
            if viewer_seat is None:
                if game["hand"] is not None:
                    fail(i, "a spectator got a hand")
            elif sorted(game["hand"]) != sorted(own):
                fail(i, f"snapshot hand differs from the engine's {sorted(own)}")
            if not revealed:
                for key in ("hands", "stock", "muerto_cards"):
                    if key in game:
                        fail(i, f"hidden '{key}' in a snapshot of a hand in play")
                if closed_pile and len(game["discard"]["cards"]) > 1:
                    fail(i, "a closed pile shown beyond its top card")
                allowed = set(own) | set(_public_cards(state))
                leaked = set(card_names(game)) - allowed
                if leaked:
                    fail(i, f"snapshot shows cards it may not: {sorted(leaked)}")
            hand = Counter(game["hand"]) if game["hand"] is not None else None
            continue
        if typ == "legal":
            state = truth.states[f["v"]]
            if viewer_seat is None:
                fail(i, "a spectator got legal commands")
            allowed = set(names(state.hands[viewer_seat])) | set(_public_cards(state))
            leaked = set(card_names(f["commands"])) - allowed
            if leaked:
                fail(i, f"legal commands name cards the seat may not see: {sorted(leaked)}")
            continue
        if typ in ("ack", "error", "left"):
            # An error may name the seat's own cards ("you took 5H alone..."), no others.
            allowed = set(hand or ()) if typ == "error" else set()
            if set(card_names(f)) - allowed:
                fail(i, "cards in an ack/error/left frame")
            continue
        if typ != "event":
            continue
        if v != -1 and f["v"] != v + 1:
            fail(i, f"version gap: {v} then {f['v']}")
        v = f["v"]
        seen_versions.add(v)
        record = truth.records.get(v)
        if record is None:
            fail(i, "a version the archive does not have")
        assert record is not None
        kind = RECORD_KINDS[record["k"]]
        if f["kind"] != kind:
            fail(i, f"kind {f['kind']} but the log has {kind}")
        if kind in SEAT_FACTS:
            if card_names(f):
                fail(i, f"cards in a {kind} frame")
            if kind != "clock" and f["event"] != {
                k: x for k, x in record.items() if k not in ("k", "v")
            }:
                fail(i, f"{kind} frame differs from the log")
            continue
        if kind == "table":
            _check_meta(i, f["event"]["meta"], truth, v, fail)
            if f["event"]["change"] != record["change"]:
                fail(i, "table change differs from the log")
            continue
        hand = _check_game_event(i, f["event"], record["e"], truth, v, viewer_seat, hand, fail)
    missing = set(range(1, truth.last_v + 1)) - seen_versions
    if missing:
        raise SpyError(f"viewer seat {viewer_seat} never got versions {sorted(missing)[:20]}")
    return checked


RECORD_KINDS = {
    "g": "game",
    "t": "table",
    "c": "clock",
    "p": "presence",
    "b": "bot_takeover",
    "o": "timeout",
}
SEAT_FACTS = ("clock", "presence", "bot_takeover", "timeout")


def _check_meta(i: int, meta: dict[str, Any], truth: Truth, v: int, fail: Any) -> None:
    for h in meta.get("hands", []):
        secret = "deal" in h or "salt" in h
        if not secret:
            if card_names(h):
                fail(i, "cards in an unrevealed hand's commitment")
            continue
        at = truth.revealed_at.get(h["hand_no"])
        if at is None or v < at or not h.get("revealed"):
            fail(i, f"hand {h['hand_no']}'s deal or salt before it was revealed")
    rest = {k: val for k, val in meta.items() if k != "hands"}
    if card_names(rest):
        fail(i, "cards in a table's meta")


def _check_game_event(
    i: int,
    ev: dict[str, Any],
    true: dict[str, Any],
    truth: Truth,
    v: int,
    seat: int | None,
    hand: Counter[str] | None,
    fail: Any,
) -> Counter[str] | None:
    closed_pile = truth.rules.discard_pile == "closed"
    kind = true["type"]
    if ev["type"] != kind:
        fail(i, f"event type {ev['type']} but the log has {kind}")
    own = seat is not None and true.get("seat") == seat
    after = truth.states[v]
    allowed: set[str] = set()
    if kind == "hand_started":
        mine = true["hands"][seat] if seat is not None else None
        if (ev["hand"] is None) != (mine is None) or (
            mine is not None and sorted(ev["hand"]) != sorted(mine)
        ):
            fail(i, "hand_started hand is not the viewer's own")
        allowed = set(mine or []) | set(true["discard"])
        hand = Counter(mine) if mine is not None else None
    elif kind == "drew":
        if own:
            if ev["card"] != true["card"]:
                fail(i, "own draw shows the wrong card")
            allowed = {true["card"]}
        elif ev.get("card") is not None:
            fail(i, "another seat's draw shows its card")
    elif kind == "muerto_taken":
        if own:
            if ev["cards"] != true["cards"]:
                fail(i, "own muerto shows the wrong cards")
            allowed = set(true["cards"])
        elif ev.get("cards") is not None:
            fail(i, "another seat's muerto shows its cards")
        if ev["count"] != len(true["cards"]):
            fail(i, "muerto count is wrong")
    elif kind == "took_pile":
        if own or not closed_pile:
            if ev["cards"] != true["cards"]:
                fail(i, "pile cards differ from the log")
            allowed = set(true["cards"])
        else:
            if ev.get("cards") is not None:
                fail(i, "another seat's closed-pile pickup shows the pile")
            if ev.get("top") != true["cards"][-1] or ev["count"] != len(true["cards"]):
                fail(i, "closed-pile pickup: wrong top or count")
            allowed = {true["cards"][-1]}
    elif kind in ("melded", "added", "discarded"):
        key = "card" if kind == "discarded" else "cards"
        if ev[key] != true[key]:
            fail(i, f"{kind} cards differ from the log")
        allowed = set(card_names(true)) | set(_public_cards(after))
    elif kind == "muerto_to_stock":
        allowed = set()
    elif kind == "hand_ended":
        allowed = set(card_names(true)) | set(card_names(ev))  # everything is shown now
    leaked = set(card_names(ev)) - allowed
    if leaked:
        fail(i, f"{kind} shows cards this viewer may not see: {sorted(leaked)}")
    # The viewer's own hand, folded from what it was shown, is the engine's hand.
    if hand is not None and seat is not None and kind != "hand_started":
        if own and kind == "drew":
            hand[true["card"]] += 1
        elif own and kind in ("took_pile", "muerto_taken"):
            hand.update(true["cards"])
        elif own and kind in ("melded", "added"):
            hand.subtract(true["cards"])
        elif own and kind == "discarded":
            hand.subtract([true["card"]])
        hand = +hand
    if hand is not None and seat is not None and after.phase not in (HAND_OVER, OVER):
        engine = Counter(names(after.hands[seat]))
        if hand != engine:
            fail(i, f"own hand {sorted(hand.elements())} != engine {sorted(engine.elements())}")
    return hand


def check_totals(game: dict[str, Any], truth: Truth) -> None:
    """The archived scores are the engine's, folded from the archived events."""
    final = truth.final
    assert final.phase == OVER, f"the folded game is not over ({final.phase})"
    assert list(final.totals) == game["totals"], (final.totals, game["totals"])
    assert final.match_winner == game["winner_team"]


def parse_card(name: str) -> int:
    return parse(name)
