"""A player who spent every coin is never at a dead end: the lobby says what to do (the
daily bonus, which brings the wallet up to the smallest stake, and a game without a bet
against bots, which starts at once), and "Crear partida" offers a table without stakes.
In the five languages, on a phone and a laptop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.helpers import register

I18N = Path(__file__).resolve().parents[2] / "frontend/src/i18n"
LOCALES = {"es": "es-ES", "en": "en-US", "pt": "pt-BR", "it": "it-IT", "pl": "pl-PL"}
# 45,000 + 5,000: every starting coin spent in the shop.
SPEND_ALL = """async () => {
  for (const sku of ['avatar_pirata', 'emote_risa']) {
    const r = await fetch('/api/shop/buy', { method: 'POST',
      headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ sku }) });
    if (!r.ok) throw new Error(await r.text());
  }
  return (await (await fetch('/api/wallet')).json()).coins;
}"""
COINS = "() => fetch('/api/wallet').then(r => r.json()).then(w => w.coins)"


def _broke(page) -> None:  # type: ignore[no-untyped-def]
    assert page.evaluate(SPEND_ALL) == 0
    page.goto("/#/")
    page.reload()
    page.wait_for_selector("#broke")


@pytest.mark.parametrize("lang", sorted(LOCALES))
def test_the_lobby_tells_a_broke_player_what_to_do(new_context, artifacts, lang: str) -> None:
    words = json.loads((I18N / f"{lang}.json").read_text())
    for width, height in ((390, 844), (1366, 768)):
        page = new_context(width, height, locale=LOCALES[lang]).new_page()
        register(page, "broke")
        _broke(page)
        card = page.locator("#broke")
        assert words["lobby.brokeTitle"] in card.inner_text()
        assert page.is_visible("#broke-bonus") and page.is_visible("#play-free")
        page.screenshot(path=str(artifacts / f"broke-{lang}-{width}.png"))
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        # The daily bonus brings the wallet up to the smallest stake; the notice goes.
        page.click("#broke-bonus")
        page.wait_for_selector("#broke", state="detached")
        assert page.evaluate(COINS) == 6_000


def test_a_broke_player_plays_bots_without_a_bet_and_can_create_such_a_table(
    new_context, artifacts
) -> None:
    page = new_context(390, 844).new_page()
    register(page, "sinmonedas")
    _broke(page)
    # Quick play at the smallest stake is refused, and the notice says what to do.
    page.click("#play-now")
    page.wait_for_selector(".toast.error")
    assert page.is_visible("#broke") and page.url.endswith("#/")
    page.click("#play-free")
    page.wait_for_url("**/#/table/*")
    page.wait_for_selector("#hand .card")  # the game against bots started at once
    page.screenshot(path=str(artifacts / "broke-playing-390.png"))
    assert page.evaluate(COINS) == 0

    other = new_context(1366, 768).new_page()
    register(other, "sinmonedas2")
    _broke(other)
    other.click("#create-table")
    other.wait_for_selector("#ct-free")
    assert other.is_checked("#ct-free") and other.is_disabled("#ct-bet")
    other.screenshot(path=str(artifacts / "broke-create-1366.png"))
    other.click("#ct-submit")
    other.wait_for_url("**/#/table/*")
    tid = other.url.rsplit("/", 1)[1]
    table = other.evaluate(f"() => fetch('/api/tables/{tid}').then(r => r.json())")
    assert table["bet"] == 0
    # Someone else with no coins sits at it: a game against a person, without a bet.
    third = new_context().new_page()
    register(third, "sinmonedas3")
    _broke(third)
    status = third.evaluate(
        f"() => fetch('/api/tables/{tid}/sit', {{method: 'POST', headers: "
        "{'Content-Type': 'application/json'}, body: '{}'}).then(r => r.status)"
    )
    assert status == 200
    other.wait_for_selector("#hand .card")  # the game between the two started
