"""Playing a whole game quickly for people who sit at it in a browser.

Clicking every draw and discard of a hand costs about a second a turn here; a game of
60-odd turns would take minutes. ``play_out`` plays each person's seat from that person's
own session (the browser context's cookie) over a real WebSocket of their own, choosing
each move from the legal commands the server lists for that seat (melds when it can, else
a discard: tests/tables/harness.py ``choose``), while the browsers, on their own sockets,
show every move and the end of the game as the player would see it.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any
from urllib.parse import urlsplit

import httpx

from tests.support import in_thread
from tests.tables.harness import Player

Page = Any


def _origin(page: Page) -> str:
    url = urlsplit(page.url)
    return f"{url.scheme}://{url.netloc}"


async def _play(base: str, sessions: list[tuple[int, str]], table_id: str, seed: int) -> None:
    players = []
    try:
        for user_id, cookie in sessions:
            http = httpx.AsyncClient(base_url=base, timeout=20, cookies={"buraco_session": cookie})
            player = Player(base, {"id": user_id}, http)
            players.append(player)
            await player.connect(base.replace("http", "ws", 1) + "/ws", origin=base)
            await player.watch(table_id)
        rng = random.Random(seed)
        errors = await asyncio.gather(*(p.play_until_over(table_id, rng) for p in players))
        assert all(e == [] for e in errors), errors
    finally:
        for p in players:
            await p.aclose()


def play_out(pages: list[Page], table_id: str, seed: int = 16) -> None:
    """Play the game at ``table_id`` to its end for the person of each page."""
    base = _origin(pages[0])
    sessions = []
    for page in pages:
        cookie = next(c["value"] for c in page.context.cookies() if c["name"] == "buraco_session")
        me = page.evaluate("() => fetch('/api/me').then(r => r.json())")
        sessions.append((int(me["id"]), cookie))
    in_thread(asyncio.run, _play(base, sessions, table_id, seed))
