"""The Tournaments tab at phone and desktop sizes: the list, a Sit & Go opened from the
form (the creator registered, the buy-in shown), its bracket once bots fill it and it
starts (the player's table opens by itself: "your next round starts"), and a Swiss's
standings. Screenshots are kept in the artifacts folder and looked at."""

from __future__ import annotations

import re

import pytest

from tests.e2e.helpers import register

SIZES = ((390, 844), (1366, 768))

CREATE_JS = """async (body) => {
  const r = await fetch('/api/tournaments', { method: 'POST',
    headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return [r.status, await r.json()];
}"""


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_tournaments_tab_bracket_and_standings(
    new_context, artifacts, width: int, height: int
) -> None:
    page = new_context(width, height, locale="es-ES").new_page()
    register(page, "tg")
    page.click('[data-nav="tournaments"]')
    page.locator(".tournaments .tabs").wait_for()
    page.locator(".tournaments .empty, .tournaments .tour-list").first.wait_for()
    assert page.locator('[data-nav="tournaments"]').inner_text() == "Torneos"
    page.screenshot(path=str(artifacts / f"tournaments-list-{width}.png"), full_page=True)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width

    # A Sit & Go of 4, knockout, free, bots allowed: made from the form.
    page.click(".tour-create summary")
    page.select_option("#tg-entrants", "4")
    page.click("#tg-create")
    page.wait_for_url(re.compile(r"#/tournaments/\d+$"))
    tid = page.url.rsplit("/", 1)[1]
    page.locator(".tour-head .tag").wait_for()
    assert page.locator(".tour-head").inner_text().startswith("Inscripción abierta")
    page.screenshot(path=str(artifacts / f"tournaments-sitgo-{width}.png"), full_page=True)

    # Leaving before the start (the place given up): then a knockout that bots fill at
    # once; the player's own table opens by itself ("your next round starts").
    page.click('[data-act="unregister"]')
    page.locator('[data-act="register"]').wait_for()
    status, made = page.evaluate(
        CREATE_JS, {"entrants": 4, "hands": 1, "allow_bots": True, "bot_fill_seconds": 5}
    )
    assert status == 200, made
    tid = str(made["id"])
    page.wait_for_url(re.compile(r"#/table/t" + tid + r"r1m\d$"), timeout=40_000)
    page.goto(f"/#/tournaments/{tid}")
    page.locator(".tour-bracket .tour-match").first.wait_for()
    assert page.locator(".tour-bracket .tour-match").count() == 2
    page.screenshot(path=str(artifacts / f"tournaments-bracket-{width}.png"), full_page=True)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width

    # A Swiss: its standings.
    status, made = page.evaluate(
        CREATE_JS,
        {
            "format": "swiss",
            "entrants": 4,
            "rounds": 2,
            "hands": 1,
            "allow_bots": True,
            "bot_fill_seconds": 5,
        },
    )
    assert status == 200, made
    page.wait_for_url(re.compile(r"#/table/t" + str(made["id"]) + r"r1m\d$"), timeout=40_000)
    page.goto(f"/#/tournaments/{made['id']}")
    page.locator(".tour-standings tbody tr").first.wait_for()
    assert page.locator(".tour-standings tbody tr").count() == 4
    page.screenshot(path=str(artifacts / f"tournaments-standings-{width}.png"), full_page=True)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
