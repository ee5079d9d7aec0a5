"""The screens of the friends flow at 360x740, 390x844 and 1366x768: the friends list with a friend
and a request, the challenge dialog, the lobby with the online list, a friend's profile and
the notifications. None scrolls sideways, and every button, input and select is inside the
viewport horizontally and at least 30 px tall (screenshots in tests/e2e/artifacts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.helpers import ask_friend, register

ES = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())

PROBLEMS = """() => {
  const vw = document.documentElement.clientWidth, out = [];
  if (document.documentElement.scrollWidth > vw + 1)
    out.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${vw}`);
  const scope = document.querySelector('.dialog') || document.querySelector('main')
    || document.body;
  for (const el of scope.querySelectorAll('button, input, select, a.btn')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
    if (el.closest('.nav')) continue;  // the phone nav scrolls sideways on purpose
    const name = el.id || el.textContent.trim().slice(0, 20) || el.tagName;
    if (r.left < -1 || r.right > vw + 1) out.push(`${name} outside: ${r.left}..${r.right}`);
    if (r.height < 30 && el.type !== 'checkbox') out.push(`${name} ${r.height} px tall`);
  }
  return out;
}"""


@pytest.mark.parametrize(("width", "height"), [(360, 740), (390, 844), (1366, 768)])
def test_friends_screens_fit(new_context, artifacts, width: int, height: int) -> None:
    ana, bea, cris = (new_context(width, height).new_page() for _ in range(3))
    ana_name, bea_name, cris_name = (
        register(ana, "ana"),
        register(bea, "bea"),
        register(cris, "cris"),
    )
    ask_friend(ana, bea_name, ES["friends.requestSent"])
    bea.goto("/#/friends")
    bea.click(f"[data-accept='{ana_name}']")
    # A request from Cris waits in Bea's list, next to her friend Ana.
    ask_friend(cris, bea_name, ES["friends.requestSent"])
    bea.goto("/#/")
    bea.goto("/#/friends")
    bea.wait_for_selector(f"[data-accept='{cris_name}']")
    bea.wait_for_selector(f"[data-challenge='{ana_name}']")
    shots = {}

    def check(name: str) -> None:
        assert bea.evaluate(PROBLEMS) == [], name
        bea.screenshot(path=str(artifacts / f"friends-{name}-{width}.png"))
        shots[name] = True

    check("list")
    # What is typed in the search box stays through a repaint (a change of language).
    bea.fill("#friend-q", "cri")
    bea.select_option("#lang", "en")
    bea.wait_for_function("() => document.documentElement.lang === 'en'")
    assert bea.input_value("#friend-q") == "cri"
    bea.select_option("#lang", "es")
    bea.wait_for_function("() => document.documentElement.lang === 'es'")
    assert bea.input_value("#friend-q") == "cri"
    bea.click(f"[data-challenge='{ana_name}']")
    bea.wait_for_selector("#ch-send")
    check("challenge")
    bea.keyboard.press("Escape")
    ana_id = ana.evaluate("() => fetch('/api/me').then(r => r.json()).then(m => m.id)")
    bea.goto("/#/")
    bea.wait_for_selector("#online-count")
    # Her friend comes first in the online list (other players of this run are online too).
    bea.wait_for_selector(f".players li[data-user='{ana_id}']")
    first = bea.locator(".players li").first
    assert first.get_attribute("data-user") == str(ana_id)
    assert "friend" in (first.get_attribute("class") or "")
    # The panel repaints as people come and go: its place read and shot in one go each,
    # not an element handle that a repaint can detach.
    box = bea.evaluate(
        "() => { const r = document.querySelector('.panel.online').getBoundingClientRect();"
        " return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; }"
    )
    bea.screenshot(path=str(artifacts / f"friends-online-{width}.png"), full_page=True, clip=box)
    check("lobby")
    bea.goto(f"/#/profile/{ana_id}")
    bea.wait_for_selector("#profile-gift")
    check("profile")
    bea.click("#profile-gift")
    bea.wait_for_selector(".dialog [data-gift]")
    check("gift")
    bea.keyboard.press("Escape")
    bea.goto("/#/notifications")
    bea.wait_for_selector("[data-kind]")
    # Ana's request was answered on the friends page: no Accept left on it; Cris's waits.
    requests = bea.locator("[data-kind='friend_request']")
    assert requests.count() == 2
    answers = [requests.nth(i).locator("button").count() for i in range(2)]
    assert sorted(answers) == [0, 2], answers
    check("notifications")
    assert len(shots) == 6
