"""The gift picker asks first and offers only what the server accepts: every shop item
with its picture and price, what cannot be given now with the reason and no button,
and a confirmation with the price before anything is spent (a double click on it is one
gift). In the five languages, on a phone and a laptop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.helpers import register

I18N = Path(__file__).resolve().parents[2] / "frontend/src/i18n"
LOCALES = {"es": "es-ES", "en": "en-US", "pt": "pt-BR", "it": "it-IT", "pl": "pl-PL"}
WALLET = "() => fetch('/api/wallet').then(r => r.json())"
LINES = """() => [...document.querySelectorAll('#gift-picker [data-gift-line]')].map(li => ({
  sku: li.dataset.giftLine,
  picture: !!li.querySelector('.item-icon img, .item-icon svg, .item-icon, .item-swatch'),
  price: li.querySelector('.price')?.textContent || '',
  button: !!li.querySelector('[data-gift]'),
  why: li.querySelector('[data-why]')?.dataset.why || null,
  whyText: li.querySelector('[data-why]')?.textContent || null,
}))"""


@pytest.mark.parametrize("lang", sorted(LOCALES))
def test_gift_picker_shows_prices_and_asks_first(new_context, artifacts, lang: str) -> None:
    words = json.loads((I18N / f"{lang}.json").read_text())
    bea = new_context(locale=LOCALES[lang]).new_page()
    bea_name = register(bea, "bea")
    bea_id = bea.evaluate("() => window.__buraco.app.me.id")
    for width, height in ((390, 844), (1366, 768)):
        ana = new_context(width, height, locale=LOCALES[lang]).new_page()
        register(ana, "ana")
        shop = ana.evaluate("() => fetch('/api/shop').then(r => r.json())")
        ana.goto(f"/#/profile/{bea_id}")
        ana.click("#profile-gift")
        ana.wait_for_selector("#gift-picker [data-gift-line]")
        lines = ana.evaluate(LINES)
        assert [line["sku"] for line in lines] == [i["sku"] for i in shop]
        for line, item in zip(lines, shop, strict=True):
            assert line["picture"] and line["price"].strip(), line
            # A new account has only its starting grant: packs (money) cannot be given.
            if item["kind"].endswith("_pack"):
                assert not line["button"] and line["why"] in ("not_giftable", "insufficient_funds")
                assert line["whyText"] == words[f"gift.why.{line['why']}"]
            elif item["price"] <= {"coins": 50_000, "credits": 5}[item["currency"]]:
                assert line["button"] and line["why"] is None, line
        ana.screenshot(path=str(artifacts / f"gift-picker-{lang}-{width}.png"))
        ana.locator("#gift-picker [data-gift-line]").last.scroll_into_view_if_needed()
        ana.screenshot(path=str(artifacts / f"gift-picker-{lang}-{width}-end.png"))
        ana.locator("#gift-picker [data-gift-line]").first.scroll_into_view_if_needed()

        before = ana.evaluate(WALLET)
        ana.click("#gift-picker [data-gift='felt_verde']")  # 10,000 coins
        question = ana.locator("#gift-question")
        question.wait_for()
        assert ana.evaluate(WALLET) == before  # asking spends nothing
        start = words["gift.confirmCoins"].split("{item}")[0]
        assert question.inner_text().startswith(start), question.inner_text()
        assert bea_name in question.inner_text()
        ana.screenshot(path=str(artifacts / f"gift-confirm-{lang}-{width}.png"))
        ana.click("#gift-no")  # back to the list, nothing spent
        ana.wait_for_selector("#gift-picker [data-gift='felt_verde']")
        ana.click("#gift-picker [data-gift='felt_verde']")
        ana.dblclick("#gift-yes")  # one gift however many clicks
        ana.wait_for_selector(f".toast.ok:has-text('{bea_name}')")
        ana.wait_for_timeout(300)
        after = ana.evaluate(WALLET)
        assert after["coins"] == before["coins"] - 10_000, (before, after)
        assert ana.evaluate("() => document.documentElement.scrollWidth") <= width
