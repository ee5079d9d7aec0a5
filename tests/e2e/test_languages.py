"""The language switch: every visible string of the lobby and the table changes.

Two checks on each screen: a pseudo-language shows every string that goes through the
dictionaries as ⟦key⟧, so any visible text left in plain letters was not translatable
(names, chat lines and other data are marked data-raw); then each real language is
chosen from the menu and no Spanish-only sentence may remain on screen.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.e2e.helpers import TEXT_CUT, as_guest, short_hand_table

I18N = Path(__file__).resolve().parents[2] / "frontend/src/i18n"
LANGS = ("es", "en", "pt", "it", "pl")
DICTS = {lang: json.loads((I18N / f"{lang}.json").read_text()) for lang in LANGS}

# Visible text (and accessible names) that did not go through the dictionaries.
UNTRANSLATED = r"""() => {
  const letters = /[A-Za-zÀ-ÿĀ-ž]/;
  const raw = [...document.querySelectorAll('[data-raw]')].map(e => e.textContent.trim())
    .filter(Boolean).sort((a, b) => b.length - a.length);
  const strip = v => {
    let s = v.replace(/⟦[^⟧]*⟧/g, '');
    for (const r of raw) s = s.split(r).join('');
    return s;
  };
  const visible = el => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  const skip = el => el.closest('[data-raw], [data-lang-names], script, style');
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    const text = walker.currentNode.textContent.trim();
    if (!el || !text || skip(el)) continue;
    if (el.tagName !== 'OPTION' && !visible(el)) continue;
    if (el.tagName === 'OPTION' && !visible(el.parentElement)) continue;
    if (letters.test(strip(text))) bad.push(text);
  }
  for (const el of document.querySelectorAll('[aria-label], [placeholder], [title]')) {
    if (skip(el) || !visible(el)) continue;
    for (const name of ['aria-label', 'placeholder', 'title']) {
      const v = el.getAttribute(name);
      if (v && letters.test(strip(v))) bad.push(`${name}=${v}`);
    }
  }
  return bad;
}"""

VISIBLE_TEXTS = """() => {
  const out = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    const t = walker.currentNode.textContent.trim();
    if (el && t && !el.closest('[data-raw]') && (el.offsetWidth || el.offsetHeight)) out.add(t);
  }
  return [...out];
}"""


def _spanish_only(lang: str) -> set[str]:
    """Spanish sentences (without placeholders) that the other language words differently
    (and never uses itself: Italian says "Mano" for a replay's hand, where Spanish says
    "Mano" for a tournament's deal too)."""
    es, other = DICTS["es"], DICTS[lang]
    theirs = set(other.values())
    return {
        v
        for k, v in es.items()
        if "{" not in v and other[k] != v and len(v) > 3 and v not in theirs
    }


def _check_screen(page, must_show: str) -> None:
    page.evaluate("() => window.__buraco.setLang('qps')")
    bad = page.evaluate(UNTRANSLATED)
    assert not bad, f"text not going through the dictionaries: {bad[:10]}"
    for lang in LANGS[1:] + ("es",):
        page.select_option("#lang", lang)
        page.wait_for_function(f"() => document.documentElement.lang.startsWith('{lang}')")
        texts = set(page.evaluate(VISIBLE_TEXTS))
        assert DICTS[lang][must_show] in texts, (lang, must_show)
        if lang != "es":
            left = texts & _spanish_only(lang)
            assert not left, f"{lang}: Spanish still visible: {sorted(left)[:10]}"


def test_language_switch_on_lobby_and_table(new_context, artifacts) -> None:
    page = new_context().new_page()
    as_guest(page)
    _check_screen(page, "lobby.quickTitle")

    short_hand_table(page)
    page.click("#add-bots")
    page.wait_for_selector("#hand .card")
    page.wait_for_function("() => !document.querySelector('#act-draw').disabled", timeout=20000)
    _check_screen(page, "table.draw")
    page.select_option("#lang", "pl")
    page.screenshot(path=str(artifacts / "table-desktop-pl.png"))
    assert re.search(r"Dobierz", page.text_content("#act-draw") or "")


def test_own_name_in_the_head_is_whole_in_every_language(new_context) -> None:
    """A laptop's head shows your name whole in every language: a guest's worded name is
    longest in Portuguese ("Convidado 1234"), which a 120 px box cut."""
    page = new_context(1366, 768).new_page()
    as_guest(page)
    for lang in LANGS:
        page.select_option("#lang", lang)
        page.wait_for_function(f"() => document.documentElement.lang.startsWith('{lang}')")
        shown = page.text_content(".me-name") or ""
        assert re.fullmatch(r"\S+ \d{4}", shown), (lang, shown)  # the worded guest name
        assert page.evaluate(TEXT_CUT, ".me-name") == [], lang
