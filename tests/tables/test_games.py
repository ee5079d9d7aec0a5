"""Full games between scripted people over real WebSockets, with the spy on every frame.

Short but real games: the rule overrides deal big hands and small muertos and end the
hand while the stock still holds cards (``stock_end``), so a game is a few dozen turns.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
import redis

from app.rules.serialize import state_from_dict, state_to_dict
from app.tables.storage.store import k_hash
from tests.tables.conftest import no_crash
from tests.tables.harness import Player, Server, archived_game, create_table, sit
from tests.tables.spy import check_totals, check_viewer, truth_from_archive

SHORT_2P = {"hand_size": 20, "muerto_size": 11, "stock_end": 20}
SHORT_4P = {"hand_size": 13, "muerto_size": 8, "stock_end": 20}


async def seat_players(
    servers: list[Server],
    preset: str,
    players: int,
    rules: dict[str, Any],
    target_score: int = 0,
) -> tuple[str, list[Player]]:
    """Each player on a server in turn (so both processes serve seats); returns the table
    id and the players by seat, all watching, the game started."""
    people = [await Player.guest(servers[i % len(servers)].base) for i in range(players)]
    for i, p in enumerate(people):
        await p.connect(servers[i % len(servers)].ws_url)
    table = await create_table(
        people[0],
        preset=preset,
        players=players,
        rules=rules,
        target_score=target_score,
        name="spy test",
    )
    tid = table["id"]
    await people[0].watch(tid)
    for seat, p in enumerate(people[1:], start=1):
        await p.watch(tid)
        await sit(p, tid, seat)
    for p in people:
        await p.until(lambda p=p: p.tables[tid].status == "playing")
    return tid, people


async def play_game(tid: str, people: list[Player], seed: int) -> None:
    rngs = [random.Random(seed * 10 + i) for i in range(len(people))]
    results = await asyncio.gather(
        *(p.play_until_over(tid, r) for p, r in zip(people, rngs, strict=True))
    )
    for p, errors in zip(people, results, strict=True):
        assert errors == [], f"seat {p.tables[tid].seat} got refusals: {errors}"
        assert p.problems == []


async def check_game(
    tid: str, people: list[Player], spectators: list[Player], redis_client: redis.Redis
) -> dict[str, Any]:
    game_id = people[0].tables[tid].game_id
    assert game_id
    game = await archived_game(people[0], game_id)
    truth = truth_from_archive(game)
    check_totals(game, truth)
    # Redis holds exactly the state the engine computes from the archived events.
    stored = redis_client.hget(k_hash(tid), "state")
    assert stored is not None
    import orjson

    assert state_to_dict(state_from_dict(orjson.loads(stored))) == state_to_dict(truth.final)
    for viewer in people + spectators:
        await viewer.until(lambda v=viewer: v.tables[tid].v >= truth.last_v)
        seat = viewer.tables[tid].seat
        checked = check_viewer(viewer.frames, truth, tid, seat, viewer.conn_starts)
        assert checked > truth.last_v // 2
    for p in people:
        assert p.tables[tid].v == truth.last_v
    verify = (await people[0].http.get(f"/api/games/{game_id}/verify")).json()
    assert verify["ok"] is True
    # A seeded hand's record keeps what its deal follows from, not the deal; the check
    # derives the deal and shows it, every seat's cards.
    assert any(h["scheme"] == "seed" for h in verify["hands"]), verify
    for kept, checked in zip(game["hands"], verify["hands"], strict=True):
        if checked["scheme"] == "seed":
            assert not kept.get("deal")
            assert len(checked["deal"]["hands"]) == len(people), checked
    return game


@pytest.mark.parametrize("preset", ["cerrado", "abierto"])
async def test_full_two_player_game_no_card_leaks(
    servers: list[Server], preset: str, redis_sync: redis.Redis
) -> None:
    tid, people = await seat_players(servers, preset, 2, SHORT_2P)
    spectator = await Player.guest(servers[1].base)
    await spectator.connect(servers[1].ws_url)
    await spectator.watch(tid)
    try:
        await play_game(tid, people, seed=2)
        game = await check_game(tid, people, [spectator], redis_sync)
        assert len(game["events"]) > 20
    finally:
        for p in [*people, spectator]:
            await p.aclose()
    for s in servers:
        no_crash(s)


async def test_full_four_player_game_no_card_leaks(
    servers: list[Server], redis_sync: redis.Redis
) -> None:
    tid, people = await seat_players(servers, "cerrado_sucio", 4, SHORT_4P)
    spectator = await Player.guest(servers[0].base)
    await spectator.connect(servers[0].ws_url)
    await spectator.watch(tid)
    try:
        await play_game(tid, people, seed=4)
        game = await check_game(tid, people, [spectator], redis_sync)
        assert {s["user_id"] for s in game["seats"]} == {p.id for p in people}
    finally:
        for p in [*people, spectator]:
            await p.aclose()
    for s in servers:
        no_crash(s)
