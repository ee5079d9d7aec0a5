"""Bot strength: chosen when filling a table with bots (and shown at each bot's seat),
and sent with quick play; the choice is remembered."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.helpers import as_guest, open_table

ES = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())


def test_fill_with_easy_bots_and_quick_play_with_strong_ones(new_context) -> None:
    page = new_context(390, 844).new_page()
    as_guest(page)
    open_table(page, 4, "burraco", {"hand_size": 11, "muertos": 0}, name="Niveles")
    page.select_option("#bot-strength", "easy")
    page.click("#add-bots")
    page.wait_for_selector("#hand .card")
    tags = page.eval_on_selector_all(
        ".opponents .seat .tag.bot", "els => els.map(e => e.textContent)"
    )
    assert len(tags) == 3 and all(ES["strength.easy"] in t for t in tags), tags

    page.goto("/#/")
    page.wait_for_selector("#quick-strength")
    assert page.input_value("#quick-strength") == "easy"  # remembered
    page.select_option("#quick-strength", "strong")
    page.check("#quick-bots")
    with page.expect_request("**/api/quickplay") as req:
        page.click("#play-now")
    assert req.value.post_data_json["bot_strength"] == "strong"
    page.wait_for_selector("#wait-title, #hand .card")
