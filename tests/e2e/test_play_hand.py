"""A guest plays a whole 2-player hand against a bot through the UI and sees the score
breakdown; a refused move is explained in Spanish; the deal is checked as provably fair;
the paint latency of incoming moves is measured and printed."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from tests.e2e.helpers import (
    as_guest,
    draw_and_discard,
    non_meld_triple,
    short_hand_table,
    wait_my_turn_or_end,
)

ES = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())
FRAME_MS = 1000 / 60


def test_guest_plays_a_full_hand_against_a_bot(new_context, artifacts: Path) -> None:
    page = new_context().new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    as_guest(page)
    page.wait_for_selector(".wallet-card")
    page.screenshot(path=str(artifacts / "lobby-desktop.png"), full_page=True)

    short_hand_table(page)
    page.click("#add-bots")
    page.wait_for_selector("#hand .card")
    page.wait_for_timeout(300)
    page.screenshot(path=str(artifacts / "table-desktop.png"), full_page=True)

    turns = 0
    refused = False
    while wait_my_turn_or_end(page) == "draw":
        turns += 1
        assert turns <= 80, "the hand should have ended by now"
        if not refused:
            # A meld the rules refuse: the reason comes back in the player's language.
            size = page.locator("#hand .card").count()
            page.click("#act-draw")
            page.wait_for_function(
                f"() => document.querySelectorAll('#hand .card').length === {size + 1}"
            )
            hand = page.eval_on_selector_all("#hand .card", "cs => cs.map(c => c.dataset.card)")
            for i in non_meld_triple(hand):
                page.locator("#hand .card").nth(i).click()
            page.click("#act-meld")
            page.wait_for_selector("#notice")
            assert page.text_content("#notice") == ES["err.not_a_meld"]
            page.keyboard.press("Escape")
            page.locator("#hand .card").first.click()
            page.click("#act-discard")
            page.wait_for_function("() => document.querySelector('#act-draw').disabled")
            # Your own moves are logged in the second person ("Descartas…"), never as
            # "Tú descarta…".
            mine = json.dumps(ES["move.discardedYou"].split("{")[0])
            page.wait_for_function(
                f"() => [...document.querySelectorAll('.move-log li')]"
                f".some(li => li.textContent.startsWith({mine}))"
            )
            log = page.eval_on_selector_all(".move-log li", "ls => ls.map(l => l.textContent)")
            assert not [line for line in log if line.startswith(ES["table.you"] + " ")], log
            refused = True
            continue
        draw_and_discard(page, keyboard=turns % 2 == 0)

    sheet = page.text_content("#score-sheet") or ""
    for label in ("score.table", "score.canastas", "score.hand", "score.total"):
        assert ES[label] in sheet
    print(f"\nhand finished after {turns} turns of ours; breakdown:\n{sheet}")
    page.screenshot(path=str(artifacts / "hand-result-desktop.png"), full_page=True)

    page.click("#verify")
    page.wait_for_selector("#fair-result", timeout=15000)
    assert "✔" in (page.text_content("#fair-result") or "")

    renders = page.evaluate("() => window.__renderLog")
    print(f"render cost: median {statistics.median(renders):.1f} ms, max {max(renders):.1f} ms")
    paints = page.evaluate("() => window.__paintLog")
    assert paints, "no incoming move was measured"
    p95 = sorted(paints)[int(len(paints) * 0.95) - 1] if len(paints) > 1 else paints[0]
    print(
        f"paint latency of {len(paints)} incoming frames (arrival to the next animation "
        f"frame, DOM already updated): median {statistics.median(paints):.1f} ms, "
        f"p95 {p95:.1f} ms, max {max(paints):.1f} ms (one frame = {FRAME_MS:.1f} ms)"
    )
    assert statistics.median(paints) <= FRAME_MS + 4
    assert p95 <= 4 * FRAME_MS  # load on a 2-core CI box; the median is the figure
    assert not errors, errors
