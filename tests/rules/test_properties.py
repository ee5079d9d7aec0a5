"""Properties of random games (Hypothesis), checked at every step of every preset with 2
and 4 players (and 3 for brasil):

(a) cards are conserved; (b) a refused command changes nothing and carries a stable
code; (c) the events ``apply`` returns fold with ``evolve`` into the state it returns;
(d) states and events round-trip through plain dicts and JSON exactly; (e) the leak test
(DESIGN.md convention 6): re-dealing everything a viewer cannot see changes neither the
viewer's view nor its legal commands nor the redacted events it receives, and no redacted
event names a card the viewer could not see; (f) every hand ends within the turn cap;
(g) the final scores equal ``scoring.score_hand`` and an independent recomputation from
RULES.md section 8 written here.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules import commands as C
from app.rules import events as E
from app.rules.cards import NAME, full_deck, parse, parse_many
from app.rules.deal import random_deal
from app.rules.engine import apply, fold
from app.rules.errors import RuleViolation
from app.rules.legal import legal_commands
from app.rules.melds import SEQ, Meld, render
from app.rules.ruleset import RuleSet, make_ruleset
from app.rules.scoring import score_hand
from app.rules.serialize import event_from_dict, event_to_dict, state_from_dict, state_to_dict
from app.rules.state import (
    DRAW,
    HAND_OVER,
    M_NONE,
    M_STOCK,
    M_TABLE,
    M_TAKEN,
    M_USED,
    MAX_TURNS,
    OVER,
    PLAY,
    State,
    initial_state,
    next_first,
)
from app.rules.views import redact, view_for
from tests.rules.rules_support import (
    GAMES,
    all_cards,
    bots_for,
    card_names,
    in_play,
    resample,
    revealed,
    table,
)

CODE = re.compile(r"^[a-z][a-z_]*[a-z]$")
# The legal-command leak check costs two full legal_commands per step: do it on this share
# of the steps (views, events and everything else are checked at every step).
LEGAL_LEAK_SHARE = 0.35
MAX_COMMANDS_PER_TURN = 40  # a turn is a draw, melds/adds (each removes a card), a discard
# Hands per (preset, players): 5 keeps the file near 35 s on one core; raise it with
# RULES_PROPERTY_EXAMPLES=50 for a thorough run.
EXAMPLES = int(os.environ.get("RULES_PROPERTY_EXAMPLES", "5"))


# ---------------------------------------------------------------- (e) the leak test


def viewers(rules: RuleSet) -> list[int | None]:
    return [*range(rules.players), None]


Views = dict[int | None, tuple[dict[str, Any], Counter[str]]]


def check_views(state: State, rng: random.Random) -> Views:
    """Each viewer's view is JSON-able and does not move when its unseen cards move.
    Returns each viewer's view and the card names in it."""
    views: Views = {}
    for viewer in viewers(state.rules):
        view = view_for(state, viewer)
        names = card_names(view)  # (also proves it JSON-able)
        other = resample(state, viewer, rng)
        assert view_for(other, viewer) == view, f"view of {viewer} depends on hidden cards"
        if viewer is None:
            assert view["hand"] is None
        else:
            assert Counter(view["hand"]) == Counter(NAME[c] for c in state.hands[viewer])
        if not revealed(state):
            # no card of another seat's hand, a muerto or the stock appears by name
            # beyond what lies in the open (melds, visible pile) and the viewer's hand
            allowed = card_names(
                [view["melds"], view["discard"], view["hand"], view["taken_single"]]
            )
            assert names - allowed == Counter(), f"view of {viewer} names more"
        views[viewer] = (view, names)
    return views


def check_legal_leak(state: State, rng: random.Random) -> None:
    if not in_play(state):
        return
    seat = state.turn
    legal = legal_commands(state, seat)
    assert legal, "the seat to play always has a legal command"
    assert legal_commands(resample(state, seat, rng), seat) == legal
    for other in range(state.rules.players):
        if other != seat:
            assert legal_commands(state, other) == []


def check_event_leaks(
    before: State,
    seat: int,
    cmd: C.Command,
    events: list[E.Event],
    views_before: Views,
    views_after: Views,
    rng: random.Random,
) -> None:
    rules = before.rules
    for viewer in viewers(rules):
        redacted = [redact(e, viewer, rules) for e in events]
        # every card an event names is one the viewer could see before or after it
        seen = views_before[viewer][1] | views_after[viewer][1]
        for e, r in zip(events, redacted, strict=True):
            extra = set(card_names(r)) - set(seen)
            assert not extra, f"{type(e).__name__} shows {extra} to viewer {viewer}"
        if viewer == seat:
            continue
        # the same command from a table whose unseen cards (but the actor's hand) were
        # dealt again: the viewer receives the same events (the hand's end reveals all)
        other = resample(before, viewer, rng, keep=seat)
        other_events, _ = apply(other, seat, cmd)
        assert [type(e) for e in other_events] == [type(e) for e in events]
        for e, o in zip(events, other_events, strict=True):
            if type(e) is not E.HandEnded:
                assert redact(o, viewer, rules) == redact(e, viewer, rules), (
                    f"{type(e).__name__} seen by {viewer} depends on hidden cards"
                )


def check_redaction_rules(events: list[E.Event], rules: RuleSet) -> None:
    """The specific secrets of convention 5, viewer by viewer."""
    for e in events:
        for viewer in viewers(rules):
            r = redact(e, viewer, rules)
            if isinstance(e, E.Drew):
                assert r["card"] == (NAME[e.card] if viewer == e.seat else None)
            elif isinstance(e, E.MuertoTaken):
                assert r["count"] == len(e.cards)
                if viewer != e.seat:
                    assert r["cards"] is None
            elif isinstance(e, E.TookPile) and rules.discard_pile == "closed" and viewer != e.seat:
                assert r["cards"] is None and r["count"] == len(e.cards)
                assert r["top"] == NAME[e.cards[-1]]
            elif isinstance(e, E.HandStarted):
                assert card_names(r) == card_names(
                    [NAME[c] for c in e.hands[viewer]] if viewer is not None else []
                ) + card_names(r["discard"])


# ---------------------------------------------------------------- (b) refusals


def refusals(state: State, rng: random.Random) -> list[tuple[int, C.Command, str | None]]:
    """(seat, command, expected code or None for "any code") that must all be refused."""
    rules = state.rules
    n = rules.players
    out: list[tuple[int, C.Command, str | None]] = []
    some_deal = C.Deal(hands=((),) * n, muertos=(), stock=())
    if not in_play(state):
        code = "game_over" if state.phase == OVER else "hand_over"
        for seat in range(n):
            out += [(seat, C.Draw(), code), (seat, C.Discard(0), code)]
        return out
    seat = state.turn
    hand = state.hands[seat]
    missing = [c for c in range(53) if c not in hand]
    absent = missing[rng.randrange(len(missing))]
    out += [
        ((seat + 1 + rng.randrange(n - 1)) % n, C.Draw(), "not_your_turn"),
        ((seat + 1) % n, C.Discard(hand[0]), "not_your_turn"),
        (n, C.Draw(), "bad_seat"),
        (C.SYSTEM, C.Draw(), "bad_seat"),
        (C.SYSTEM, some_deal, "hand_in_play"),
        (seat, some_deal, "not_allowed"),
    ]
    if state.phase == DRAW:
        pile = state.discard
        out += [
            (seat, C.Discard(hand[0]), "must_draw_first"),
            (seat, C.LayMeld(hand[:3]), "must_draw_first"),
            (seat, C.AddToMeld(rules.team_of(seat), 0, hand[:1]), "must_draw_first"),
            (seat, C.TakeDiscard(depth=0), "bad_depth" if pile else "pile_empty"),
            (seat, C.TakeDiscard(depth=len(pile) + 1), "bad_depth" if pile else "pile_empty"),
        ]
        if pile and rules.discard_pile != "open":
            out.append((seat, C.TakeDiscard(), "pile_needs_play"))
        if pile:
            out.append((seat, C.TakeDiscard(meld=(absent, absent)), None))
    else:
        assert state.phase == PLAY
        team = rules.team_of(seat)
        out += [
            (seat, C.Draw(), "already_drew"),
            (seat, C.TakeDiscard(), "already_drew"),
            (seat, C.Discard(absent), "card_not_in_hand"),
            (seat, C.LayMeld((absent, absent, absent)), "card_not_in_hand"),
            (seat, C.LayMeld(hand[:2]), "meld_too_small" if len(hand) >= 2 else None),
            (seat, C.AddToMeld(team, 99, hand[:1]), "no_such_meld"),
            (seat, C.AddToMeld(rules.teams, 0, hand[:1]), "no_such_meld"),
        ]
        if state.melds[team]:
            out.append((seat, C.AddToMeld(team, 0, (absent,)), "card_not_in_hand"))
        if state.taken_single >= 0 and state.taken_single in hand:
            out.append((seat, C.Discard(state.taken_single), "cannot_discard_taken_card"))
    return out


def check_refusals(state: State, rng: random.Random) -> None:
    snapshot = state_to_dict(state)
    for seat, cmd, code in refusals(state, rng):
        with pytest.raises(RuleViolation) as info:
            apply(state, seat, cmd)
        got = info.value.code
        assert isinstance(got, str) and CODE.match(got), got
        assert info.value.message, "a refusal explains itself"
        if code is not None:
            assert got == code, (cmd, got, info.value.message)
    # a random command built from the hand: accepted or refused, never half-applied
    if in_play(state) and state.phase == PLAY:
        hand = list(state.hands[state.turn])
        rng.shuffle(hand)
        try:
            apply(state, state.turn, C.LayMeld(tuple(hand[:3])))
        except RuleViolation as exc:
            assert CODE.match(exc.code)
    assert state_to_dict(state) == snapshot
    assert state_from_dict(snapshot) == state


# ---------------------------------------------------------------- (d) serialization


def check_serialization(state: State, events: list[E.Event]) -> None:
    data = json.loads(json.dumps(state_to_dict(state)))
    assert state_from_dict(data) == state
    for e in events:
        d = json.loads(json.dumps(event_to_dict(e)))
        assert event_from_dict(d) == e, type(e).__name__


# ---------------------------------------------------------------- (g) scoring, recomputed


TWO_JOKER = {  # RULES.md section 9, row "2 / joker points"
    "abierto": (10, 0),
    "abierto_sucio": (20, 30),
    "cerrado": (10, 20),
    "cerrado_sucio": (10, 20),
    "cerrado_stcl": (10, 20),
    "burraco": (20, 30),
    "burako": (20, 50),
    "brasil": (20, 20),
}
BONUSES = {"ace_to_ace": 1000, "royal": 500, "clean": 200, "semi_clean": 150, "dirty": 100}


def value(name: str, preset: str) -> int:
    """Section 8's card values, from the card's written name."""
    two, joker = TWO_JOKER[preset]
    if name == "JK":
        return joker
    rank = name[:-1]
    if rank == "2":
        return two
    if rank == "A":
        return 15
    if rank in ("J", "Q", "K"):
        return 10
    if preset == "brasil":
        return int(rank)
    return 5 if int(rank) <= 7 else 10


def kind_of(m: Meld, rules: RuleSet) -> str | None:
    """Section 3 from the meld as rendered: a sequence's wild is written ``CARD=SLOT``;
    a group's wild is its joker or 2."""
    items = render(m)
    if len(items) < 7:
        return None
    if m.kind == SEQ:
        wild_at = [i for i, x in enumerate(items) if "=" in x]
    else:
        wild_at = [i for i, x in enumerate(items) if x == "JK" or x[:-1] == "2"]
    assert len(wild_at) <= 1, items
    if not wild_at:
        if m.kind == SEQ and len(items) == 14 and rules.ace_to_ace == "allowed":
            return "ace_to_ace"
        if m.kind == SEQ and len(items) == 13 and rules.royal:
            return "royal"
        return "clean"
    naturals = len(items) - 1
    at_end = m.kind != SEQ or wild_at[0] in (0, len(items) - 1)
    if rules.semi_clean and naturals >= 7 and at_end:
        return "semi_clean"
    return "dirty"


def team_of(rules: RuleSet, seat: int) -> int:
    return seat % 2 if rules.players == 4 and rules.pairs else seat


def recompute(state: State, closer: int) -> list[int]:
    rules = state.rules
    preset = rules.preset
    teams = 2 if rules.players == 4 and rules.pairs else rules.players
    total = [0] * teams
    for owner, melds in enumerate(state.melds):
        for m in melds:
            assert m.owner == owner
            names = [x.split("=")[0] for x in render(m)]
            laid_by_others = Counter()
            for layer, card in m.foreign:  # add_to_any_meld: a card counts for its layer
                total[layer] += value(NAME[card], preset)
                laid_by_others[NAME[card]] += 1
            mine = Counter(names) - laid_by_others
            assert sum(laid_by_others.values()) + sum(mine.values()) == len(names)
            total[owner] += sum(value(n, preset) * k for n, k in mine.items())
            kind = kind_of(m, rules)
            if kind:
                total[owner] += BONUSES[kind]
    for seat, hand in enumerate(state.hands):
        total[team_of(rules, seat)] -= sum(value(NAME[c], preset) for c in hand)
    for team in range(teams):
        status = state.muerto_status[team]
        if rules.muertos == 0:
            assert status == M_NONE
        elif status in (M_TABLE, M_STOCK) or (status == M_TAKEN and rules.muerto_unused_penalty):
            total[team] -= 100
    if closer >= 0:
        total[closer] += 100
    return total


def expected_winner(rules: RuleSet, totals: list[int] | tuple[int, ...], first: int) -> int:
    """Most points; a tie goes to the side that played first, then on in turn order."""
    best = max(totals)
    for i in range(rules.players):
        team = team_of(rules, (first + i) % rules.players)
        if totals[team] == best:
            return team
    raise AssertionError


def check_hand_end(
    state: State, ended: E.HandEnded, totals_before: tuple[int, ...], steps: int
) -> None:
    rules = state.rules
    assert state.phase in (HAND_OVER, OVER)
    assert state.turns <= MAX_TURNS
    assert steps <= MAX_TURNS * MAX_COMMANDS_PER_TURN
    assert ended.reason == state.end_reason in ("closed", "stock", "turn_cap")
    closer = state.closer
    assert ended.closer == closer
    if ended.reason == "closed":
        assert closer >= 0
        assert any(
            not state.hands[s] for s in range(rules.players) if team_of(rules, s) == closer
        ), "the closer's side went out"
        kinds = [kind_of(m, rules) for m in state.melds[closer]]
        need = {"clean", "royal", "ace_to_ace"} if rules.close_requires == "clean" else set(BONUSES)
        assert need & set(kinds), "closed without a qualifying canasta"
        assert state.muerto_status[closer] not in (M_TABLE,)
    else:
        assert closer == -1
    if ended.reason == "stock":
        assert len(state.stock) <= rules.stock_end
        assert M_TABLE not in state.muerto_status
    if ended.reason == "turn_cap":
        assert state.turns >= MAX_TURNS
    breakdown = score_hand(state, closer)
    assert tuple(ended.scores) == breakdown
    assert [b["total"] for b in breakdown] == list(state.hand_scores)
    for b in breakdown:
        assert b["total"] == (
            b["table"] + b["canasta_bonus"] + b["close_bonus"] + b["hand"] + b["muerto_penalty"]
        )
    assert recompute(state, closer) == list(state.hand_scores)
    assert list(state.totals) == [
        t + h for t, h in zip(totals_before, state.hand_scores, strict=True)
    ]
    assert state.winner == expected_winner(rules, state.hand_scores, state.first)
    over = not rules.target_score or max(state.totals) >= rules.target_score
    assert ended.match_over == over == (state.phase == OVER)
    if over:
        assert state.match_winner == expected_winner(rules, state.totals, state.match_first)


# ---------------------------------------------------------------- the game loop


def play_checked(preset: str, players: int, seed: int, lineup: str, hands: int) -> None:
    rules = make_ruleset(preset, players)
    rng = random.Random(seed ^ 0x5EED)
    deck = Counter(full_deck(rules.jokers))
    assert sum(deck.values()) == (104 if rules.jokers == 0 else 108)
    state = initial_state(rules)
    first = seed % players
    bots = bots_for(lineup, players, seed)
    for hand_no in range(1, hands + 1):
        deal = random_deal(rules, first, random.Random(seed + hand_no))
        check_refusals(state, rng)
        totals_before = state.totals
        events, new = apply(state, C.SYSTEM, deal)
        views = check_step(state, C.SYSTEM, deal, events, new, deck, rng, {})
        state = new
        assert state.hand_no == hand_no and state.first == first
        steps = 0
        while in_play(state):
            seat = state.turn
            check_refusals(state, rng)
            if rng.random() < LEGAL_LEAK_SHARE:
                check_legal_leak(state, rng)
            cmd = bots[seat].choose(state, seat)
            events, new = apply(state, seat, cmd)
            views = check_step(state, seat, cmd, events, new, deck, rng, views)
            state = new
            steps += 1
        ended = events[-1]
        assert isinstance(ended, E.HandEnded)
        assert sum(isinstance(e, E.HandEnded) for e in events) == 1
        check_hand_end(state, ended, totals_before, steps)
        check_refusals(state, rng)
        if state.phase == OVER:
            break
        first = next_first(state)
        assert first == (state.first + 1) % players  # the first seat moves round


def check_step(
    before: State,
    seat: int,
    cmd: C.Command,
    events: list[E.Event],
    after: State,
    deck: Counter[int],
    rng: random.Random,
    views_before: Views,
) -> Views:
    """Checks (a) to (e) of one accepted command; returns the views after it."""
    assert events, "an accepted command produces events"
    # (c) the events fold into the state apply returned
    assert fold(before, events) == after
    # (a) conservation
    assert all_cards(after) == deck
    # (d) round trips
    check_serialization(after, events)
    # (e) views and events
    views_after = check_views(after, rng)
    if seat != C.SYSTEM:
        check_event_leaks(before, seat, cmd, events, views_before, views_after, rng)
    check_redaction_rules(events, after.rules)
    return views_after


LINEUPS = st.sampled_from(["greedy", "random", "mixed", "random_greedy"])


@pytest.mark.parametrize(("preset", "players"), GAMES, ids=[f"{p}-{n}" for p, n in GAMES])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), lineup=LINEUPS, hands=st.integers(1, 2))
def test_random_games(preset: str, players: int, seed: int, lineup: str, hands: int) -> None:
    play_checked(preset, players, seed, lineup, hands)


# ---------------------------------------------------------------- the checks themselves


def test_resample_moves_hidden_cards_only() -> None:
    """The leak test is only as good as its re-deal: it must actually move cards, keep
    every size and never touch what the viewer sees."""
    rules = make_ruleset("cerrado", 4)
    state = apply(initial_state(rules), C.SYSTEM, random_deal(rules, 0, random.Random(1)))[1]
    state = state._replace(discard=state.stock[:5], stock=state.stock[5:])
    rng = random.Random(2)
    other = resample(state, 0, rng)
    assert other.hands[0] == state.hands[0] and other.melds == state.melds
    assert [len(h) for h in other.hands] == [len(h) for h in state.hands]
    assert [len(m) for m in other.muertos] == [len(m) for m in state.muertos]
    assert len(other.stock) == len(state.stock)
    assert other.discard[-1] == state.discard[-1] and len(other.discard) == 5
    assert all_cards(other) == all_cards(state)
    assert other.hands[1:] != state.hands[1:] and other.stock != state.stock
    spectator = resample(state, None, rng)
    assert spectator.hands[0] != state.hands[0]
    assert resample(state, 2, rng, keep=1).hands[1] == state.hands[1]


def test_leak_check_catches_a_leaky_view() -> None:
    """A view that shows the stock's top card fails the re-deal comparison."""
    rules = make_ruleset("abierto", 2)
    state = apply(initial_state(rules), C.SYSTEM, random_deal(rules, 0, random.Random(3)))[1]

    def leaky(s: State, viewer: int | None) -> dict[str, Any]:
        return dict(view_for(s, viewer), peek=NAME[s.stock[0]])

    rng = random.Random(4)
    assert leaky(state, 0) != leaky(resample(state, 0, rng), 0)
    assert card_names(leaky(state, 0))[NAME[state.stock[0]]] >= 1


def test_recompute_agrees_on_a_known_hand() -> None:
    """The independent scorer on a hand worked out by hand (cerrado, 2 players): team 0
    closes with a clean canasta 3H..9H (5 x 5 + 2 x 10 = 45, +200) and holds no card; team 1 lays
    JK 5S 6S (20 + 5 + 5), holds KD (10) and never took its muerto (-100)."""
    rules = make_ruleset("cerrado", 2)
    from app.rules.cards import parse, parse_many
    from app.rules.melds import build_meld

    run = build_meld(parse_many(["3H", "4H", "5H", "6H", "7H", "8H", "9H"]), rules, 0)
    dirty = build_meld(parse_many(["JK", "5S", "6S"]), rules, 1)
    state = initial_state(rules)._replace(
        hands=((), (parse("KD"),)),
        melds=((run,), (dirty,)),
        muerto_status=(M_USED, M_TABLE),
    )
    assert recompute(state, 0) == [45 + 200 + 100, 30 - 10 - 100]
    assert [b["total"] for b in score_hand(state, 0)] == recompute(state, 0)


def test_adding_cards_in_another_order_gives_the_same_state() -> None:
    # brasil, seat 0 adds 8S and QS to seat 1's run 9S 10S JS
    s = table(
        "brasil",
        [["8S", "QS", "4H", "5D"], ["9S", "10S", "JS", "KD"]],
        stock_top=["7C", "7D"],
        first=1,
    )
    s = apply(s, 1, C.Draw())[1]
    s = apply(s, 1, C.LayMeld(parse_many(["9S", "10S", "JS"])))[1]
    s = apply(s, 1, C.Discard(parse("KD")))[1]
    s = apply(s, 0, C.Draw())[1]
    a = apply(s, 0, C.AddToMeld(1, 0, parse_many(["QS", "8S"])))[1]
    b = apply(s, 0, C.AddToMeld(1, 0, parse_many(["8S", "QS"])))[1]
    assert render(a.melds[1][0]) == render(b.melds[1][0])
    assert score_hand(a, -1) == score_hand(b, -1)
    assert a == b
