"""The three bot strengths (issue 13): no bot loops, every bot gives only legal commands
and never strands itself, and the strong bot decides from its own seat's view only."""

from __future__ import annotations

import os
import random

import pytest

from app.rules import commands as C
from app.rules import events as E
from app.rules.bots import Bot, play_hand
from app.rules.cards import RANK
from app.rules.engine import apply
from app.rules.errors import RuleViolation
from app.rules.greedy import GreedyBot
from app.rules.legal import legal_commands
from app.rules.levels import EasyBot, make_bot
from app.rules.prng import SplitMix, mix
from app.rules.ruleset import make_ruleset
from app.rules.search import FOUR, PILE, StrongBot, determinize, hidden_pool, wants_events
from app.rules.state import DRAW, MAX_TURNS, PLAY, State
from tests.rules.rules_support import GAMES, all_cards, dealt, in_play, resample

IDS = [f"{p}-{n}" for p, n in GAMES]
# Seeded GreedyBot hands per (preset, players) here; benchmarks/bots_ladder.py
# plays the full 200 of the issue.
LOOP_HANDS = 40


@pytest.mark.parametrize(("preset", "players"), GAMES, ids=IDS)
def test_greedy_hands_never_reach_the_turn_cap(preset: str, players: int) -> None:
    rules = make_ruleset(preset, players)
    for hand in range(LOOP_HANDS):
        state = dealt(rules, 7919 * hand + 17, first=hand % players)
        final = play_hand(state, [GreedyBot() for _ in range(players)])
        assert final.turns < MAX_TURNS, f"hand {hand} ran into the turn cap"


def _own_turns(bot: Bot, state: State, seat: int) -> list[tuple[State, C.Command]]:
    """``bot`` plays ``seat``'s turn from ``state``: every (state, command) of it."""
    out = []
    while in_play(state) and state.turn == seat:
        cmd = bot.choose(state, seat)
        out.append((state, cmd))
        state = apply(state, seat, cmd)[1]
    return out


def _passes_back(turn: list[tuple[State, C.Command]]) -> bool:
    """Took a one-card pile and discarded a card of its rank, with another discard
    possible?"""
    first_state, first = turn[0]
    if not (
        isinstance(first, C.TakeDiscard)
        and len(first_state.discard) == 1
        and first.meld is None
        and first.add is None
    ):
        return False
    rank = RANK[first_state.discard[0]]
    last_state, last = turn[-1]
    if not isinstance(last, C.Discard) or RANK[last.card] != rank:
        return False
    others = [c for c in last_state.hands[last_state.turn] if RANK[c] != rank]
    return bool(others)


LINEUPS = ("easy", "normal", "strong")
# Hands per table in the mixed-strength test below. The strong bot searches at each of its
# decisions (about 25 ms of CPU each), which makes it the costliest rules test: `make test`
# plays both hands, the inner loop `make test-fast` only the first (RULES_LEVEL_HANDS=1).
BOT_HANDS = int(os.environ.get("RULES_LEVEL_HANDS", "2"))
# Worlds the strong bot deals per searched decision there: its own default (20) in `make
# test`; the inner loop deals fewer (RULES_STRONG_SAMPLES=4), which still walks every
# step of the search and every command it can give.
STRONG_SAMPLES = int(os.environ.get("RULES_STRONG_SAMPLES", "0"))


def _bot(strength: str, seed: int) -> Bot:
    if strength == "strong" and STRONG_SAMPLES:
        return StrongBot(seed, samples=STRONG_SAMPLES)
    return make_bot(strength, seed)


def _bots(players: int, seed: int) -> list[Bot]:
    return [_bot(LINEUPS[(seat + seed) % 3], seed * 10 + seat) for seat in range(players)]


@pytest.mark.parametrize(("preset", "players"), GAMES, ids=IDS)
def test_every_bot_gives_legal_commands_makes_progress_and_finishes(
    preset: str, players: int
) -> None:
    """Easy, normal and strong bots at one table: every command is one the engine
    accepts (and one ``legal_commands`` offers, by outcome, at sampled steps), no bot
    produces a position it produced before when it had another choice, none passes a
    one-card pile straight back, and the hand ends before the turn cap."""
    rules = make_ruleset(preset, players)
    for hand in range(BOT_HANDS):
        seed = 31 * players + hand
        state = dealt(rules, seed, first=hand % players)
        bots = _bots(players, seed)
        produced: list[set[tuple[object, ...]]] = [set() for _ in range(players)]
        step = 0
        while in_play(state):
            seat = state.turn
            turn = []
            while in_play(state) and state.turn == seat:
                cmd = bots[seat].choose(state, seat)
                try:
                    new = apply(state, seat, cmd)[1]
                except RuleViolation as exc:  # pragma: no cover - the failure tested
                    pytest.fail(f"{type(bots[seat]).__name__} gave {cmd}: {exc!r}")
                if step % 7 == 0:
                    offered = {apply(state, seat, c)[1] for c in legal_commands(state, seat)}
                    assert new in offered
                if isinstance(cmd, (C.Discard, C.TakeDiscard)):
                    position = (new.hands[seat], new.discard, new.melds)
                    if position in produced[seat]:
                        alternatives = {
                            apply(state, seat, c)[1]
                            for c in legal_commands(state, seat)
                            if isinstance(c, type(cmd)) or isinstance(cmd, C.TakeDiscard)
                        }
                        assert all(
                            (a.hands[seat], a.discard, a.melds) in produced[seat]
                            for a in alternatives
                        ), f"{cmd} repeats a position"
                    produced[seat].add(position)
                turn.append((state, cmd))
                state = new
                step += 1
            assert not _passes_back(turn), f"seat {seat} passed a pile back: {turn[-1][1]}"
        assert state.turns < MAX_TURNS and not in_play(state)


def _positions(preset: str, players: int, count: int, seed: int) -> list[State]:
    """``count`` positions spread over seeded GreedyBot hands, draws and plays."""
    rules = make_ruleset(preset, players)
    rng = random.Random(seed)
    out: list[State] = []
    hand = 0
    while len(out) < count:
        state = dealt(rules, seed * 100 + hand, first=hand % players)
        bots = [GreedyBot() for _ in range(players)]
        while in_play(state) and len(out) < count:
            if rng.random() < 0.08:
                out.append(state)
            seat = state.turn
            state = apply(state, seat, bots[seat].choose(state, seat))[1]
        hand += 1
    return out


@pytest.mark.parametrize(("preset", "players"), GAMES, ids=IDS)
def test_strong_bot_decides_from_its_seats_view_only(preset: str, players: int) -> None:
    """Re-dealing every card the seat cannot see (other hands, muertos, stock, a closed
    pile's buried cards) leaves the strong bot's seeded decision as it was."""
    rng = random.Random(5)
    searched = 0
    for state in _positions(preset, players, 10, 3):
        seat = state.turn
        other = resample(state, seat, rng)
        assert other != state or not hidden_pool(state, seat)
        a, b = StrongBot(seed=9, samples=4), StrongBot(seed=9, samples=4)
        assert a.choose(state, seat) == b.choose(other, seat)
        searched += a.searched
    assert searched >= 2  # the decisions compared include searched ones


@pytest.mark.parametrize(("preset", "players"), GAMES, ids=IDS)
def test_worlds_hold_exactly_the_cards_hidden_from_the_seat(preset: str, players: int) -> None:
    for state in _positions(preset, players, 4, 8):
        seat = state.turn
        world = determinize(state, seat, SplitMix(mix(1, 2)))
        assert all_cards(world) == all_cards(state)
        assert world.hands[seat] == state.hands[seat] and world.melds == state.melds
        assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
        assert [len(m) for m in world.muertos] == [len(m) for m in state.muertos]
        assert len(world.stock) == len(state.stock)
        assert world.discard[-1:] == state.discard[-1:]


def test_easy_bot_mistakes_are_seeded_and_it_plays_worse_than_normal() -> None:
    """The same seed replays the same game; easy scores less than normal over deals
    played both ways round (seats swapped)."""
    rules = make_ruleset("cerrado", 2)
    easy_points = normal_points = 0
    for deal in range(12):
        start = dealt(rules, 500 + deal)
        for easy_seat in (0, 1):

            def lineup(easy_seat: int = easy_seat, seed: int = deal) -> list[Bot]:
                return [EasyBot(seed) if s == easy_seat else GreedyBot() for s in (0, 1)]

            final = play_hand(start, lineup())
            assert play_hand(start, lineup()) == final
            easy_points += final.hand_scores[easy_seat]
            normal_points += final.hand_scores[1 - easy_seat]
    assert easy_points < normal_points


def test_a_clock_caps_the_strong_bots_worlds() -> None:
    ticks = iter(range(1000))
    state = next(
        s for s in _positions("cerrado", 2, 30, 4) if s.phase == PLAY and len(s.hands[s.turn]) > 4
    )
    bot = StrongBot(seed=1, samples=50, clock=lambda: float(next(ticks)), budget=2.5)
    bot.choose(state, state.turn)
    if bot.searched:
        assert bot.worlds == 3  # worlds 1, 2, 3 at clock 1, 2, 3 - start (0) >= 2.5


@pytest.mark.parametrize(("preset", "players"), [("cerrado_sucio", 4), ("cerrado_sucio", 2)])
def test_four_players_get_more_worlds_per_decision(preset: str, players: int) -> None:
    """Three hidden hands tell less per world: a four-player search deals FOUR times
    the worlds (docs/bots.md, the ladder's four-player rows)."""
    per = FOUR if players == 4 else 1
    searched = 0
    for state in _positions(preset, players, 12, 6):
        bot = StrongBot(seed=2, samples=3)
        bot.choose(state, state.turn)
        assert bot.worlds == 3 * per * bot.searched
        searched += bot.searched
    assert searched >= 1


def test_a_full_run_whose_wild_slot_we_hold_extends_by_that_card() -> None:
    """A 14-slot run (ace to ace) with a wild: the natural of the wild's slot is its
    only extension (the wild moves); this used to pop from an empty list (found by the
    strong bot's worlds)."""
    from app.rules.cards import card_at
    from app.rules.handplan import Hand, extension
    from app.rules.melds import SEQ, Meld

    rules = make_ruleset("abierto_sucio", 2)
    assert rules.wild_relocation and rules.ace_to_ace != "allowed"
    run = Meld(kind=SEQ, suit=0, lo=1, hi=14, rank=0, naturals=(), wild=52, wslot=5, owner=0)
    five = card_at(0, 5)
    assert extension(run, Hand((five, card_at(1, 9))), rules) == [five]


@pytest.mark.parametrize("preset", ["abierto", "cerrado", "brasil", "burako"])
def test_the_cards_the_strong_bot_knows_are_in_the_other_hand(preset: str) -> None:
    """What the strong bot learnt from the pile (two players) is always true: every card
    it counts in the other hand is there; and it does learn something."""
    rules = make_ruleset(preset, 2)
    learnt = 0
    for hand in range(3):
        state = dealt(rules, 60 + hand, first=hand % 2)
        strong = StrongBot(seed=hand, samples=2, horizon=6)
        bots: list[Bot] = [strong, GreedyBot()]
        while in_play(state):
            seat = state.turn
            cmd = bots[seat].choose(state, seat)
            if seat == 0:
                pile = strong.known.cards.get(PILE)
                if pile and state.phase == DRAW:
                    assert tuple(pile) == state.discard[:-1]  # the closed pile, in order
                    learnt += len(pile)
                known = strong.known.cards.get(1, [])
                rest = list(state.hands[1])
                for c in known:
                    assert c in rest, f"{c} is not in the other hand"
                    rest.remove(c)
                learnt += len(known)
            state = apply(state, seat, cmd)[1]
    assert learnt > 0


FED = [("cerrado", 4), ("cerrado_sucio", 4), ("abierto", 4), ("brasil", 3), ("burako", 4)]


@pytest.mark.parametrize(("preset", "players"), FED, ids=[f"{p}-{n}" for p, n in FED])
def test_told_the_events_the_strong_bot_knows_what_each_other_player_took(
    preset: str, players: int
) -> None:
    """With three or four players the memory is told the table's events: every card it
    counts in another player's hand is there, a closed pile's buried cards are known in
    their order, and it does learn something."""
    rules = make_ruleset(preset, players)
    assert wants_events(rules) and not wants_events(make_ruleset(preset, 2))
    learnt = 0
    for hand in range(3):
        state = dealt(rules, 70 + hand, first=hand % players)
        strong = StrongBot(seed=hand, samples=2, horizon=6)
        strong.known.start(state)
        bots: list[Bot] = [strong] + [GreedyBot() for _ in range(players - 1)]
        while in_play(state):
            seat = state.turn
            if seat == 0 and state.phase == DRAW:
                pile = strong.known.cards.get(PILE)
                if rules.discard_pile == "closed" and len(state.discard) > 1 and pile:
                    assert tuple(pile) == state.discard[:-1]  # in order
                    learnt += len(pile)
                for other in range(1, players):
                    rest = list(state.hands[other])
                    for c in strong.known.cards.get(other, []):
                        assert c in rest, f"{c} is not in seat {other}'s hand"
                        rest.remove(c)
                        learnt += 1
            events, state = apply(state, seat, bots[seat].choose(state, seat))
            for event in events:
                strong.known.see(event, 0, rules)
    assert learnt > 0


@pytest.mark.parametrize(("preset", "players"), FED, ids=[f"{p}-{n}" for p, n in FED])
def test_the_told_memory_reads_no_hidden_card(preset: str, players: int) -> None:
    """The same events with every hidden part changed (the cards other players drew
    from the stock, the hands, muertos and stock dealt) leave the memory as it was."""
    rules = make_ruleset(preset, players)
    rng = random.Random(11)
    state = dealt(rules, 90, first=1)
    told, blind = StrongBot(seed=1), StrongBot(seed=1)
    told.known.start(state)
    blind.known.start(state)
    bots = [GreedyBot() for _ in range(players)]
    while in_play(state):
        seat = state.turn
        events, state = apply(state, seat, bots[seat].choose(state, seat))
        for event in events:
            told.known.see(event, 0, rules)
            if isinstance(event, E.Drew) and event.seat != 0:
                event = event._replace(card=rng.randrange(53))
            elif isinstance(event, E.HandStarted):
                event = event._replace(
                    hands=tuple(tuple(rng.sample(h, len(h))) for h in event.hands),
                    stock=tuple(rng.sample(event.stock, len(event.stock))),
                )
            blind.known.see(event, 0, rules)
        assert told.known.cards == blind.known.cards
