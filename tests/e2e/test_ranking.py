"""The ranking says what it ranks, in each of the five languages, at phone and desktop
sizes: who is listed (accounts, not guests), by what (XP from games against people),
since when (this week: Monday 00:00 UTC) and which games (one modality)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.helpers import register

I18N = Path(__file__).resolve().parents[2] / "frontend/src/i18n"
LOCALES = {"es": "es-ES", "en": "en-US", "pt": "pt-BR", "it": "it-IT", "pl": "pl-PL"}


@pytest.mark.parametrize("lang", sorted(LOCALES))
def test_ranking_says_what_it_ranks(new_context, artifacts, lang: str) -> None:
    words = json.loads((I18N / f"{lang}.json").read_text())
    for width, height in ((390, 844), (1366, 768)):
        page = new_context(width, height, locale=LOCALES[lang]).new_page()
        register(page, "rk")
        page.goto("/#/ranking")
        about = page.locator("#rk-about")
        about.wait_for()
        assert about.inner_text() == words["ranking.about"]
        page.locator(".ranking .panel table.rank, .ranking .panel .empty").wait_for()
        page.screenshot(path=str(artifacts / f"ranking-{lang}-{width}.png"), full_page=True)

        page.select_option("#rk-period", "week")
        before, after = words["ranking.sinceWeek"].split("{date}")
        page.wait_for_function(
            """([about, before, after]) => {
              const text = document.querySelector('#rk-about')?.textContent || '';
              return text.startsWith(about) && text.includes(before) && text.endsWith(after);
            }""",
            arg=[words["ranking.about"], before, after],
        )

        page.select_option("#rk-mod", "cerrado")
        only = words["ranking.modalityOnly"].split("{name}")[0]
        page.wait_for_function(
            "(only) => document.querySelector('#rk-about').textContent.includes(only)", arg=only
        )
        # The list itself (or its empty line) is in place before the page is measured.
        page.locator(".ranking .panel table.rank, .ranking .panel .empty").wait_for()
        page.screenshot(path=str(artifacts / f"ranking-{lang}-{width}-week.png"), full_page=True)
        # The words fit: nothing of the page is wider than the screen.
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
