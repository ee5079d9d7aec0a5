"""The lobby and the table on a 390x844 phone: nothing overflows sideways, the whole
hand and the actions are reachable; screenshots are kept in tests/e2e/artifacts/."""

from __future__ import annotations

from tests.e2e.helpers import as_guest, draw_and_discard, short_hand_table

NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth + 1"


def test_phone_lobby_and_table(new_context, artifacts) -> None:
    page = new_context(390, 844, is_mobile=True, has_touch=True, device_scale_factor=2).new_page()
    as_guest(page)
    page.wait_for_selector(".wallet-card")
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    page.screenshot(path=str(artifacts / "lobby-phone.png"), full_page=True)

    short_hand_table(page)
    page.click("#add-bots")
    page.wait_for_selector("#hand .card")
    page.wait_for_function("() => !document.querySelector('#act-draw').disabled", timeout=20000)
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    # No keyboard shortcut letters on a touch screen.
    assert page.locator("#act-draw kbd").is_hidden()
    page.screenshot(path=str(artifacts / "table-phone.png"), full_page=True)
    draw_and_discard(page)
    page.locator("#hand .card").first.click()
    page.screenshot(path=str(artifacts / "table-phone-selected.png"))
