"""Issue 32's clock, quick-play match and end sheet in the browser: '¡Juega ya!' offers one
hand or a match to the variant's target and says what is at stake before sitting; on a
server with a short clock the player's own turn shows its time bank, warns at 10 s
(pulse, sound, vibration) and drains the bank before the server moves; a finished game's
sheet shows the player's own coins, XP and progress to the next level."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import _contexts, _second_env, _serve
from tests.e2e.helpers import register
from tests.e2e.scripted import play_out
from tests.e2e.test_rematch import _finished_game

TURN, BANK = 4, 9


def digits(text: str) -> str:
    return re.sub(r"\D", "", text)


@pytest.fixture(scope="module")
def short_clock_server(
    server: str,
    pg_url: str,
    redis_url: str,
    frontend_dist: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """A process on the e2e database (its own Redis) whose turns last 4 s, with a 9-s
    time bank per hand and no first-turn bonus."""
    env, port, var = _second_env(pg_url, redis_url, frontend_dist, tmp_path_factory, 9, "clock")
    env["BURACO_TURN_SECONDS"] = str(TURN)
    env["BURACO_FIRST_TURN_BONUS_SECONDS"] = "0"
    env["BURACO_TIME_BANK_SECONDS"] = str(BANK)
    yield from _serve(env, port, var)


@pytest.fixture
def clock_context(browser: object, short_clock_server: str) -> Iterator[object]:
    yield from _contexts(browser, short_clock_server)


MY_CLOCK = """() => {
  const el = [...document.querySelectorAll('[data-clock]')].find(e => !e.hidden);
  const draw = document.querySelector('#act-draw');
  return el && draw && !draw.disabled ? {
    text: el.textContent, bank: el.dataset.bank || '', warn: el.classList.contains('warn'),
    banking: el.classList.contains('banking') } : null;
}"""


def test_quick_match_choice_and_the_10_second_warning(clock_context, artifacts) -> None:
    page = clock_context(390, 844).new_page()
    register(page, "reloj")
    # "Crear partida" offers the table's time bank, the server's own by default.
    page.click("#create-table")
    page.wait_for_selector("#ct-submit")  # the dialog loads on first use
    page.wait_for_function(
        f"() => document.querySelector('#ct-time-bank option').textContent.includes('{BANK} s')"
    )
    page.select_option("#ct-time-bank", "90")
    page.locator("#ct-time-bank").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "create-time-bank-390.png"))
    page.keyboard.press("Escape")
    page.wait_for_selector("#ct-time-bank", state="detached")
    # The choice and the stakes, before sitting.
    page.wait_for_selector("#quick-mode")
    assert page.text_content("label[for=quick-hand]").strip() == "Una mano"
    # (numbers as the language writes them: "2000" or "2.000" in Spanish)
    page.select_option("#quick-preset", "brasil")
    page.wait_for_function(
        "() => /^Partida a 3\\D?000$/"
        ".test(document.querySelector('#quick-match-label').textContent)"
    )
    page.select_option("#quick-preset", "cerrado")
    assert digits(page.text_content("#quick-match-label")) == "2000"
    stake = page.text_content("#quick-stake")
    assert "Apuesta" in stake and digits(stake) == "6000"
    assert "Contra bots no ganas ni pierdes monedas" in page.text_content("#quick-bots-stake")
    page.check("#quick-match")
    page.evaluate("() => document.querySelector('#quick-title').scrollIntoView()")
    page.screenshot(path=str(artifacts / "quick-choice-390.png"))
    page.set_viewport_size({"width": 1366, "height": 768})
    page.evaluate("() => document.querySelector('#quick-title').scrollIntoView()")
    page.screenshot(path=str(artifacts / "quick-choice-1366.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.click("#play-now")
    page.wait_for_function("() => location.hash.startsWith('#/table/')")
    tid = page.evaluate("() => location.hash.split('/').pop()")
    meta = page.evaluate(f"() => fetch('/api/tables/{tid}').then(r => r.json())")
    assert meta["kind"] == "quick" and meta["target_score"] == 2000

    # My turn: the turn's seconds with the bank beside them.
    page.wait_for_function(f"() => ({MY_CLOCK})() !== null", timeout=20000)
    first = page.evaluate(MY_CLOCK)
    # A tap at the table (choosing a card): the table's sounds may play from now on.
    page.locator("#hand .card").first.click()
    assert first["bank"] == f"+{BANK}" and int(first["text"]) <= TURN and not first["banking"]
    # 10 s before the turn's last second (its own and its bank's): the pulse, the sound
    # and the vibration, on the player's own turn.
    page.wait_for_selector("[data-clock].warn", timeout=8000)
    assert page.evaluate("() => window.__vibrateLog.length") >= 1
    assert "warn" in page.evaluate("() => window.__soundLog")
    # The page's estimate of the server's time lags it (as a slow answer to a ping leaves
    # it): the bank that begins to drain still reads its own length, never one more (a CI
    # run read "10" of a 9 s bank).
    page.evaluate("() => { window.__buraco.socket.clockOffset -= 0.6; }")
    page.wait_for_selector("[data-clock].banking", timeout=8000)
    banked = page.evaluate(MY_CLOCK)
    assert banked is not None and banked["bank"] == "" and int(banked["text"]) <= BANK
    page.screenshot(path=str(artifacts / "clock-warn-390.png"))
    page.set_viewport_size({"width": 1366, "height": 768})
    page.wait_for_timeout(300)
    page.screenshot(path=str(artifacts / "clock-warn-1366.png"))
    # The bank runs dry: the server plays the turn and says so.
    page.wait_for_selector(".toast:has-text('Se te acabó el tiempo')", timeout=15000)


def test_the_end_sheet_shows_my_coins_xp_and_level(new_context, artifacts) -> None:
    a, b, _ = _finished_game(new_context, scripted=True)
    for page in (a, b):
        page.wait_for_selector("#my-result[data-state=settled]", timeout=20000)
    deltas = sorted(int(p.get_attribute("#my-coins", "data-delta") or 0) for p in (a, b))
    assert deltas == [-6000, 6000], "the bet changes hands: won by one, lost by the other"
    for page in (a, b):
        gained = int(page.get_attribute("#my-xp", "data-xp") or 0)
        assert gained in (34, 50)
        assert page.text_content("#my-xp") == f"+{gained} XP"
        assert page.get_attribute("#level-bar", "aria-valuenow") is not None
        assert "XP para el nivel 2" in page.text_content("#my-next")
        mine = int(page.get_attribute("#my-coins", "data-delta") or 0)
        coins = page.text_content("#my-coins")
        assert digits(coins) == "6000" and coins.startswith("+" if mine > 0 else "−")
        assert coins.endswith(" monedas")
    b.evaluate("() => document.querySelector('#my-result').scrollIntoView()")
    b.screenshot(path=str(artifacts / "end-sheet-390.png"))
    a.evaluate("() => document.querySelector('#my-result').scrollIntoView()")
    a.screenshot(path=str(artifacts / "end-sheet-1366.png"))


# A short match: hands of 20 cards each, no muertos, ending with 20 cards in the stock,
# played to 1,500 points (a few hands).
OPEN_MATCH = """async () => {
  const r = await fetch('/api/tables', { method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Partida e2e', players: 2, preset: 'cerrado', target_score: 1500,
      bet: 0, rules: { hand_size: 20, muertos: 0, stock_end: 20 } }) });
  return (await r.json()).id;
}"""

# Every sheet shown between hands, as the player saw it (the next one replaces it).
WATCH_SHEETS = """() => {
  window.__sheets = [];
  new MutationObserver(() => {
    const hint = document.querySelector('#next-hand-hint');
    const cap = document.querySelector('#score-sheet caption');
    const grand = document.querySelector('#score-sheet tr.grand');
    const key = cap && cap.textContent;
    if (hint && key && !window.__sheets.some(s => s.caption === key)) {
      window.__sheets.push({ caption: key, hint: hint.textContent,
        totals: grand ? [...grand.querySelectorAll('td')].map(td => td.textContent) : [] });
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""


def test_a_match_shows_the_running_sheet_between_hands(new_context, artifacts) -> None:
    # the motion off (prefers-reduced-motion): the sheets are tested, the hands quicker
    a = new_context(1366, 768, reduced_motion="reduce").new_page()
    b = new_context(390, 844, reduced_motion="reduce").new_page()
    register(a, "marta")
    register(b, "nora")
    tid = a.evaluate(OPEN_MATCH)
    sit = (
        f"() => fetch('/api/tables/{tid}/sit', {{method: 'POST', headers: "
        "{'Content-Type': 'application/json'}, body: '{}'}).then(r => r.status)"
    )
    assert b.evaluate(sit) == 200
    for page in (a, b):
        page.goto(f"/#/table/{tid}")
        page.wait_for_selector("#hand .card")
        page.evaluate(WATCH_SHEETS)
    play_out([a, b], tid)
    for page in (a, b):
        page.wait_for_selector("#play-again", timeout=20000)  # the match is over
    sheets = b.evaluate("() => window.__sheets")
    game = a.evaluate(f"() => fetch('/api/tables/{tid}').then(r => r.json())")
    assert len(sheets) >= 1, ("at least one hand ended before the match did", game["hands"])
    for sheet in sheets:
        target, _, rest = sheet["hint"].partition("·")
        assert target.startswith("Partida a ") and digits(target) == "1500", sheet
        assert "siguiente mano ya está repartida" in rest, sheet
        assert len(sheet["totals"]) == 2, "the running totals of both sides"
    assert game["status"] == "finished" and len(game["hands"]) == len(sheets) + 1
    # A game without stakes: the end sheet says so.
    b.wait_for_selector("#my-result[data-state=settled]", timeout=20000)
    assert b.text_content("#my-coins").startswith("Sin apuesta")
    assert b.locator("#my-xp").count() == 0
    assert b.text_content("#my-no-xp") == "Las partidas sin apuesta no dan XP."
    b.evaluate("() => document.querySelector('#my-result').scrollIntoView()")
    b.screenshot(path=str(artifacts / "match-end-390.png"))
