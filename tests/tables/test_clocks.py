"""Turn clocks and abandonment, on a process with one-second clocks and grace period:
a timed-out turn is played by the server (draw, discard); three in a row, leaving, or
staying away past the grace period hands the seat to a bot, and the game finishes."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from tests.tables.harness import Player, Server, archived_game, create_table, sit
from tests.tables.spy import check_totals, check_viewer, truth_from_archive
from tests.tables.test_games import SHORT_2P, seat_players


def seat_facts(p: Player, tid: str, kind: str) -> list[dict[str, Any]]:
    """The events of one kind (presence, bot_takeover, timeout) this player received."""
    return [
        f["event"]
        for f in p.frames
        if f["type"] == "event" and f.get("table") == tid and f["kind"] == kind
    ]


def abandoned_event(p: Player, tid: str) -> dict[str, Any] | None:
    for f in p.frames:
        if (
            f["type"] == "event"
            and f.get("table") == tid
            and f["kind"] == "table"
            and f["event"]["change"] == "seat_abandoned"
        ):
            return f
    return None


async def test_turn_timeouts_play_for_the_seat_then_a_bot_takes_it(
    fast_server: Server,
) -> None:
    p = await Player.guest(fast_server.base)
    try:
        await p.connect(fast_server.ws_url)
        table = await create_table(p, preset="cerrado", players=2, rules=SHORT_2P)
        tid = table["id"]
        await p.watch(tid)
        r = await p.http.post(f"/api/tables/{tid}/bots")
        assert r.status_code == 200, r.text
        await p.until(lambda: abandoned_event(p, tid) is not None, timeout=15)
        event = abandoned_event(p, tid)
        assert event is not None
        seat = event["event"]["meta"]["seats"][0]
        assert seat["abandoned"] is True and seat["timeouts"] == 3
        assert seat_facts(p, tid, "bot_takeover") == [{"seat": 0, "reason": "timeout"}]
        # named, so every seat can say whose time ran out
        named = {"seat": 0, "name": seat["name"]}
        assert seat_facts(p, tid, "timeout")[:3] == [named] * 3
        refused = await p.command(tid, {"type": "draw"})
        assert refused["type"] == "error" and refused["code"] in ("seat_abandoned", "not_your_turn")
        await p.until(lambda: p.tables[tid].over, timeout=40)
        game = await archived_game(p, p.tables[tid].game_id or "")
        truth = truth_from_archive(game)
        check_totals(game, truth)
        check_viewer(p.frames, truth, tid, 0, p.conn_starts)
        # Each timed-out turn of seat 0 was exactly: draw from the stock, discard.
        turns: list[list[dict[str, Any]]] = []
        for record in game["events"]:
            e = record.get("e")
            if record["k"] == "g" and e.get("seat") == 0:
                if e["type"] in ("drew", "took_pile"):  # a turn starts
                    turns.append([])
                if turns:
                    turns[-1].append(e)
        for turn in turns[:3]:
            assert [e["type"] for e in turn] == ["drew", "discarded"], turn
        assert game["seats"][0]["abandoned"] is True
    finally:
        await p.aclose()


async def test_leave_hands_the_seat_to_a_bot(servers: list[Server]) -> None:
    tid, (p0, p1) = await seat_players(servers, "abierto", 2, SHORT_2P)
    try:
        mark = await p0.send({"type": "leave", "table": tid})
        left = await p0.wait_frame(lambda f: f["type"] in ("left", "error"), since=mark)
        assert left["type"] == "left" and left["table"] == tid
        await p1.until(lambda: abandoned_event(p1, tid) is not None)
        await p1.until(
            lambda: seat_facts(p1, tid, "bot_takeover") == [{"seat": 0, "reason": "abandon"}]
        )
        errors = await p1.play_until_over(tid, random.Random(7))
        assert errors == []
        refused = await p0.command(tid, {"type": "draw"})
        assert refused["type"] == "error" and refused["code"] == "table_not_playing"
        game = await archived_game(p1, p1.tables[tid].game_id or "")
        assert game["seats"][0]["abandoned"] is True
        truth = truth_from_archive(game)
        check_totals(game, truth)
        bot_moves = [
            r
            for r in game["events"]
            if r["k"] == "g" and r["v"] > left["v"] and r["e"].get("seat") == 0
        ]
        assert bot_moves, "the bot never played seat 0"
        check_viewer(p1.frames, truth, tid, 1, p1.conn_starts)
        # REST /leave of someone who does not play there: refused, nothing changes.
        r = await p0.http.post(f"/api/tables/{tid}/leave")
        assert r.status_code in (403, 409), r.text
    finally:
        await p0.aclose()
        await p1.aclose()


async def test_disconnect_past_grace_hands_the_seat_to_a_bot_but_a_second_tab_keeps_it(
    fast_server: Server,
) -> None:
    p0, p1 = await Player.guest(fast_server.base), await Player.guest(fast_server.base)
    tab = p1.tab()
    try:
        for p in (p0, p1):
            await p.connect(fast_server.ws_url)
        table = await create_table(p0, preset="cerrado", players=2, rules=SHORT_2P)
        tid = table["id"]
        await p0.watch(tid)
        await p1.watch(tid)  # watching while the table waits
        await sit(p1, tid, 1)
        await p1.until(lambda: p1.tables[tid].status == "playing")
        # A second tab of p1 comes and goes: p1 is still connected through the first.
        await tab.connect(fast_server.ws_url)
        await tab.watch(tid)
        await tab.disconnect()
        await p0.disconnect()
        t0 = asyncio.get_running_loop().time()
        play = asyncio.create_task(p1.play_until_over(tid, random.Random(3), timeout=60))
        await p1.until(lambda: abandoned_event(p1, tid) is not None, timeout=10)
        event = abandoned_event(p1, tid)
        assert event is not None
        seats = event["event"]["meta"]["seats"]
        assert seats[0]["abandoned"] is True, seats
        assert seats[1]["abandoned"] is False, "p1 still had a tab open"
        assert asyncio.get_running_loop().time() - t0 < 8
        away = seat_facts(p1, tid, "presence")
        assert [(e["seat"], e["connected"]) for e in away] == [(0, False)], away
        assert away[0]["grace_until"] > 0
        assert seat_facts(p1, tid, "bot_takeover") == [{"seat": 0, "reason": "grace_over"}]
        await play
        game = await archived_game(p1, p1.tables[tid].game_id or "")
        assert game["seats"][0]["abandoned"] and not game["seats"][1]["abandoned"]
    finally:
        for p in (p0, p1, tab):
            await p.aclose()


async def test_clock_keeps_running_when_another_seat_leaves(fast_server: Server) -> None:
    """Leaving moves the table's version on; the clock of the seat on turn (keyed by
    version) must be set again, or an idle player and a bot would wait forever."""
    tid, (p0, p1) = await seat_players([fast_server], "cerrado", 2, SHORT_2P)
    try:
        t = p0.tables[tid]
        idle, leaver = (p0, p1) if t.turn == 0 else (p1, p0)
        mark = await leaver.send({"type": "leave", "table": tid})
        left = await leaver.wait_frame(lambda f: f["type"] in ("left", "error"), since=mark)
        assert left["type"] == "left", left
        # Nobody moves: the idle seat times out three times, then bots finish the game.
        await idle.until(lambda: idle.tables[tid].over, timeout=30)
        game = await archived_game(idle, idle.tables[tid].game_id or "")
        assert all(s["abandoned"] for s in game["seats"])
        check_totals(game, truth_from_archive(game))
    finally:
        await p0.aclose()
        await p1.aclose()


async def test_a_snapshot_and_the_table_show_the_running_turn_clock(
    servers: list[Server],
) -> None:
    """The turn clock lives beside the meta (a move does not rewrite the meta): a viewer
    arriving mid-game, on either process, gets the deadline of the last clock record."""
    tid, people = await seat_players(servers, "cerrado", 2, SHORT_2P)
    rng = random.Random(3)
    spectator = await Player.guest(servers[1].base)
    try:

        def clock_frames() -> list[dict[str, Any]]:
            return [
                f
                for f in people[0].frames
                if f["type"] == "event" and f.get("table") == tid and f["kind"] == "clock"
            ]

        async with asyncio.timeout(30):
            while len(clock_frames()) < 4:  # the first turn's clock and three more
                # each seat learns of its turn from its own socket
                on_turn = next((p for p in people if p.tables[tid].my_turn()), None)
                if on_turn is None:
                    await asyncio.sleep(0.02)
                    continue
                ack = await on_turn.play_turn_step(tid, rng)
                assert ack is None or ack["type"] == "ack", ack
        # no move after the loop: the mover's version is the last; seat 0 catches up
        await people[0].until(lambda: people[0].tables[tid].v >= people[1].tables[tid].v)
        clocks = clock_frames()
        last = clocks[-1]["event"]["deadline"]
        assert len({c["event"]["deadline"] for c in clocks}) == len(clocks) >= 4
        await spectator.connect(servers[1].ws_url)
        snapshot = await spectator.watch(tid)
        assert snapshot["type"] == "snapshot"
        assert snapshot["meta"]["turn_deadline"] == last
        r = await spectator.http.get(f"/api/tables/{tid}")
        assert r.status_code == 200 and r.json()["turn_deadline"] == last
        # table records never carry a clock that could be stale
        assert all(
            "turn_deadline" not in f["event"]["meta"]
            for f in people[0].frames
            if f["type"] == "event" and f.get("kind") == "table"
        )
    finally:
        for p in (*people, spectator):
            await p.aclose()
