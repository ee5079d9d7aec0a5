"""The cut over the WebSocket (docs/protocol.md, "The cut"): the player to the dealer's
right cuts the committed deck; wrong seats, bad positions and repeats are refused with
their codes and change nothing; client seeds join the derivation; a bot cuts at once and
the clock cuts at random when the cutter does not. Real uvicorn processes and Redis."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
import redis

from app.rules import fairdeal
from app.rules.deal import deal_to_dict
from app.rules.ruleset import ruleset_from_dict
from app.tables.storage.meta import TableMeta
from app.tables.storage.store import k_hash
from tests.tables.conftest import _fresh, no_crash, sync_client, tables_redis_url
from tests.tables.harness import (
    Player,
    Server,
    create_table,
    cut_deck,
    hands_ended,
    play_hand,
    seat_all,
    sit,
    start_servers,
)
from tests.tables.test_games import SHORT_2P


def _server(
    pg_url: str, redis_url: str, tmp: pytest.TempPathFactory, shift: int, cut: int
) -> Iterator[tuple[Server, str]]:
    own = _fresh(tables_redis_url(redis_url, shift))
    procs = start_servers(
        1, pg_url, own, tmp.mktemp(f"cut{shift}"), turn_seconds=300, cut_seconds=cut
    )
    yield procs[0], own
    procs[0].stop()


@pytest.fixture(scope="module")
def cut_server(
    pg_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, str]]:
    """Sixty seconds to cut."""
    yield from _server(pg_url, redis_url, tmp_path_factory, 8, 60)


@pytest.fixture(scope="module")
def quick_cut_server(
    pg_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, str]]:
    """One second to cut: the clock cuts."""
    yield from _server(pg_url, redis_url, tmp_path_factory, 9, 1)


def stored_meta(r: redis.Redis, tid: str) -> TableMeta:
    raw = r.hget(k_hash(tid), "meta")
    assert raw is not None
    return TableMeta.model_validate_json(raw)


async def two_players(server: Server) -> tuple[str, list[Player]]:
    people = [await Player.guest(server.base) for _ in range(2)]
    for p in people:
        await p.connect(server.ws_url)
    table = await create_table(people[0], preset="cerrado", players=2, rules=SHORT_2P, name="cut")
    tid = table["id"]
    await people[0].watch(tid)
    await people[1].watch(tid)
    await sit(people[1], tid, 1)
    for p in people:
        await p.until(lambda p=p: p.tables[tid].status == "playing")
    return tid, people


async def send(p: Player, tid: str, typ: str, **fields: Any) -> dict[str, Any]:
    cid = p.next_cid()
    mark = await p.send({"type": typ, "table": tid, "cid": cid, **fields})
    return await p.wait_frame(
        lambda f: f["type"] in ("ack", "error") and f.get("cid") == cid, since=mark
    )


async def test_the_cutter_cuts_and_everything_else_is_refused(
    cut_server: tuple[Server, str],
) -> None:
    server, url = cut_server
    r = sync_client(url)
    tid, people = await two_players(server)
    try:
        prompt = people[0].tables[tid].meta["cut"]
        assert prompt is not None and prompt == people[1].tables[tid].meta["cut"]
        meta = stored_meta(r, tid)
        hand = meta.hands[0]
        assert prompt["seat"] == hand.cutter == fairdeal.cutter_of(hand.first, 2)
        assert prompt["commitment"] == hand.commitment == fairdeal.commitment(hand.server_seed)
        assert (prompt["deck_size"], prompt["min"], prompt["max"]) == (108, 4, 104)
        assert prompt["deadline"] > 0
        # no secret in what the players see, no cards dealt yet
        seen = orjson.dumps(people[0].frames).decode()
        assert hand.server_seed not in seen and "server_seed" not in seen
        assert people[0].tables[tid].phase != "draw" and not people[0].tables[tid].hand
        cutter = people[prompt["seat"]]
        other = people[1 - prompt["seat"]]
        v = int(r.hget(k_hash(tid), "v") or 0)

        assert (await send(other, tid, "cut", position=50))["code"] == "not_cutter"
        for bad in (3, 105, -1):
            reply = await send(cutter, tid, "cut", position=bad)
            assert reply["code"] == "bad_cut", reply
        assert (await send(cutter, tid, "cut", position=5000))["code"] == "bad_message"
        assert (await send(other, tid, "seed", seed="a,b"))["code"] == "bad_seed"
        assert int(r.hget(k_hash(tid), "v") or 0) == v  # nothing changed

        assert (await send(other, tid, "seed", seed="other-seed"))["type"] == "ack"
        assert (await send(other, tid, "seed", seed="again"))["code"] == "seed_given"
        ack = await send(cutter, tid, "cut", position=37, seed="mine_1")
        assert ack["type"] == "ack", ack
        for p in people:
            await p.until(lambda p=p: sum(p.tables[tid].hand.values()) == 20)
        assert people[0].tables[tid].meta["cut"] is None
        assert (await send(cutter, tid, "cut", position=37))["code"] == "already_cut"
        assert (await send(other, tid, "seed", seed="late"))["code"] == "already_cut"

        meta = stored_meta(r, tid)
        hand = meta.hands[0]
        assert (hand.cut, hand.cut_by) == (37, "player")
        seeds: list[str | None] = [None, None]
        seeds[prompt["seat"]] = "mine_1"
        seeds[1 - prompt["seat"]] = "other-seed"
        assert hand.client_seeds == seeds
        rules = ruleset_from_dict(meta.rules)
        expected = deal_to_dict(
            fairdeal.derive_deal(rules, hand.server_seed, seeds, 37, hand.first)
        )
        # The record keeps what the deal follows from, not the deal (a copy in every
        # process's cache and in every meta published, for each hand of the match).
        assert hand.deal == {}
        stored = r.hget(k_hash(tid), "meta")
        assert stored is not None and b'"stock"' not in (
            stored if isinstance(stored, bytes) else stored.encode()
        )
        # each player holds the hand the derivation deals to its seat
        for p in people:
            seat = p.tables[tid].seat
            assert sorted(p.tables[tid].hand.elements()) == sorted(expected["hands"][seat])
        # what the players saw of the hand says who cut where, never the seed
        public = people[0].tables[tid].meta["hands"][0]
        assert (public["cut"], public["cut_by"], public["cutter"]) == (37, "player", prompt["seat"])
        assert "server_seed" not in public and public["seeded"] == [True, True]
        no_crash(server)
    finally:
        for p in people:
            await p.aclose()
        r.close()


async def test_a_bot_cuts_at_once(cut_server: tuple[Server, str]) -> None:
    server, url = cut_server
    r = sync_client(url)
    host = await Player.guest(server.base)
    try:
        await host.connect(server.ws_url)
        for _ in range(12):  # the first seat is drawn at random: find a bot to cut
            table = await create_table(
                host, preset="burraco", players=4, name="bots", target_score=0
            )
            tid = table["id"]
            await host.watch(tid)
            resp = await host.http.post(f"/api/tables/{tid}/bots", json={})
            assert resp.status_code == 200, resp.text
            await host.until(lambda tid=tid: host.tables[tid].status == "playing")
            meta = stored_meta(r, tid)
            if meta.hands[0].cutter != 0:
                break
            assert meta.hands[0].cut is None and host.tables[tid].meta["cut"]["seat"] == 0
            assert (await send(host, tid, "cut", position=4))["type"] == "ack"
            await host.http.post(f"/api/tables/{tid}/leave")
        hand = meta.hands[0]
        assert hand.cut_by == "bot" and hand.cut is not None and 4 <= hand.cut <= 104
        assert host.tables[tid].meta["cut"] is None
        await host.until(lambda: host.tables[tid].phase in ("draw", "play"))
        no_crash(server)
    finally:
        await host.aclose()
        r.close()


async def test_the_clock_cuts_when_the_cutter_does_not(
    quick_cut_server: tuple[Server, str],
) -> None:
    server, url = quick_cut_server
    r = sync_client(url)
    tid, people = await two_players(server)
    try:
        meta = stored_meta(r, tid)
        assert meta.hands[0].cut is None
        for p in people:
            await p.until(lambda p=p: p.tables[tid].phase == "draw", timeout=15)
        hand = stored_meta(r, tid).hands[0]
        assert hand.cut_by == "timeout" and 4 <= (hand.cut or 0) <= 104
        cutter = people[hand.cutter or 0]
        assert (await send(cutter, tid, "cut", position=20))["code"] == "already_cut"
        await asyncio.sleep(0)
        no_crash(server)
    finally:
        for p in people:
            await p.aclose()
        r.close()


async def test_a_reload_while_the_next_hand_waits_for_its_cut_brings_back_the_sheet(
    cut_server: tuple[Server, str],
) -> None:
    """Between two hands of a match the next deal waits for its cut: a page reloaded
    then gets, in its snapshot, the hand's end as it saw it live, so the score sheet is
    on screen again; once the next hand is dealt, a snapshot carries none."""
    server, url = cut_server
    r = sync_client(url)
    people = [await Player.guest(server.base) for _ in range(2)]
    stranger = await Player.guest(server.base)
    try:
        for p in [*people, stranger]:
            await p.connect(server.ws_url)
        tid = await seat_all(
            people, preset="cerrado", players=2, rules=SHORT_2P, target_score=100_000
        )
        # before the first deal no hand has ended: nothing to show
        snap = await stranger.watch(tid)
        assert snap["type"] == "snapshot" and "result" not in snap

        await cut_deck(tid, people)
        await play_hand(tid, people, seed=4)
        assert stored_meta(r, tid).hands[-1].cut is None  # the second deal waits
        for seat, player in enumerate(people):
            ended = hands_ended(player)
            assert len(ended) == 1 and ended[0]["match_over"] is False
            snap = await player.watch(tid)  # as a reloaded page watches: no version
            assert snap["type"] == "snapshot" and snap["seat"] == seat
            assert snap["meta"]["status"] == "playing"
            assert snap["game"]["phase"] == "hand_over"
            assert snap["result"] == ended[0]
        spectator = await stranger.watch(tid)
        assert spectator["result"]["type"] == "hand_ended"
        assert spectator["result"]["totals"] == ended[0]["totals"]

        await cut_deck(tid, people)  # the second hand is dealt: the sheet is history
        for p in [*people, stranger]:
            snap = await p.watch(tid)
            assert snap["game"]["phase"] == "draw" and "result" not in snap
        no_crash(server)
    finally:
        for p in [*people, stranger]:
            await p.aclose()
        r.close()
