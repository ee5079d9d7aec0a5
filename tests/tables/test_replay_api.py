"""GET /api/games/{id}/replay, its frames and its score sheet, on real processes: two
scripted people play a short game; while it is live every replay path answers 409
game_live; once archived the replay verifies offline, a stranger reads a public game's
and gets 404 for a private one's."""

from __future__ import annotations

import random
import secrets
from typing import Any

from app.rules.replay import verify
from tests.tables.conftest import no_crash
from tests.tables.harness import Player, Server, archived_game, create_table, sit
from tests.tables.test_games import SHORT_2P

PATHS = ("/replay", "/replay/frames", "/replay.txt")


async def start_game(server: Server, private: bool) -> tuple[str, list[Player]]:
    if private:  # an invitation names a registered player
        tag = secrets.token_hex(4)
        people = [await Player.registered(server.base, f"rp{tag}{i}") for i in range(2)]
    else:
        people = [await Player.guest(server.base) for _ in range(2)]
    for p in people:
        await p.connect(server.ws_url)
    table = await create_table(
        people[0], preset="cerrado", players=2, rules=SHORT_2P, private=private, name="replay"
    )
    tid = table["id"]
    await people[0].watch(tid)
    if private:
        r = await people[0].http.post(
            f"/api/tables/{tid}/invite", json={"usernames": [people[1].me["username"]]}
        )
        assert r.status_code == 200, r.text
    await people[1].watch(tid)
    await sit(people[1], tid, 1)
    for p in people:
        await p.until(lambda p=p: p.tables[tid].status == "playing")
    return tid, people


async def finish(tid: str, people: list[Player]) -> dict[str, Any]:
    import asyncio

    rngs = [random.Random(5 + i) for i in range(2)]
    results = await asyncio.gather(
        *(p.play_until_over(tid, r) for p, r in zip(people, rngs, strict=True))
    )
    assert results == [[], []]
    return await archived_game(people[0], people[0].tables[tid].game_id or "")


async def test_a_public_game_replays_for_anyone_once_over(servers: list[Server]) -> None:
    server = servers[0]
    tid, people = await start_game(server, private=False)
    stranger = await Player.guest(server.base)
    try:
        game_id = people[0].tables[tid].game_id
        assert game_id
        for who in (people[0], stranger):
            for ref in (game_id, tid):
                for path in PATHS:
                    r = await who.http.get(f"/api/games/{ref}{path}")
                    assert r.status_code == 409, (ref, path, r.text)
                    assert r.json()["error"]["code"] == "game_live"
        assert (await stranger.http.get("/api/games/nosuchgame/replay")).status_code == 404

        await finish(tid, people)
        for who in (people[1], stranger):
            r = await who.http.get(f"/api/games/{game_id}/replay")
            assert r.status_code == 200, r.text
            assert "content-disposition" not in r.headers
            replay = r.json()
            assert replay["format"] == "buraco-replay" and replay["version"] == 1
            assert verify(replay).startswith(f"OK {game_id}:")
        assert [p["user_id"] for p in replay["players"]] == [people[0].id, people[1].id]
        hand = replay["hands"][0]
        assert hand["scheme"] == "seed" and hand["cut_by"] == "timeout"
        assert hand["moves"][0]["n"] == 0 and hand["moves"][1]["command"]["type"] in (
            "draw",
            "take_discard",
        )

        r = await stranger.http.get(f"/api/games/{game_id}/replay?download=1")
        assert r.headers["content-disposition"] == f'attachment; filename="buraco-{game_id}.json"'
        assert r.json() == replay

        r = await stranger.http.get(f"/api/games/{game_id}/replay/frames")
        assert r.status_code == 200, r.text
        frames = r.json()
        assert frames["game_id"] == game_id and frames["version"] == 1
        assert frames["totals"] == replay["totals"]
        assert len(frames["hands"][0]["frames"]) == len(hand["moves"])
        last = frames["hands"][0]["frames"][-1]
        assert last["state"]["scores"]["totals"] == replay["totals"]
        assert len(last["state"]["hands"]) == 2

        r = await stranger.http.get(f"/api/games/{game_id}/replay.txt")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        assert r.headers["content-disposition"] == f'attachment; filename="buraco-{game_id}.txt"'
        assert f"Total side 1: {replay['totals'][0]}" in r.text

        assert (await stranger.http.get(f"/api/games/{game_id}/verify")).json()["ok"] is True
        no_crash(server)
    finally:
        for p in [*people, stranger]:
            await p.aclose()


async def test_a_private_game_is_refused_to_strangers(servers: list[Server]) -> None:
    server = servers[1]
    tid, people = await start_game(server, private=True)
    stranger = await Player.guest(server.base)
    try:
        game_id = people[0].tables[tid].game_id
        for ref in (game_id, tid):
            r = await stranger.http.get(f"/api/games/{ref}/replay")
            assert r.status_code == 404 and r.json()["error"]["code"] == "game_not_found"
            r = await people[1].http.get(f"/api/games/{ref}/replay")
            assert r.status_code == 409 and r.json()["error"]["code"] == "game_live"
        await finish(tid, people)
        for path in PATHS:
            r = await stranger.http.get(f"/api/games/{game_id}{path}")
            assert r.status_code == 404 and r.json()["error"]["code"] == "game_not_found"
        for p in people:
            r = await p.http.get(f"/api/games/{game_id}/replay")
            assert r.status_code == 200 and verify(r.json()).startswith("OK")
        no_crash(server)
    finally:
        for p in [*people, stranger]:
            await p.aclose()
