"""A strong bot at a live table of four is told the table's events (app/tables/play/botplay.py):
before each decision it reads the log records its memory has not seen, only those, and
ends up knowing what a memory told every event knows. The log here is the records of a
hand played by the engine, as the commit script writes them."""

from __future__ import annotations

from typing import Any

from app.core.config import Settings
from app.rules.engine import apply
from app.rules.greedy import GreedyBot
from app.rules.ruleset import make_ruleset
from app.rules.search import PileMemory, StrongBot
from app.rules.serialize import event_to_dict
from app.rules.state import DRAW
from app.tables.play.botplay import BotPlayer
from tests.rules.rules_support import dealt, in_play


async def test_a_strong_bot_of_four_catches_up_from_the_log_once() -> None:
    rules = make_ruleset("cerrado", 4)
    state = dealt(rules, 41, first=1)
    log: list[dict[str, Any]] = [{"k": "t", "change": "created", "v": 1}]  # not a game record
    asked: list[int] = []

    async def reader(start: int) -> list[dict[str, Any]]:
        asked.append(start)
        return log[start:]

    player = BotPlayer(Settings(env="test", bot_workers=0, strong_bot_samples=2))
    truth = PileMemory()
    truth.start(state)
    others = [GreedyBot() for _ in range(4)]
    decisions = 0
    try:
        while in_play(state) and decisions < 12:
            seat = state.turn
            if seat == 0:
                cmd = await player.command("T1", state, 0, "strong", reader)
                decisions += 1
                bot = player.bot("T1", 0, "strong")
                assert isinstance(bot, StrongBot)
                if state.phase == DRAW:
                    assert bot.known.cards == truth.cards  # the same as told every event
            else:
                cmd = others[seat].choose(state, seat)
            events, state = apply(state, seat, cmd)
            for event in events:
                truth.see(event, 0, rules)
                log.append({"k": "g", "e": event_to_dict(event), "v": len(log) + 1})
    finally:
        player.close()
    assert decisions >= 6
    assert asked[0] == 0 and asked == sorted(asked)  # each record read once, in order
    assert any(truth.cards.get(s) for s in (1, 2, 3)) or truth.cards.get(-1)


async def test_two_players_keep_their_own_reading_and_read_no_log() -> None:
    rules = make_ruleset("cerrado", 2)
    state = dealt(rules, 42, first=0)

    async def reader(start: int) -> list[dict[str, Any]]:
        raise AssertionError("a two-player bot has no use for the log")

    player = BotPlayer(Settings(env="test", bot_workers=0, strong_bot_samples=2))
    try:
        await player.command("T2", state, 0, "strong", reader)
    finally:
        player.close()
