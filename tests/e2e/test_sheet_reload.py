"""A page reloaded between two hands of a match: on a server that gives the cutter a
minute, two players (scripted, over their own sockets) play the first hand to its end;
while the second deal waits for its cut, one of them opens the table in the browser,
as a reload does, and finds the hand's score sheet on screen with the totals it was
dealt live. Closed, it goes; a new page brings it back until the next hand is dealt."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from tests.e2e.helpers import as_guest
from tests.tables.harness import Player, cut_deck, hands_ended, play_hand, seat_all
from tests.tables.test_games import SHORT_2P

ES = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())
T = TypeVar("T")


def settle(page: Any) -> None:
    """The sheet's rise has ended (a screenshot shows it, not the board through it)."""
    page.wait_for_function(
        "() => (document.querySelector('.overlay.result .dialog')?.getAnimations() ?? [1])"
        ".length === 0"
    )


def grand_totals(page: Any) -> list[int]:
    """The sheet's match totals as numbers (Spanish digit grouping taken out)."""
    cells = page.locator("#score-sheet tr.grand td").all_text_contents()
    return [int(x.replace(".", "").replace("\u202f", "")) for x in cells]


class Loop:
    """An event loop on a thread of its own, for the scripted players beside the
    synchronous browser."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 90) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


async def first_hand_played(base: str) -> tuple[str, list[Player], dict[str, Any]]:
    """Two guests at a match to 100,000: the first hand cut, played to its end; the
    second waits for its cut. Returns the table, the players and the hand's end as the
    first player saw it."""
    people = [await Player.guest(base) for _ in range(2)]
    ws_url = base.replace("http", "ws") + "/ws"
    for p in people:
        await p.connect(ws_url, origin=base)
    tid = await seat_all(people, preset="cerrado", players=2, rules=SHORT_2P, target_score=100_000)
    await cut_deck(tid, people)
    await play_hand(tid, people, seed=7)
    ended = hands_ended(people[0])
    assert len(ended) == 1 and ended[0]["match_over"] is False
    return tid, people, ended[0]


def test_a_reload_between_hands_shows_the_hand_s_sheet(
    cut_context: Any, cut_server: str, artifacts: Path
) -> None:
    loop = Loop()
    people: list[Player] = []
    try:
        tid, people, ended = loop.run(first_hand_played(cut_server))
        # the browser is the next hand's cutter: the cut panel, with its deck to tap, is
        # on screen with the sheet
        ana = people[people[0].tables[tid].meta["cut"]["seat"]]
        ctx = cut_context(390, 844, has_touch=True, is_mobile=True)
        ctx.add_cookies([{"name": "buraco_session", "value": ana.cookie, "url": cut_server}])
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"/#/table/{tid}")  # a reload on the table, between the hands

        sheet = page.wait_for_selector('[data-region="sheet"]')
        assert sheet is not None
        caption = page.text_content("#score-sheet caption") or ""
        assert caption == ES["score.caption"].replace("{n}", "1"), caption
        assert grand_totals(page) == ended["totals"], ended["totals"]
        headline = page.text_content("#result-title") or ""
        mine = ended["winner"] == ana.tables[tid].seat
        assert headline.startswith(ES["result.youWinHand" if mine else "result.theyWinHand"][:4])
        # the next hand waits for its cut, and the sheet says so
        hint = page.text_content("#next-hand-hint") or ""
        assert hint.endswith(ES["result.nextHandAfterCut"]), hint
        settle(page)
        page.wait_for_selector("#cut-deck")
        button, panel = (
            page.locator("#next-hand").bounding_box(),
            page.locator("#cut-panel").bounding_box(),
        )
        assert button is not None and panel is not None
        assert button["y"] + button["height"] <= panel["y"], (button, panel)  # not under it
        page.screenshot(path=str(artifacts / "sheet-reload-phone.png"))

        # a spectator who opens the table now sees the same sheet, and whose cut it is
        watcher = cut_context(390, 844, has_touch=True, is_mobile=True).new_page()
        watcher.on("pageerror", lambda e: errors.append(str(e)))
        as_guest(watcher)
        watcher.goto(f"/#/table/{tid}")
        watcher.wait_for_selector('[data-region="sheet"]')
        assert (watcher.text_content("#result-title") or "").startswith(("Gana", "Ganan"))
        assert grand_totals(watcher) == ended["totals"]
        assert watcher.query_selector("#cut-deck") is None and watcher.is_visible("#cut-panel")
        settle(watcher)
        watcher.screenshot(path=str(artifacts / "sheet-reload-spectator-phone.png"))

        page.tap("#next-hand")  # closed with a tap
        page.wait_for_selector('[data-region="sheet"]', state="detached")
        page.set_viewport_size({"width": 1366, "height": 768})
        page.reload()  # a new page brings it back, at a laptop's size
        page.wait_for_selector('[data-region="sheet"]')
        settle(page)
        page.screenshot(path=str(artifacts / "sheet-reload-laptop.png"))

        loop.run(cut_deck(tid, people))  # the second hand is dealt: the open sheet says so
        page.wait_for_function(
            "(w) => (document.querySelector('#next-hand-hint')?.textContent ?? '').endsWith(w)",
            arg=ES["result.nextHandDealt"],
        )
        page.reload()
        page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 20")
        assert page.query_selector('[data-region="sheet"]') is None
        assert errors == []
    finally:
        for p in people:
            loop.run(p.aclose())
        loop.close()
