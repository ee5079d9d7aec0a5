"""A finished table watched again (a page reloaded on the result sheet, a new tab, a
spectator): its snapshot carries the last hand's end as each viewer saw it live, so the
result sheet, with its rematch and replay, comes back (app/tables/live/connection.py
``_final_result``). A table still playing has none."""

from __future__ import annotations

from tests.tables.conftest import no_crash
from tests.tables.harness import Player, Server
from tests.tables.test_replay_api import finish, start_game


async def test_a_finished_table_s_snapshot_carries_its_result(servers: list[Server]) -> None:
    server = servers[0]
    tid, people = await start_game(server, private=False)
    stranger = await Player.guest(server.base)
    try:
        await stranger.connect(server.ws_url)
        playing = await stranger.watch(tid)
        assert playing["type"] == "snapshot" and "result" not in playing

        await finish(tid, people)
        for seat, player in enumerate(people):
            ended = [
                f["event"]
                for f in player.frames
                if f.get("kind") == "game" and f["event"]["type"] == "hand_ended"
            ][-1]
            assert ended["match_over"] is True
            # Watched again without a version, as a reloaded page does.
            snap = await player.watch(tid)
            assert snap["type"] == "snapshot" and snap["meta"]["status"] == "finished"
            assert snap["seat"] == seat
            assert snap["result"] == ended

        # A spectator gets the same public result.
        snap = await stranger.watch(tid)
        assert snap["type"] == "snapshot" and snap["seat"] is None
        assert snap["result"]["type"] == "hand_ended"
        assert snap["result"]["totals"] == ended["totals"]
        assert snap["result"]["match_winner"] == ended["match_winner"]
        no_crash(server)
    finally:
        for p in [*people, stranger]:
            await p.aclose()
