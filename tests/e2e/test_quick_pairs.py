"""Quick play for 4 opens a special table: the lobby's quick card says it costs a
credit, and a player below the special tables' level who would have to open one is told
why in their language, not sent to a table."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.helpers import register

ES = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())


def test_quick_play_for_four_says_it_is_special_and_why_it_is_refused(gate_context) -> None:
    page = gate_context(1280, 860).new_page()
    register(page, "parejas")
    page.wait_for_selector("#quick-players")
    assert page.text_content("#quick-special") == ""
    page.select_option("#quick-players", "4")
    assert page.text_content("#quick-special") == ES["create.specialCost"]
    page.select_option("#quick-preset", "burraco")  # no other test waits there for 4
    page.click("#play-now")
    page.wait_for_selector(f".toast.error:has-text('{ES['err.level_too_low']}')")
    assert "#/table/" not in page.url
