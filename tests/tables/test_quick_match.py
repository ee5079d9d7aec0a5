"""Quick play's two modalities: one hand, or a match to the variant's target score
(lobby.match_target). A match table deals hand after hand until a side reaches the target
at the end of a hand; one-hand and match players never meet at the same table."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from app.core.config import Settings
from app.core.redis import create_redis
from app.rules.ruleset import PRESETS
from app.tables.lobby import lobby
from app.tables.play.service import TableService
from app.tables.play.timers import TimerLoop
from tests.tables.conftest import _fresh, tables_redis_url


@pytest.fixture
async def service(redis_url: str) -> AsyncIterator[TableService]:
    url = _fresh(tables_redis_url(redis_url, 7))
    client = create_redis(url)
    svc = TableService(client, Settings(env="test", redis_url=url), bot_delay=0)
    loop = TimerLoop(svc, poll=0.05)
    await loop.start()
    try:
        yield svc
    finally:
        await loop.stop()
        await client.aclose()


def test_each_variant_has_a_match_target() -> None:
    # Brasil keeps its own 3,000 (seed 004); single-hand variants play seed 003's 2,000.
    assert lobby.match_target("brasil") == 3000
    assert {lobby.match_target(p) for p in PRESETS if p != "brasil"} == {2000}


async def test_a_match_and_a_single_hand_are_different_tables(service: TableService) -> None:
    svc = service
    hand = await lobby.quickplay(svc, 11, "Ana", "brasil", 2, None)
    match = await lobby.quickplay(svc, 12, "Bruno", "brasil", 2, None, match=True)
    # Brasil plays to 3,000 by default: its "one hand" is one hand all the same.
    assert hand.target_score == 0 and match.target_score == 3000
    assert hand.id != match.id, "a match player does not sit at a one-hand table"
    joined = await lobby.quickplay(svc, 13, "Carla", "brasil", 2, None, match=True)
    assert joined.id == match.id and joined.status == "playing"


async def test_a_quick_match_plays_hands_until_the_target(service: TableService) -> None:
    svc = service
    meta = await lobby.quickplay(svc, 21, "Ana", "cerrado", 2, None, "easy", match=True)
    assert meta.kind == "quick" and meta.target_score == 2000
    assert meta.rules["target_score"] == 2000
    await svc.fill_with_bots(meta.id, None, "easy")
    await svc.abandon(meta.id, 21)  # a bot plays Ana's seat too: the match runs alone
    give_up = time.monotonic() + 150
    while True:
        _, current, state = await svc.load(meta.id)
        if current.status == "finished":
            break
        assert time.monotonic() < give_up, "the match did not end"
        await asyncio.sleep(0.2)
    assert state is not None
    log = await svc.store.full_log(meta.id)
    started = [r for r in log if r.get("k") == "g" and r["e"]["type"] == "hand_started"]
    ended = [r["e"] for r in log if r.get("k") == "g" and r["e"]["type"] == "hand_ended"]
    assert len(started) >= 2 and len(ended) == len(started), len(started)
    assert all(not e["match_over"] for e in ended[:-1]) and ended[-1]["match_over"]
    totals = ended[-1]["totals"]
    assert max(totals) >= 2000 and state.match_winner is not None
    # Not over before: every earlier hand ended with both sides under the target.
    assert all(max(e["totals"]) < 2000 for e in ended[:-1])
