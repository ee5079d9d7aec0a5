"""Games in progress are listed in the lobby; anyone may open one and watch it as a
spectator, seeing the table but no hand."""

from __future__ import annotations

import re

from tests.e2e.helpers import as_guest, short_hand_table


def test_a_game_in_progress_can_be_watched_from_the_lobby(new_context, artifacts) -> None:
    player = new_context().new_page()
    as_guest(player)
    short_hand_table(player)
    player.click("#add-bots")
    player.wait_for_selector("#hand .card")
    table_url = player.url

    watcher = new_context().new_page()
    as_guest(watcher)
    watcher.wait_for_selector("#playing-title")
    # The player's stored name ("Invitado1234") as the page words it ("Invitado 1234").
    stored = player.evaluate("() => window.__buraco.app.me.nickname")
    shown = re.sub(r"^Invitado(\d+)$", r"Invitado \1", stored)
    assert shown != stored, stored
    seats = watcher.locator("section[aria-labelledby=playing-title] .seats").first.inner_text()
    names = [part.split(" (")[0] for part in seats.split(" · ")]  # a rating may follow
    assert shown in names and stored not in seats, seats
    link = watcher.locator("section[aria-labelledby=playing-title] a").first
    assert link.get_attribute("href") == "#" + table_url.split("#", 1)[1]
    link.click()
    watcher.wait_for_selector(".board.spectator")
    watcher.wait_for_selector("#stock")
    assert watcher.locator("#hand .card").count() == 0
    watcher.screenshot(path=str(artifacts / "table-spectator.png"))
