"""Languages with the platform: the first language comes from the browser, plurals and
numbers follow the chosen language (Intl), the server is told the choice, and the
choice is remembered."""

from __future__ import annotations

from tests.e2e.helpers import as_guest

NBSP = "\u00a0"

# One and many (and Polish's few), 50000 as each language writes it, "tomorrow".
EXPECTED = {
    "es": (["Queda 1 segundo", "Quedan 3 segundos", "Quedan 5 segundos"], "50.000", "mañana"),
    "en": (["1 second left", "3 seconds left", "5 seconds left"], "50,000", "tomorrow"),
    "pt": (["Falta 1 segundo", "Faltam 3 segundos", "Faltam 5 segundos"], "50.000", "amanhã"),
    "it": (["Manca 1 secondo", "Mancano 3 secondi", "Mancano 5 secondi"], "50.000", "domani"),
    "pl": (["Została 1 sekunda", "Zostały 3 sekundy", "Zostało 5 sekund"], f"50{NBSP}000", "jutro"),
}

FORMATS = """() => {
  const i = window.__buraco.i18n;
  const tomorrow = new Date(); tomorrow.setDate(tomorrow.getDate() + 1); tomorrow.setHours(8, 57);
  return {
    seconds: [1, 3, 5].map(n => i.t('table.secondsLeft', { n })),
    number: i.num(50000),
    day: i.dayWord(tomorrow),
    time: i.clockTime(tomorrow),
  };
}"""


def _lang(page) -> str:
    return page.evaluate("() => document.documentElement.lang")


def test_pt_br_browser_opens_in_portuguese_and_tells_the_server(new_context) -> None:
    page = new_context(locale="pt-BR").new_page()
    page.goto("/")
    page.wait_for_selector("#play-guest")
    assert _lang(page) == "pt-BR"
    assert page.text_content("#play-guest").strip() == "Jogar agora como convidado"
    page.click("#play-guest")
    page.wait_for_selector("#play-now")
    assert page.text_content("#play-now").strip() == "Jogue já!"
    page.wait_for_function(
        "() => fetch('/api/me/language').then(r => r.json()).then(j => window.__l = j.language)"
    )
    assert page.evaluate("() => window.__l") == "pt-BR"
    # Chosen from the menu: remembered across a reload, and the server follows.
    page.select_option("#lang", "pl")
    page.wait_for_function("() => document.documentElement.lang === 'pl'")
    page.reload()
    page.wait_for_selector("#play-now")
    assert _lang(page) == "pl"
    assert page.text_content("#play-now").strip() == "Zagraj teraz!"
    language = page.evaluate("() => fetch('/api/me/language').then(r => r.json())")
    assert language["language"] == "pl"


def test_french_browser_opens_in_spanish(new_context) -> None:
    page = new_context(locale="fr-FR").new_page()
    page.goto("/")
    page.wait_for_selector("#play-guest")
    assert _lang(page) == "es"


def test_plurals_numbers_and_dates_in_each_language(new_context) -> None:
    page = new_context(locale="es-ES").new_page()
    as_guest(page)
    for lang, (seconds, number, tomorrow) in EXPECTED.items():
        page.select_option("#lang", lang)
        page.wait_for_function(f"() => document.documentElement.lang.startsWith('{lang}')")
        got = page.evaluate(FORMATS)
        assert got["seconds"] == seconds, lang
        assert got["number"] == number, lang
        assert got["day"] == tomorrow, lang
        # 24-hour clock except in English.
        assert got["time"] == ("08:57 AM" if lang == "en" else "08:57"), (lang, got["time"])
