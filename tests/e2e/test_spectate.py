"""Games in progress are listed in the lobby, each player's name whole on a phone;
anyone may open one and watch it as a spectator, seeing the table but no hand."""

from __future__ import annotations

import re

from tests.e2e.helpers import NO_SIDEWAYS_SCROLL, as_guest, register, short_hand_table

# The players' names of the first game in progress that are not each on one line,
# whole: each is a box of its own, drawn on one line (not "Bot" at a line's end and
# "Marta" at the next's) and not cut by an ellipsis. The row is found inside the one
# evaluation: a row handed in from a locator may be one the lobby has just repainted
# away (its live list), whose detached names have no boxes at all.
NAME_BROKEN = """() => {
  const row = document.querySelector('section[aria-labelledby=playing-title] .table-row');
  return [...row.querySelectorAll('.pname')]
    .filter((n) => n.getClientRects().length !== 1 || n.scrollWidth > n.clientWidth + 1)
    .map((n) => n.textContent);
}"""


def test_a_game_in_progress_can_be_watched_from_the_lobby(new_context, artifacts) -> None:
    player = new_context().new_page()
    as_guest(player)
    short_hand_table(player, players=4)
    player.click("#add-bots")
    player.wait_for_selector("#hand .card")
    table_url = player.url

    watcher = new_context(390, 844, is_mobile=True, has_touch=True).new_page()
    as_guest(watcher)
    watcher.wait_for_selector("#playing-title")
    # The player's stored name ("Invitado1234") as the page words it ("Invitado 1234").
    stored = player.evaluate("() => window.__buraco.app.me.nickname")
    shown = re.sub(r"^Invitado(\d+)$", r"Invitado \1", stored)
    assert shown != stored, stored
    seats = watcher.locator("section[aria-labelledby=playing-title] .seats").first.inner_text()
    names = [part.split(" (")[0] for part in seats.split(" · ")]  # a rating may follow
    assert shown in names and stored not in seats, seats
    assert len(names) == 4, seats
    # Four names take two lines at 390 px: the list breaks between names, never inside
    # one ("Bot" at a line's end and "Marta" at the next's), and none is cut.
    row = watcher.locator("section[aria-labelledby=playing-title] .table-row").first
    assert row.locator(".pname").count() == 4
    watcher.wait_for_function(
        "() => document.querySelectorAll("
        "'section[aria-labelledby=playing-title] .table-row:first-child .pname').length === 4"
    )
    assert watcher.evaluate(NAME_BROKEN) == []
    watcher.locator("section[aria-labelledby=playing-title]").scroll_into_view_if_needed()
    watcher.screenshot(path=str(artifacts / "lobby-playing-390.png"))
    link = watcher.locator("section[aria-labelledby=playing-title] a").first
    assert link.get_attribute("href") == "#" + table_url.split("#", 1)[1]
    link.click()
    watcher.wait_for_selector(".board.spectator")
    watcher.wait_for_selector("#stock")
    assert watcher.locator("#hand .card").count() == 0
    watcher.screenshot(path=str(artifacts / "table-spectator.png"))


def test_a_long_name_in_a_game_in_progress_fits_a_narrow_phone(new_context, artifacts) -> None:
    """A player's name of 20 letters, unbroken, in the lobby at 360 px (a game in
    progress, the players online): nothing in the page reaches past the screen (such a
    name once widened the lobby's column, the page grew to 401 px and the create dialog's
    button went out of reach), and the name's box stays inside its row."""
    player = new_context().new_page()
    name = register(player, "longnamexxxxx")
    assert len(name) == 20, name
    short_hand_table(player, players=4)
    player.click("#add-bots")
    player.wait_for_selector("#hand .card")

    watcher = new_context(360, 740, is_mobile=True, has_touch=True).new_page()
    as_guest(watcher)
    row = watcher.locator(f"section[aria-labelledby=playing-title] .table-row:has-text('{name}')")
    row.wait_for()
    assert watcher.evaluate(NO_SIDEWAYS_SCROLL)
    # The same name among the players online: cut in its box, whole in its title.
    online = watcher.locator(f"section.online a.who[title='{name}']")
    assert online.count() == 1
    assert online.evaluate("(a) => a.getBoundingClientRect().right <= 360.5")
    # The row is found inside the evaluation (as in NAME_BROKEN): a repainted-away row
    # has no boxes, and every name would be "inside" its empty one.
    inside = watcher.evaluate(
        """(name) => {
          const r = [...document.querySelectorAll(
            'section[aria-labelledby=playing-title] .table-row')]
            .find((e) => e.textContent.includes(name));
          const box = r.getBoundingClientRect();
          const names = [...r.querySelectorAll('.pname')];
          return box.width > 0 && names.length === 4 && names.every((n) => {
            const b = n.getBoundingClientRect();
            return b.width > 0 && b.left >= box.left - 0.5 && b.right <= box.right + 0.5; }); }""",
        name,
    )
    assert inside
    row.scroll_into_view_if_needed()
    watcher.screenshot(path=str(artifacts / "lobby-playing-long-name-360.png"))
    # The create dialog's button is in reach over that lobby.
    watcher.click("#create-table")
    watcher.click("#ct-submit", trial=True)
