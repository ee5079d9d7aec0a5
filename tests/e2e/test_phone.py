"""The lobby and the table on a 390x844 phone: nothing overflows sideways, the whole
hand and the actions are reachable; screenshots are kept in tests/e2e/artifacts/."""

from __future__ import annotations

from tests.e2e.helpers import NO_SIDEWAYS_SCROLL, as_guest, draw_and_discard, short_hand_table


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


# The head's first row: the brand, the wallet, the language and the account, each by the
# top of its box; on one row they share it (within a few pixels: they are centred).
HEAD_ROWS = """() => ['.brand', '.wallet', '#lang', '.usermenu summary'].map((sel) => {
  const r = document.querySelector(sel).getBoundingClientRect();
  return [sel, Math.round(r.top + r.height / 2), Math.round(r.right)];
})"""


def test_the_head_is_one_row_on_a_narrow_phone_in_every_language(new_context, artifacts) -> None:
    """At 360 px the brand, the wallet, the language and the account share the head's
    first row in every language (a long language name, "Português", once pushed them
    to a second row under the brand), with none past the screen's edge."""
    page = new_context(360, 740, is_mobile=True, has_touch=True).new_page()
    as_guest(page)
    page.wait_for_selector(".wallet-card")
    for lang in ("es", "en", "pt", "it", "pl"):
        page.select_option("#lang", lang)
        page.wait_for_function(f"() => document.documentElement.lang.startsWith('{lang}')")
        rows = page.evaluate(HEAD_ROWS)
        middles = [middle for _, middle, _ in rows]
        assert max(middles) - min(middles) <= 4, (lang, rows)
        assert all(right <= 360 for _, _, right in rows), (lang, rows)
        assert page.evaluate(NO_SIDEWAYS_SCROLL), lang
    page.select_option("#lang", "pt")
    head = {"x": 0, "y": 0, "width": 360, "height": 160}
    page.screenshot(path=str(artifacts / "head-360-pt.png"), clip=head)
