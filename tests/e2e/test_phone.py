"""The lobby and the table on a 390x844 phone: nothing overflows sideways, the whole
hand and the actions are reachable; screenshots are kept in tests/e2e/artifacts/."""

from __future__ import annotations

import asyncio

import asyncpg

from tests.e2e.conftest import _e2e_urls
from tests.e2e.helpers import NO_SIDEWAYS_SCROLL, as_guest, draw_and_discard, short_hand_table
from tests.support import asyncpg_dsn, in_thread


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


# The site navigation's entries: how many rows they take, and the notifications entry's
# bell and word (its word's box is 1 px wide when only screen readers read it).
NAV = """() => {
  const links = [...document.querySelectorAll('.nav a')];
  const width = (sel) => document.querySelector(sel)?.getBoundingClientRect().width ?? 0;
  return {rows: new Set(links.map((a) => Math.round(a.getBoundingClientRect().top))).size,
    right: Math.max(...links.map((a) => a.getBoundingClientRect().right)),
    bell: width('[data-nav=notifications] .nav-bell'),
    word: width('[data-nav=notifications] .nav-word')};
}"""


def test_the_head_is_one_row_on_a_narrow_phone_in_every_language(new_context, artifacts) -> None:
    """At 360 px the brand, the wallet, the language and the account share the head's
    first row in every language (a long language name, "Português", once pushed them
    to a second row under the brand), with none past the screen's edge. The seven
    sections below keep to two rows with the notifications badge on (Polish's
    "Powiadomienia" once took a third): the notifications entry is a bell there, its
    word kept for screen readers and in its title."""
    page = new_context(360, 740, is_mobile=True, has_touch=True).new_page()
    as_guest(page)
    page.wait_for_selector(".wallet-card")
    me = page.evaluate("() => fetch('/api/me').then((r) => r.json())")
    other = new_context().new_page()
    as_guest(other)
    status = other.evaluate(
        "async (id) => (await fetch('/api/friends/requests', {method: 'POST',"
        " headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({user_id: id})})).status",
        me["id"],
    )
    assert status == 201
    page.wait_for_selector("[data-nav=notifications] .badge", timeout=20000)
    for lang in ("es", "en", "pt", "it", "pl"):
        page.select_option("#lang", lang)
        page.wait_for_function(f"() => document.documentElement.lang.startsWith('{lang}')")
        rows = page.evaluate(HEAD_ROWS)
        middles = [middle for _, middle, _ in rows]
        assert max(middles) - min(middles) <= 4, (lang, rows)
        assert all(right <= 360 for _, _, right in rows), (lang, rows)
        assert page.evaluate(NO_SIDEWAYS_SCROLL), lang
        nav = page.evaluate(NAV)
        assert nav["rows"] == 2 and nav["right"] <= 360, (lang, nav)
        assert nav["bell"] >= 16 and nav["word"] <= 1, (lang, nav)
        entry = page.locator("[data-nav=notifications]")
        word = page.evaluate(
            "() => document.querySelector('[data-nav=notifications] .nav-word').textContent"
        )
        assert word and entry.get_attribute("title") == word, lang
    # A laptop reads the word, without the bell.
    page.set_viewport_size({"width": 1366, "height": 768})
    nav = page.evaluate(NAV)
    assert nav["rows"] == 1 and nav["bell"] == 0 and nav["word"] > 40, nav
    page.set_viewport_size({"width": 360, "height": 740})
    page.select_option("#lang", "pt")
    head = {"x": 0, "y": 0, "width": 360, "height": 160}
    page.screenshot(path=str(artifacts / "head-360-pt.png"), clip=head)


async def _set_balances(db_url: str, user_id: int, coins: int, credits: int) -> None:
    conn = await asyncpg.connect(asyncpg_dsn(db_url))
    try:
        for currency, amount in (("coins", coins), ("credits", credits)):
            await conn.execute(
                "UPDATE accounts SET balance = $1 WHERE user_id = $2 AND currency = $3",
                amount,
                user_id,
                currency,
            )
    finally:
        await conn.close()


# What the head shows of each balance, the whole amount it keeps, and its title.
BALANCES = """() => ['coins', 'credits'].map((kind) => {
  const el = document.querySelector(`.wallet .${kind}`);
  const shown = el.querySelector('[data-raw]');
  return [shown.textContent, shown.dataset.n, el.title, el.querySelector('.sr-only').textContent];
})"""


def test_a_rich_wallet_keeps_the_head_on_one_row(new_context, artifacts, pg_url, redis_url) -> None:
    """A seven-digit wallet (and six digits of credits) once pushed the brand onto a row
    of its own at 360 and 390 px: the balances stand one above the other on a phone, a
    million or more is shortened as the language shortens it, and the whole amount is in
    the title and read to screen readers."""
    db_url, _ = _e2e_urls(pg_url, redis_url)
    # Each language's own short form (CLDR's, with its no-break space).
    shortened = {
        "es": "1,2\u00a0M",
        "en": "1.2M",
        "pt": "1,2\u00a0mi",
        "it": "1,2\u00a0Mln",
        "pl": "1,2\u00a0mln",
    }
    for width in (360, 390):
        page = new_context(width, 740, is_mobile=True, has_touch=True).new_page()
        as_guest(page)
        me = page.evaluate("() => fetch('/api/me').then((r) => r.json())")
        in_thread(asyncio.run, _set_balances(db_url, int(me["id"]), 1_299_999, 123_456))
        for lang in ("es", "en", "pt", "it", "pl"):
            page.select_option("#lang", lang)
            page.wait_for_function(f"() => document.documentElement.lang.startsWith('{lang}')")
            page.reload()
            page.wait_for_selector(".wallet-card")
            coins, credits = page.evaluate(BALANCES)
            # Rounded down: 1,299,999 is not yet 1.3 million.
            assert coins[0] == shortened[lang], (lang, coins)
            assert coins[1] == "1299999" and coins[2] == coins[3], (lang, coins)
            assert "".join(filter(str.isdigit, coins[2])) == "1299999", (lang, coins)
            assert "".join(filter(str.isdigit, credits[0])) == "123456", (lang, credits)
            rows = page.evaluate(HEAD_ROWS)
            middles = [middle for _, middle, _ in rows]
            assert max(middles) - min(middles) <= 4, (width, lang, rows)
            assert all(right <= width for _, _, right in rows), (width, lang, rows)
            assert page.evaluate(NO_SIDEWAYS_SCROLL), (width, lang)
        head = {"x": 0, "y": 0, "width": width, "height": 160}
        page.screenshot(path=str(artifacts / f"head-rich-{width}-pl.png"), clip=head)
