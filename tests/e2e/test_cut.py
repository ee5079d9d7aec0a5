"""The cut in the browser: two guests sit at a table on a server that gives the cutter a
minute; the player to the dealer's right sees the deck and cuts it with a tap (a touch
tap on a phone, a click on a laptop); both are dealt; once bots have finished the game,
its replay says the player cut where the tap was and checks out offline."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from app.rules.replay import verify
from tests.e2e.helpers import as_guest, open_table

ES = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())
RULES = {"hand_size": 20, "muertos": 0, "stock_end": 20}
SIZES = {"phone": (390, 844), "laptop": (1366, 768)}


def fetch_json(page: Any, path: str) -> tuple[int, Any]:
    return tuple(  # type: ignore[return-value]
        page.evaluate(
            "async (p) => { const r = await fetch(p); return [r.status, await r.json()]; }", path
        )
    )


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_the_cutter_cuts_with_a_tap(cut_context: Any, artifacts: Path, size: str) -> None:
    width, height = SIZES[size]
    touch = {"has_touch": True, "is_mobile": True} if size == "phone" else {}
    pages = []
    errors: list[str] = []
    for _ in range(2):
        page = cut_context(width, height, **touch).new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        as_guest(page)
        pages.append(page)
    ana, bea = pages
    tid = open_table(ana, rules=RULES, name="Corte")
    ana.wait_for_selector("#wait-title")
    bea.evaluate(
        "async (tid) => { await fetch(`/api/tables/${tid}/sit`, { method: 'POST',"
        " headers: { 'Content-Type': 'application/json' }, body: '{}' }); }",
        tid,
    )
    bea.goto(f"/#/table/{tid}")
    for page in pages:
        page.wait_for_selector("#cut-panel")
    cutter = next(p for p in pages if p.query_selector("#cut-deck"))
    other = bea if cutter is ana else ana
    assert other.query_selector("#cut-deck") is None
    status, meta = fetch_json(ana, f"/api/tables/{tid}")
    assert status == 200, meta
    prompt = meta["cut"]
    for page in pages:  # everyone sees the deck's commitment before the cut
        assert page.get_attribute("#cut-commitment", "title") == prompt["commitment"]
    assert ES["cut.yours"] in cutter.text_content("#cut-panel")
    assert ES["cut.theirs"].split("{")[0] in other.text_content("#cut-panel")
    assert cutter.locator("#hand .card").count() == 0  # nothing dealt before the cut
    cutter.screenshot(path=str(artifacts / f"cut-{size}.png"))
    other.screenshot(path=str(artifacts / f"cut-waiting-{size}.png"))

    deck = cutter.locator("#cut-deck")
    box = deck.bounding_box()
    assert box is not None and box["width"] > 200 and box["height"] >= 60
    frac = 0.3
    x, y = box["x"] + box["width"] * frac, box["y"] + box["height"] / 2
    if size == "phone":
        cutter.touchscreen.tap(x, y)
    else:
        cutter.mouse.move(x, y)
        cutter.mouse.click(x, y)
    for page in pages:
        page.wait_for_selector("#cut-panel", state="detached")
        page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 20")
    cutter.screenshot(path=str(artifacts / f"cut-dealt-{size}.png"))
    game_id = meta["game_id"]
    status, body = fetch_json(other, f"/api/games/{game_id}/replay")
    assert status == 409 and body["error"]["code"] == "game_live"

    for page in pages:  # bots finish the game for both
        page.evaluate(
            "async (tid) => { await fetch(`/api/tables/${tid}/leave`, { method: 'POST' }); }", tid
        )
    deadline = time.monotonic() + 60
    while True:
        status, replay = fetch_json(ana, f"/api/games/{game_id}/replay")
        if status == 200:
            break
        assert status == 409, replay
        assert time.monotonic() < deadline, "the bots never finished the game"
        time.sleep(0.5)
    hand = replay["hands"][0]
    expected = prompt["min"] + frac * (prompt["max"] - prompt["min"])
    assert hand["cut_by"] == "player" and abs(hand["cut"] - expected) <= 2, hand["cut"]
    assert hand["commitment"] == prompt["commitment"]
    assert verify(replay).startswith(f"OK {game_id}:")
    assert errors == []
