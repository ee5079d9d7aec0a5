"""Presence at the table, between two real browsers, on a server whose grace period is 3
seconds and whose turns last 12: when one player closes the tab the other sees the seat
"away" (with the grace period counting down) within 2 seconds, then the bot takeover
announced; a player who leaves through the app's own dialog is announced as having left;
the clock warns and says when it played. The server runs on a random port with no
configured origins, so a guest playing a whole hand there is also the "any port but
8000" smoke test."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from tests.e2e.helpers import as_guest, draw_and_discard, open_table, wait_my_turn_or_end

ES = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())
RULES = {"hand_size": 11, "muertos": 0, "stock_end": 20}


def two_player_game(make: Any) -> tuple[Any, Any, Any, str]:
    """Ana opens a table, Bea sits; both pages show the game. Returns (ana, bea's context,
    bea, table id)."""
    ana = make(1280, 800).new_page()
    as_guest(ana)
    tid = open_table(ana, rules=RULES, name="Presencia")
    ana.wait_for_selector("#wait-title")
    bea_ctx = make(1280, 800)
    bea = bea_ctx.new_page()
    as_guest(bea)
    bea.evaluate(
        "async (tid) => { await fetch(`/api/tables/${tid}/sit`, { method: 'POST',"
        " headers: { 'Content-Type': 'application/json' }, body: '{}' }); }",
        tid,
    )
    bea.goto(f"/#/table/{tid}")
    for page in (ana, bea):
        page.wait_for_selector("#hand .card")
    return ana, bea_ctx, bea, tid


def toasts(page: Any) -> list[str]:
    return page.eval_on_selector_all(".toast", "els => els.map(e => e.textContent)")


def test_closed_tab_is_shown_away_then_a_bot_takes_over(grace_context, artifacts) -> None:
    ana, bea_ctx, bea, _ = two_player_game(grace_context)
    # A guest's stored name ("Invitado1234") as the page words it ("Invitado 1234").
    bea_name = re.sub(
        r"^Invitado(\d+)$", r"Invitado \1", bea.evaluate("() => window.__buraco.app.me.nickname")
    )
    closed = time.monotonic()
    bea_ctx.close()
    ana.wait_for_selector(".seat .tag.warn[data-away]", timeout=2000)
    assert time.monotonic() - closed < 2.5
    away = ana.text_content(".seat .tag.warn[data-away]") or ""
    assert away.startswith(ES["table.awayFor"].split("{")[0]), away
    assert any(bea_name in t and "bot" in t for t in toasts(ana)), toasts(ana)
    ana.screenshot(path=str(artifacts / "table-away.png"))
    why = ES["takeover.grace_over"]
    ana.wait_for_function(
        f"() => [...document.querySelectorAll('.move-log li')]"
        f".some(li => li.textContent.includes({json.dumps(why)}))",
        timeout=8000,
    )
    assert ana.locator(".seat .tag.warn[data-away]").count() == 0
    assert ana.locator(".opponents .seat .tag.bot").count() == 1


def test_leaving_asks_in_the_app_dialog_and_is_announced(grace_context) -> None:
    ana, _, bea, _ = two_player_game(grace_context)
    bea.click("#leave")
    bea.wait_for_selector("#confirm-ok")  # the app's dialog, not the browser's confirm()
    bea.click("#confirm-cancel")
    assert bea.locator("#hand .card").count() > 0  # cancelled: still playing
    bea.click("#leave")
    bea.click("#confirm-ok")
    bea.wait_for_selector("#play-now")
    why = ES["takeover.abandon"]
    ana.wait_for_function(
        f"() => [...document.querySelectorAll('.toast, .move-log li')]"
        f".some(e => e.textContent.includes({json.dumps(why)}))",
        timeout=5000,
    )


def test_the_clock_warns_at_ten_seconds_and_says_when_it_played_for_you(grace_context) -> None:
    page = grace_context(390, 844).new_page()
    as_guest(page)
    open_table(page, rules=RULES, name="Reloj")
    page.click("#add-bots")
    page.wait_for_function(
        "() => document.querySelector('#act-draw')?.disabled === false", timeout=10000
    )
    seconds = int(page.text_content(".me-row .seat.turn .clock") or "0")
    assert 8 <= seconds <= 13, seconds  # readable seconds on your seat (12 s turns; ±1 s skew)
    page.wait_for_selector(".me-row .seat.turn .clock.warn", timeout=5000)
    assert int(page.text_content(".me-row .clock.warn") or "99") <= 10
    said = json.dumps(ES["table.timedOutYou"])
    page.wait_for_function(
        f"() => [...document.querySelectorAll('.toast')].some(e => e.textContent.includes({said}))",
        timeout=15000,
    )


def test_on_any_port_a_guest_plays_a_whole_hand(grace_context) -> None:
    # the motion off (prefers-reduced-motion): the port is tested, and the hand is quicker
    page = grace_context(1280, 800, reduced_motion="reduce").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    as_guest(page)
    open_table(page, rules={"hand_size": 20, "muertos": 0, "stock_end": 20}, name="Puerto")
    page.click("#add-bots")
    page.wait_for_selector("#hand .card")
    while wait_my_turn_or_end(page) == "draw":
        draw_and_discard(page)
    assert ES["score.total"] in (page.text_content("#score-sheet") or "")
    assert page.locator(".banner:not([hidden])").count() == 0
    assert errors == []
