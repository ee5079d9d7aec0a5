"""Learning and words in the browser: the rules of each modality (from the lobby, the
create dialog and the table, in every language, with cards), the guided first hand
(offered once, hints from the legal-move feed, skippable), the page's language for the
browser's own bubbles, numbers through Intl on key screens, guest names per language,
the chat's unread badge and a profile's recent games."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.e2e.helpers import as_guest
from tests.e2e.scripted import play_out
from tests.e2e.test_languages import UNTRANSLATED

I18N = Path(__file__).resolve().parents[2] / "frontend/src/i18n"
LANGS = ("es", "en", "pt", "it", "pl")
DICTS = {lang: json.loads((I18N / f"{lang}.json").read_text()) for lang in LANGS}
HTML_LANG = {"es": "es", "en": "en", "pt": "pt-BR", "it": "it", "pl": "pl"}
SIX_THOUSAND = {"es": "6.000", "en": "6,000", "pt": "6.000", "it": "6.000", "pl": "6\u00a0000"}

# A number of 4 digits or more written without grouping, in visible text (a guest's
# number in their name is a name, not a quantity; a skill rating, marked data-rating, is
# written ungrouped through Intl as rating scales are everywhere: "1840").
BARE_NUMBERS = r"""() => {
  const guest = /(Invitado|Guest|Convidado|Ospite|Gość) \d+/g;
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    const text = walker.currentNode.textContent.replace(guest, '');
    if (!el || el.closest('script, style, time, [data-rating]')) continue;
    if (!(el.offsetWidth || el.offsetHeight)) continue;
    const m = text.match(/(^|[^\d.,\u00a0\u202f ])\d{4,}/);
    if (m) out.push(text.trim());
  }
  return out;
}"""

CREATE_FREE = """async (rules) => {
  const post = (url, body) => fetch(url, { method: 'POST',
    headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body || {}) })
    .then(r => r.json());
  const t = await post('/api/tables', { preset: 'cerrado', players: 2, bet: 0, rules });
  return t.id;
}"""


def _set_lang(page, lang: str) -> None:
    page.select_option("#lang", lang)
    page.wait_for_function(f"() => document.documentElement.lang === '{HTML_LANG[lang]}'")


def test_rules_screen_in_every_language_with_cards(new_context, artifacts) -> None:
    for width, height in ((390, 844), (1366, 768)):
        page = new_context(width=width, height=height).new_page()
        as_guest(page)
        page.click("#guide-no")  # the guided hand's offer, declined: it does not return
        assert page.locator("#guide-offer").count() == 0
        assert page.evaluate(BARE_NUMBERS) == []  # the lobby: balances, bets, filters
        page.click("#lobby-rules")
        page.wait_for_selector("#rules-page")
        assert page.locator("#rules-page .learn-cards .card").count() >= 20
        # Each modality's own facts come from its preset: Brasil's pile is taken at any
        # depth and it has no muerto; Cerrado's pile is closed.
        page.click(".learn-variants [data-preset='brasil']")
        page.wait_for_selector(".learn-body[data-preset='brasil']")
        pile = page.text_content("[data-rule='discard_pile'] dd")
        assert pile == DICTS["es"]["rule.discard_pile.any_depth"]
        assert page.locator("#learn-muerto").count() == 0
        page.click(".learn-variants [data-preset='cerrado']")
        page.wait_for_selector(".learn-body[data-preset='cerrado']")
        assert page.text_content("#learn-pile p") == DICTS["es"]["learn.pile.closed"]
        assert page.locator("#learn-muerto").count() == 1
        assert page.evaluate(BARE_NUMBERS) == []
        page.screenshot(path=str(artifacts / f"rules-{width}.png"), full_page=True)
        # Every string went through the dictionaries; every language has its own words
        # (and the page's lang, for the browser's own bubbles).
        page.evaluate("() => window.__buraco.setLang('qps')")
        assert page.evaluate(UNTRANSLATED) == []
        for lang in LANGS:
            _set_lang(page, lang)
            assert page.text_content("#rules-page h1") == DICTS[lang]["learn.title"]
            assert page.text_content("#learn-pile p") == DICTS[lang]["learn.pile.closed"]
            assert page.evaluate("() => window.__buraco.i18n.num(6000)") == SIX_THOUSAND[lang]
            if width == 390 and lang == "it":
                page.screenshot(path=str(artifacts / "rules-390-it.png"), full_page=True)
        # No sideways scrolling on a phone.
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width


def test_rules_from_the_create_dialog_and_the_table(new_context) -> None:
    page = new_context(width=390, height=844).new_page()
    as_guest(page)
    page.click("#create-table")
    page.select_option("#ct-preset", "burraco")
    page.click(".create-table #rules-help")
    page.wait_for_selector("#rules-dialog .learn-body[data-preset='burraco']")
    page.keyboard.press("Escape")
    page.wait_for_selector("#rules-dialog", state="detached")
    page.keyboard.press("Escape")
    table = page.evaluate(CREATE_FREE, {})
    page.goto(f"/#/table/{table}")
    page.click("#side-toggle")  # on a phone the side panel (moves, chat, rules) is shut
    page.click("#rules-help")
    page.wait_for_selector("#rules-dialog .learn-body[data-preset='cerrado']")
    assert page.locator("#rules-dialog .learn-cards .card").count() >= 20


def test_guided_hand_is_offered_once_hints_from_legal_moves_and_skippable(
    new_context, artifacts
) -> None:
    page = new_context(width=390, height=844).new_page()
    as_guest(page)
    page.wait_for_selector("#guide-offer")
    page.click("#guide-start")
    page.wait_for_url(re.compile(r".*#/table/.+"))
    card = page.locator("#guide-card")
    card.wait_for()
    es = DICTS["es"]
    # The player's first hint on their turn comes from the server's legal-move feed.
    draw_hints = (es["guide.draw"], es["guide.drawOrPile"].split("(")[0].strip())
    page.wait_for_function(
        "(hints) => { const p = document.querySelector('#guide-card p');"
        " return p && hints.some(h => p.textContent.includes(h)); }",
        arg=list(draw_hints),
        timeout=30000,
    )
    page.screenshot(path=str(artifacts / "guide-390.png"))
    # After drawing, the hint tells what to do with the hand (and always how to end).
    page.click("#act-draw")
    ending = es["guide.discard"].split("«")[0].strip()
    page.wait_for_function(
        "(t) => document.querySelector('#guide-card p')?.textContent.includes(t)", arg=ending
    )
    page.click("#guide-skip")
    assert card.count() == 0
    page.goto("/#/")
    page.wait_for_selector("#play-now")
    assert page.locator("#guide-offer").count() == 0  # offered once
    page.reload()
    page.wait_for_selector("#play-now")
    assert page.locator("#guide-offer").count() == 0


def test_validation_bubbles_and_guest_names_in_the_page_language(new_context) -> None:
    page = new_context(locale="pl-PL").new_page()
    page.goto("/")
    page.wait_for_selector("#play-guest")
    assert page.evaluate("() => document.documentElement.lang") == "pl"
    page.click("form button[type=submit]")  # empty: the browser refuses it, in Polish
    message = page.evaluate(
        "() => document.querySelector('input[name=username]').validationMessage"
    )
    assert message == DICTS["pl"]["form.required"]
    page.fill("input[name=username]", "ab")
    assert (
        page.evaluate("() => document.querySelector('input[name=username]').validationMessage")
        == ""
    )
    page.click("#play-guest")
    page.wait_for_selector("#play-now")
    me = page.evaluate("() => fetch('/api/me').then(r => r.json())")
    number = re.fullmatch(r"Invitado(\d+)", me["nickname"])
    assert number, me
    page.goto(f"/#/profile/{me['id']}")
    page.wait_for_selector(".profile-head h1")
    assert page.text_content(".profile-head h1") == f"Gość {number.group(1)}"
    _set_lang(page, "en")
    page.wait_for_function(
        "(name) => document.querySelector('.profile-head h1').textContent === name",
        arg=f"Guest {number.group(1)}",
    )


def test_chat_badge_and_profile_recent_games(new_context, artifacts) -> None:
    ana = new_context(width=390, height=844).new_page()
    bea = new_context().new_page()
    as_guest(ana)
    as_guest(bea)
    short = {"hand_size": 20, "muertos": 0, "stock_end": 20}
    table = ana.evaluate(CREATE_FREE, short)
    ana.goto(f"/#/table/{table}")
    ana.wait_for_selector("#side-toggle")
    bea.evaluate(
        f"() => fetch('/api/tables/{table}/sit', {{method: 'POST', headers: "
        "{'Content-Type': 'application/json'}, body: '{}'})"
    )
    # Lines from Bea while Ana's chat is closed (a phone: the side panel is shut).
    for text in ("hola", "¿jugamos?"):
        bea.evaluate(
            "([t, text]) => fetch(`/api/chat/tables/${t}`, {method: 'POST', headers: "
            "{'Content-Type': 'application/json'}, body: JSON.stringify({text})})",
            [table, text],
        )
    ana.wait_for_function("() => document.querySelector('#chat-unread')?.textContent === '2'")
    ana.click("#side-toggle")
    ana.wait_for_selector("#chat-unread", state="detached")
    # The game is played out; Ana's profile lists it: opponent, score, date, result.
    play_out([ana, bea], table)
    me = ana.evaluate("() => fetch('/api/me').then(r => r.json())")
    bea_me = bea.evaluate("() => fetch('/api/me').then(r => r.json())")
    ana.goto(f"/#/profile/{me['id']}")
    line = ana.locator("#recent-games .game-line").first
    line.wait_for()
    text = line.text_content()
    bea_no = re.fullmatch(r"Invitado(\d+)", bea_me["nickname"]).group(1)
    assert f"contra Invitado {bea_no}" in text, text
    assert line.locator("time").count() == 1
    assert ana.evaluate(BARE_NUMBERS) == []
    ana.screenshot(path=str(artifacts / "profile-390.png"), full_page=True)
    ana.set_viewport_size({"width": 1366, "height": 768})
    ana.screenshot(path=str(artifacts / "profile-1366.png"), full_page=True)


# What a pair, a single opponent and your own seat read like, in each language.
SIDE_WORDS = """() => {
  const t = window.__buraco.i18n.t;
  return [
    t('result.reason.closed', { side: 'Bot Luis & Bot Jorge', n: 2 }),
    t('result.reason.closed', { side: 'Bot Luis', n: 1 }),
    t('result.sideWins', { side: 'Bot Luis & Bot Jorge', n: 2 }),
    t('table.botTookYou', { who: '', why: t('takeover.abandonYou') }),
    t('invite.received', { name: 'Invitado1234' }),
  ];
}"""

EXPECTED_WORDS = {
    "es": [
        "Bot Luis & Bot Jorge cerraron la mano.",
        "Bot Luis cerró la mano.",
        "Ganan Bot Luis & Bot Jorge",
        "Un bot juega ahora por ti: abandonaste la partida.",
    ],
    "pt": [
        "Bot Luis & Bot Jorge bateram.",
        "Bot Luis bateu.",
        "Bot Luis & Bot Jorge venceram",
        "Um bot agora joga por você: você abandonou a partida.",
    ],
    "it": [
        "Bot Luis & Bot Jorge hanno chiuso.",
        "Bot Luis ha chiuso.",
        "Vincono Bot Luis & Bot Jorge",
        "Ora un bot gioca per te: hai lasciato la partita.",
    ],
    "pl": [
        "Rozdanie zamykają: Bot Luis & Bot Jorge.",
        "Rozdanie zamyka: Bot Luis.",
        "Wygrywają: Bot Luis & Bot Jorge",
        "Teraz za ciebie gra bot: opuściłeś grę.",
    ],
}
GUEST = {
    "es": "Invitado 1234",
    "en": "Guest 1234",
    "pt": "Convidado 1234",
    "it": "Ospite 1234",
    "pl": "Gość 1234",
}


def test_pairs_take_the_plural_and_your_seat_the_second_person(new_context) -> None:
    page = new_context().new_page()
    as_guest(page)
    for lang in LANGS:
        _set_lang(page, lang)
        words = page.evaluate(SIDE_WORDS)
        if lang in EXPECTED_WORDS:
            assert words[:4] == EXPECTED_WORDS[lang], (lang, words)
        assert GUEST[lang] in words[4] and "Invitado1234" not in words[4], (lang, words[4])


def test_quick_play_table_title_follows_the_language(new_context) -> None:
    host = new_context().new_page()
    as_guest(host)
    host.evaluate(
        "() => fetch('/api/quickplay', {method: 'POST', headers: {'Content-Type':"
        " 'application/json'}, body: JSON.stringify({preset: 'cerrado', players: 2,"
        " bots_after_seconds: null})})"
    )
    viewer = new_context(locale="en-GB").new_page()
    as_guest(viewer)
    for lang in ("en", "it", "pl", "es"):
        if lang != "en":
            _set_lang(viewer, lang)
        viewer.wait_for_function(
            "(title) => [...document.querySelectorAll('.tname strong')]"
            ".some(e => e.textContent === title)",
            arg=DICTS[lang]["lobby.quickTitle"],
        )
