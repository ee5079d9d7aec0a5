"""The replay viewer: a guest plays a short hand against a bot in the browser, opens its
replay from the end sheet and steps through it with the keys, the buttons, the slider
and autoplay; the point of view hides the other hands; the last step's totals are the
game's; the address keeps the step, so the link opens at it for another player too;
the JSON and the score sheet download. At 1366x768 and 390x844 the page never scrolls
(screenshots kept in tests/e2e/artifacts/)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.e2e.helpers import (
    SELECT_CUT,
    TEXT_CUT,
    as_guest,
    draw_and_discard,
    open_table,
    short_hand_table,
    wait_my_turn_or_end,
)
from tests.e2e.scripted import play_out
from tests.e2e.test_languages import _check_screen

ES = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())

NO_PAGE_SCROLL = """() => {
  const d = document.scrollingElement;
  return d.scrollHeight <= window.innerHeight + 1 && d.scrollWidth <= d.clientWidth + 1;
}"""
STEP = """() => {
  const c = document.querySelector('#rp-counter');
  return [Number(c.dataset.n), Number(c.dataset.last)];
}"""
# The match totals of the end sheet as numbers ("−215" is written with a minus sign).
SHEET_TOTALS = """cs => cs.map(
  c => c.textContent.replace(/\u2212/g, '-').replace(/[^-\\d]/g, ''))"""


def _step(page) -> tuple[int, int]:
    n, last = page.evaluate(STEP)
    return int(n), int(last)


def _wait_step(page, n: int) -> None:
    page.wait_for_function(f"() => document.querySelector('#rp-counter')?.dataset.n === '{n}'")


def _head_reads_whole(page) -> None:
    """The replay's head on a phone: every choice of hand and point of view is read
    whole in its box ("Todas las manos a la vista", "Como Invitado 1234"), the title and
    the score sheet's button too, and the way back to the lobby is there with its name."""
    assert page.evaluate(SELECT_CUT, "#rp-pov, #rp-hand") == []
    assert page.evaluate(TEXT_CUT, ".rp-head h1, #rp-sheet-toggle") == []
    back = page.locator("#rp-back")
    assert back.is_visible() and back.get_attribute("aria-label") == ES["table.backToLobby"]
    assert back.bounding_box()["width"] >= 36  # a thumb's target


def _play_a_hand(page) -> None:
    short_hand_table(page)
    page.click("#add-bots")
    page.wait_for_selector("#hand .card")
    turns = 0
    while wait_my_turn_or_end(page) == "draw":
        turns += 1
        assert turns <= 80, "the hand should have ended by now"
        draw_and_discard(page, keyboard=turns % 2 == 0)


def test_replay_from_the_end_sheet_step_by_step(new_context, artifacts: Path) -> None:
    ctx = new_context(
        1366, 768, permissions=["clipboard-read", "clipboard-write"], reduced_motion="reduce"
    )
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    as_guest(page)
    _play_a_hand(page)

    # The end sheet's match totals, as the player saw them.
    page.wait_for_selector("#see-replay")
    page.screenshot(path=str(artifacts / "replay-end-sheet-desktop.png"))
    sheet_totals = page.eval_on_selector_all("#score-sheet tr.grand td", SHEET_TOTALS)
    page.click("#see-replay")
    page.wait_for_selector("#rp-board")
    game_id = page.evaluate("() => decodeURIComponent(location.hash.split('/')[2].split('?')[0])")
    game = page.evaluate(f"() => fetch('/api/games/{game_id}').then(r => r.json())")
    assert [str(v) for v in game["totals"]] == sheet_totals, (game["totals"], sheet_totals)

    # The deal: every hand open, the dealer named, no points yet.
    n, last = _step(page)
    assert n == 0 and last > 10, (n, last)
    assert page.locator(".rp-hand[data-open='false']").count() == 0
    assert page.locator(".rp-seat").count() == 2
    assert page.locator(".rp-seat.bottom .rp-hand .card").count() == 20
    dealt = ES["replay.dealt"].split("{")[0]
    assert (page.text_content("#rp-step") or "").startswith(dealt)
    assert page.get_attribute("#rp-totals", "data-totals") == "0,0"
    assert page.evaluate(NO_PAGE_SCROLL)
    page.screenshot(path=str(artifacts / "replay-desktop-start.png"))

    # The keys: → forward, ← back, End and Home; the address follows.
    page.locator("body").press("ArrowRight")
    _wait_step(page, 1)
    first_move = page.text_content("#rp-step") or ""
    assert first_move and first_move != ES["replay.noEvent"]
    page.locator("body").press("ArrowRight")
    _wait_step(page, 2)
    page.locator("body").press("ArrowLeft")
    _wait_step(page, 1)
    assert page.text_content("#rp-step") == first_move
    assert "n=1" in page.evaluate("() => location.hash")
    page.locator("body").press("End")
    _wait_step(page, last)
    page.locator("body").press("Home")
    _wait_step(page, 0)

    # The buttons and the slider.
    page.click("#rp-next")
    _wait_step(page, 1)
    page.click("#rp-next")
    _wait_step(page, 2)
    page.click("#rp-prev")
    _wait_step(page, 1)
    page.locator("#rp-slider").fill(str(last // 2))
    _wait_step(page, last // 2)
    page.click("#rp-first")
    _wait_step(page, 0)

    # Autoplay at 2x moves on by itself and stops when asked.
    page.click(".rp-speed-btn[data-speed='2']")
    page.click("#rp-play")
    page.wait_for_function("() => Number(document.querySelector('#rp-counter').dataset.n) >= 2")
    page.click("#rp-play")
    stopped = _step(page)[0]
    page.wait_for_timeout(1200)
    assert _step(page)[0] == stopped

    # Every word on the viewer goes through the dictionaries, in all five languages.
    _check_screen(page, "replay.title")

    # One seat's eyes: only that hand open, the bot's face down; then all open again.
    page.select_option("#rp-pov", "1")
    page.wait_for_selector(".rp-seat.bottom[data-seat='1'] .rp-hand[data-open='true']")
    assert page.locator(".rp-seat[data-seat='0'] .rp-hand[data-open='false']").count() == 1
    assert "seat=1" in page.evaluate("() => location.hash")
    page.select_option("#rp-pov", "all")
    page.wait_for_function("() => !document.querySelector(\".rp-hand[data-open='false']\")")
    at = _step(page)[0]
    page.keyboard.press("ArrowRight")  # the selector let go of the keys
    _wait_step(page, at + 1)

    # Step to the end with the buttons: the last step's totals are the game's.
    page.click("#rp-last")
    _wait_step(page, last)
    assert page.is_disabled("#rp-next")
    totals = page.get_attribute("#rp-totals", "data-totals")
    assert totals == ",".join(str(v) for v in game["totals"]), (totals, game["totals"])
    assert page.locator(".rp-side #score-sheet").count() == 1  # the hand's breakdown
    assert page.evaluate(NO_PAGE_SCROLL)
    page.screenshot(path=str(artifacts / "replay-desktop-end.png"))

    # The deal's fairness data: the revealed seed is the one its fingerprint promised.
    page.click("#rp-fair summary")
    codes = page.eval_on_selector_all("#rp-fair dd code", "cs => cs.map(c => c.textContent)")
    commitment, seed = codes
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment
    assert ES["replay.fairHow"] in (page.text_content("#rp-fair") or "")

    # The exports: the versioned JSON and the plain-text score sheet.
    with page.expect_download() as dl:
        page.click("#rp-json")
    doc = json.loads(Path(dl.value.path()).read_text())
    assert (doc["format"], doc["version"]) == ("buraco-replay", 1)
    with page.expect_download() as dl:
        page.click("#rp-txt")
    assert game_id in Path(dl.value.path()).read_text()

    # The profile's recent games link to the replay too.
    me = page.evaluate("() => fetch('/api/me').then(r => r.json())")
    page.goto(f"/#/profile/{me['id']}")
    page.click(f"a[data-replay='{game_id}']")
    page.wait_for_selector("#rp-board")
    assert page.evaluate("() => location.hash").startswith(f"#/replay/{game_id}")

    # The link opens at the same step, for another player too (a public table, over).
    page.locator("body").press("Home")
    _wait_step(page, 0)
    page.click("#rp-next")
    page.click("#rp-next")
    page.click("#rp-next")
    _wait_step(page, 3)
    page.select_option("#rp-pov", "0")
    page.click("#rp-copy")
    page.wait_for_selector(f".toast.ok:has-text('{ES['replay.copied']}')")
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert link == page.url and "n=3" in link and "seat=0" in link
    other = new_context(390, 844, is_mobile=True, has_touch=True, device_scale_factor=2).new_page()
    as_guest(other)
    other.goto(link)
    other.wait_for_selector("#rp-board")
    _wait_step(other, 3)
    assert other.input_value("#rp-pov") == "0"
    assert other.text_content("#rp-step") == page.text_content("#rp-step")
    assert other.evaluate(NO_PAGE_SCROLL)
    other.screenshot(path=str(artifacts / "replay-phone-shared.png"))

    # The phone: the keys work there too; the score sheet opens over the felt.
    page.set_viewport_size({"width": 390, "height": 844})
    page.select_option("#rp-pov", "all")
    page.locator("body").press("End")
    _wait_step(page, last)
    assert page.evaluate(NO_PAGE_SCROLL)
    page.screenshot(path=str(artifacts / "replay-phone-end.png"))
    _head_reads_whole(page)
    page.click("#rp-sheet-toggle")
    page.wait_for_selector("#rp-scores", state="visible")
    assert page.evaluate(NO_PAGE_SCROLL)
    page.screenshot(path=str(artifacts / "replay-phone-sheet.png"))
    page.click("#rp-sheet-toggle")
    page.set_viewport_size({"width": 360, "height": 740})
    _head_reads_whole(page)
    assert page.evaluate(NO_PAGE_SCROLL)
    page.screenshot(path=str(artifacts / "replay-phone-360.png"))
    assert not errors, errors


def test_replay_of_a_missing_game_says_so(new_context) -> None:
    page = new_context().new_page()
    as_guest(page)
    page.goto("/#/replay/nosuchgame")
    page.wait_for_selector("#rp-error")
    assert page.text_content("h1") == ES["replay.missing"]


def test_a_game_being_archived_is_asked_again_until_it_answers(new_context) -> None:
    """Opened the moment a game ends, the replay may not be archived yet (409
    ``game_archiving``): the viewer keeps saying it is loading and asks again each
    second, and shows what the server answers once it answers otherwise."""
    page = new_context().new_page()
    as_guest(page)
    asked: list[str] = []

    def archiving(route) -> None:
        asked.append(route.request.url)
        if len(asked) <= 2:
            route.fulfill(
                status=409,
                content_type="application/json",
                body=json.dumps({"error": {"code": "game_archiving", "message": "being saved"}}),
            )
        else:
            route.continue_()

    page.route("**/api/games/justover/replay/frames", archiving)
    page.goto("/#/replay/justover")
    loading = json.dumps(ES["common.loading"])
    page.wait_for_function(f"() => document.body.textContent.includes({loading})")
    assert page.locator("#rp-error").count() == 0
    page.wait_for_selector("#rp-error", timeout=10_000)
    assert len(asked) == 3  # twice "being saved", then the real answer: no such game
    assert page.text_content("h1") == ES["replay.missing"]


def test_replay_of_a_four_player_game_at_phone_and_laptop_sizes(new_context, artifacts) -> None:
    """Pairs with muertos, a match of several hands: four seats, the hand selector, the
    partner's hand face down from one seat's eyes, the muertos on the felt; nothing
    scrolls the page at either size. The table's motion is off (prefers-reduced-motion):
    this test is about the replay, and the hands it plays go quicker without it."""
    page = new_context(1366, 768, reduced_motion="reduce").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    as_guest(page)
    tid = open_table(
        page, 4, "cerrado", {"hand_size": 11, "stock_end": 20}, name="Parejas", target_score=1500
    )
    page.click("#add-bots")
    page.wait_for_selector("#hand .card")
    play_out([page], tid)
    page.click("#see-replay")
    page.wait_for_selector("#rp-board")
    assert page.locator(".rp-seat").count() == 4
    # A match of several hands (to 1,500; a short hand scores a few hundred).
    game_id = page.evaluate("() => location.hash.split('/')[2].split('?')[0]")
    game = page.evaluate(f"() => fetch('/api/games/{game_id}').then(r => r.json())")
    hands = page.locator("#rp-hand option").count()
    assert hands >= 2 and page.locator("#rp-scores tbody tr").count() == hands
    assert page.locator("#rp-pov option").count() == 5
    assert page.locator(".rp-pile.muerto").count() == 2
    mid = _step(page)[1] // 2
    page.locator("#rp-slider").fill(str(mid))
    _wait_step(page, mid)
    assert page.evaluate(NO_PAGE_SCROLL)
    page.screenshot(path=str(artifacts / "replay-4p-desktop.png"))

    # The hand selector; a step back from a hand's deal ends the hand before, whose
    # points are then on the sheet; the last hand's last step shows the game's totals.
    page.select_option("#rp-hand", "1")
    page.wait_for_selector(".rp-screen[data-hand='2'][data-n='0']")
    page.click("#rp-prev")
    page.wait_for_selector(".rp-screen[data-hand='1']")
    assert _step(page)[0] == _step(page)[1]
    assert page.locator("#rp-scores tbody tr[data-hand='1'] td").first.inner_text() != "—"
    assert page.locator("#rp-scores tbody tr[data-hand='2'] td").first.inner_text() == "—"
    page.select_option("#rp-hand", str(hands - 1))
    page.wait_for_selector(f".rp-screen[data-hand='{hands}']")
    page.click("#rp-last")
    page.wait_for_function("() => document.querySelector('#rp-next').disabled")
    totals = page.get_attribute("#rp-totals", "data-totals")
    assert totals == ",".join(str(v) for v in game["totals"]), (totals, game["totals"])
    assert max(game["totals"]) >= 1500

    # Seat 0's eyes: its own hand open, the partner's (seat 2) and the opponents' not.
    page.select_option("#rp-pov", "0")
    # (attached, not visible: at the last step seat 0 may have gone out, its hand empty)
    page.wait_for_selector(
        ".rp-seat.bottom[data-seat='0'] .rp-hand[data-open='true']", state="attached"
    )
    assert page.locator(".rp-hand[data-open='false']").count() == 3
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("body").press("End")
    _wait_step(page, _step(page)[1])
    assert page.evaluate(NO_PAGE_SCROLL)
    page.screenshot(path=str(artifacts / "replay-4p-phone.png"))
    assert not errors, errors
