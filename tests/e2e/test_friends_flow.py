"""Friends without a locked door, on a server with the production rule that special tables
(pairs, turbo, private) need level 2:

* a level-1 player is offered nothing in "Crear partida" that the server refuses, challenges
  a friend from the friends list ("Retar"), the friend accepts from the toast, and the two
  play the game to its end: the first turns through the table's buttons, the rest from
  each one's own session (tests/e2e/scripted.py) while both browsers show it; both see the
  result sheet, the pot is paid and both get the XP of a game against a person;
* three games against people (played quickly by two scripted WebSocket clients) take a
  player to level 2, and then "Crear partida" in the browser offers the private table, and
  creating it works.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from pathlib import Path
from typing import Any

from tests.e2e.helpers import CREATE_TABLE_JS, ask_friend, register, steady_turn
from tests.e2e.scripted import play_out
from tests.support import in_thread
from tests.tables.harness import Player, create_table, sit

ES = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())
SENT = ES["friends.requestSent"]
STAKE = 6000
WIN_XP, LOSS_XP = 50, 34  # docs/economy.md, at the minimum bet


ME = """async () => {
  const me = await (await fetch('/api/me')).json();
  const [w, p] = await Promise.all([fetch('/api/wallet').then(r => r.json()),
                                    fetch('/api/profiles/' + me.id).then(r => r.json())]);
  return { coins: w.coins, xp: p.xp, level: p.level, id: me.id };
}"""

# What the create dialog offers: every enabled control, and every disabled one with its note.
OFFERED = """() => ({
  private: !document.querySelector('#ct-private').disabled,
  turbo: !document.querySelector('#ct-turbo').disabled,
  players: [...document.querySelectorAll('#ct-players option')]
    .filter(o => !o.disabled).map(o => Number(o.value)),
  shut: [...document.querySelectorAll('#ct-players option')]
    .filter(o => o.disabled).map(o => o.textContent),
})"""


def _befriend(a, b, b_name: str, a_name: str) -> None:
    ask_friend(a, b_name, SENT)
    b.goto("/#/friends")
    b.click(f"[data-accept='{a_name}']")
    b.wait_for_selector(f"[data-challenge='{a_name}']")


def _create_dialog_offers(page) -> dict[str, Any]:
    page.goto("/#/")
    page.click("#create-table")
    # The special options stay disabled until the server said which are open.
    page.wait_for_function("() => document.querySelector('#ct-private-lock') !== null")
    page.wait_for_function(
        "() => document.querySelector('#ct-private-lock').textContent !== ''"
        " || !document.querySelector('#ct-private').disabled"
    )
    return page.evaluate(OFFERED)


def _me(page) -> dict[str, Any]:
    return dict(page.evaluate(ME))


def test_level_one_challenges_a_friend_and_they_play_to_the_end(gate_context, artifacts) -> None:
    # the motion off (prefers-reduced-motion): the challenge is tested, the hand quicker
    ana = gate_context(1366, 768, reduced_motion="reduce").new_page()
    bea = gate_context(390, 844, reduced_motion="reduce").new_page()
    ana_name, bea_name = register(ana, "ana"), register(bea, "bea")
    before = {"ana": _me(ana), "bea": _me(bea)}
    assert before["ana"]["level"] == 1

    # "Crear partida" offers a level-1 player nothing the server refuses.
    offered = _create_dialog_offers(ana)
    assert not offered["private"] and not offered["turbo"]
    assert 4 not in offered["players"] and any("nivel 2" in s for s in offered["shut"])
    base = {"name": "x", "preset": "cerrado", "players": 2}
    for extra in ({"private": True}, {"turbo": True}, {"players": 4}):
        status, code = ana.evaluate(CREATE_TABLE_JS, {**base, **extra})
        assert status == 403 and code == "level_too_low", (extra, status, code)
    ana.keyboard.press("Escape")

    # Friends, then "Retar" from the list: open to every level.
    _befriend(ana, bea, bea_name, ana_name)
    ana.goto("/#/")  # away and back: the list is read again
    ana.goto("/#/friends")
    ana.click(f"[data-challenge='{bea_name}']")
    ana.select_option("#ch-preset", "cerrado")  # one hand: the shortest game there is
    ana.click("#ch-send")
    ana.wait_for_function("() => location.hash.startsWith('#/table/')")
    tid = ana.evaluate("() => location.hash.split('/').pop()")
    bea.click(".toast .toast-accept")
    bea.wait_for_function(f"() => location.hash === '#/table/{tid}'")
    ana.wait_for_selector("#hand .card")
    bea.wait_for_selector("#hand .card")
    bea.screenshot(path=str(artifacts / "challenge-game-390.png"))

    # The first turn of each through the table's own buttons; the rest of the hand
    # scripted from each one's own session and legal moves (tests/e2e/scripted.py), shown
    # live in both browsers.
    can_draw = "() => !(document.querySelector('#act-draw')?.disabled ?? true)"
    for _ in range(2):
        mover = None
        for _wait in range(100):
            mover = next((p for p in (ana, bea) if p.evaluate(can_draw)), None)
            if mover is not None:
                break
            ana.wait_for_timeout(100)
        assert mover is not None, "nobody may draw"
        steady_turn(mover)
    started = time.monotonic()
    play_out([ana, bea], tid)
    played = time.monotonic() - started
    for page in (ana, bea):
        page.wait_for_selector("#score-sheet", timeout=20000)
    for page in (ana, bea):
        page.wait_for_selector("#result-title")
        page.wait_for_selector("#rematch-offer")
    # Each sheet says what the game settled for its player once it has: the stake won or
    # lost (it says "Calculando…" until then).
    shown = []
    for page in (ana, bea):
        page.wait_for_selector("#my-result[data-state='settled']", timeout=20000)
        shown.append(int(page.get_attribute("#my-coins", "data-delta") or "0"))
    assert sorted(shown) == [-STAKE, STAKE], shown
    bea.screenshot(path=str(artifacts / "challenge-result-390.png"))
    ana.screenshot(path=str(artifacts / "challenge-result-1366.png"))

    # Settled: the winner took the loser's stake, each got a game's XP against a person.
    deadline = time.monotonic() + 15
    while True:
        after = {"ana": _me(ana), "bea": _me(bea)}
        if all(after[n]["xp"] > before[n]["xp"] for n in after) or time.monotonic() > deadline:
            break
        ana.wait_for_timeout(200)
    gains = sorted(after[n]["coins"] - before[n]["coins"] for n in after)
    xps = sorted(after[n]["xp"] - before[n]["xp"] for n in after)
    assert gains == [-STAKE, STAKE], (before, after)
    assert xps == [LOSS_XP, WIN_XP], (before, after)
    assert played < 60, played


async def _three_games(base: str, names: tuple[str, str]) -> None:
    """Two registered players play three one-hand games against each other over real
    HTTP and WebSockets (scripted moves: melds when they can, else discards)."""
    host = await Player.registered(base, names[0])
    guest = await Player.registered(base, names[1])
    ws = base.replace("http", "ws", 1) + "/ws"
    rng = random.Random(16)
    try:
        for game in range(3):
            table = await create_table(
                host,
                name=f"Partida {game + 1}",
                players=2,
                preset="cerrado",
                target_score=0,
                rules={"hand_size": 20, "muertos": 0, "stock_end": 20},
            )
            await sit(guest, table["id"])
            for p in (host, guest):
                if not p.connected:
                    await p.connect(ws, origin=base)
                await p.watch(table["id"])
            errors = await asyncio.gather(
                host.play_until_over(table["id"], rng), guest.play_until_over(table["id"], rng)
            )
            assert errors == [[], []], errors
    finally:
        for p in (host, guest):
            await p.aclose()


def test_three_games_against_people_unlock_a_private_table(
    gate_context, level_gate_server, artifacts
) -> None:
    names = (f"tere_{secrets.token_hex(3)}", f"ursu_{secrets.token_hex(3)}")
    started = time.monotonic()
    in_thread(asyncio.run, _three_games(level_gate_server, names))
    played = time.monotonic() - started

    page = gate_context(390, 844).new_page()
    page.goto("/")
    page.click("#tab-login")
    page.fill("input[name=username]", names[0])
    page.fill("input[name=password]", "secret-pass-1")
    page.click("form button[type=submit]")
    page.wait_for_selector("#play-now")
    # The settlement of the last game may still be on its way.
    deadline = time.monotonic() + 15
    while (me := _me(page))["level"] < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert me["level"] == 2 and me["xp"] >= 100, (me, played)

    offered = _create_dialog_offers(page)
    assert offered["private"] and offered["turbo"] and 4 in offered["players"], offered
    assert page.text_content("#ct-private-lock") == ""
    page.check("#ct-private")
    page.fill("#ct-name", "Solo amigos")
    page.screenshot(path=str(artifacts / "create-unlocked-390.png"))
    page.click("#ct-submit")
    page.wait_for_selector("#wait-title")
    tid = page.evaluate("() => location.hash.split('/').pop()")
    meta = page.evaluate(f"() => fetch('/api/tables/{tid}').then(r => r.json())")
    assert meta["private"] is True, meta
