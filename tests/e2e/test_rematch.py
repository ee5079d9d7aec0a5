"""Rematch in two browsers: a one-hand game between two people ends, one offers
"Revancha", the other sees who accepted and the seconds left, accepts, and both land at
the new table; or declines, and the offer closes for both; or does nothing, and on a
server whose offers last 6 s both see it expire, the server refuses a late yes, and each
goes back to the lobby from the result sheet."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import _contexts, _second_env, _serve
from tests.e2e.helpers import register, steady_turn
from tests.e2e.scripted import play_out

REMATCH_SECONDS = 6

# One short hand: 20 cards each, no muertos, ends when 20 cards are left in the stock.
OPEN = """async () => {
  const r = await fetch('/api/tables', { method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Revancha e2e', players: 2, preset: 'cerrado', target_score: 0,
      rules: { hand_size: 20, muertos: 0, stock_end: 20 } }) });
  return (await r.json()).id;
}"""


@pytest.fixture(scope="module")
def short_rematch_server(
    server: str,
    pg_url: str,
    redis_url: str,
    frontend_dist: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """A process on the e2e database (its own Redis) whose rematch offers last 6 s."""
    env, port, var = _second_env(pg_url, redis_url, frontend_dist, tmp_path_factory, 7, "rematch")
    env["BURACO_REMATCH_SECONDS"] = str(REMATCH_SECONDS)
    yield from _serve(env, port, var)


@pytest.fixture
def short_rematch_context(browser: object, short_rematch_server: str) -> Iterator[object]:
    yield from _contexts(browser, short_rematch_server)


def _finished_game(new_context, scripted: bool = False):
    """Two people at a one-hand table, played to its end by clicks (or, ``scripted``,
    from their own sessions while the browsers show it: tests/e2e/scripted.py). The
    table's motion is off (prefers-reduced-motion): the rematch is what is tested."""
    a = new_context(1366, 768, reduced_motion="reduce").new_page()
    b = new_context(390, 844, reduced_motion="reduce").new_page()
    register(a, "rosa")
    register(b, "sara")
    tid = a.evaluate(OPEN)
    sit = (
        f"() => fetch('/api/tables/{tid}/sit', {{method: 'POST', headers: "
        "{'Content-Type': 'application/json'}, body: '{}'}).then(r => r.status)"
    )
    assert b.evaluate(sit) == 200
    for page in (a, b):
        page.goto(f"/#/table/{tid}")
    a.wait_for_selector("#hand .card")
    b.wait_for_selector("#hand .card")
    can_draw = "() => !document.querySelector('#act-draw').disabled"
    if scripted:
        play_out([a, b], tid)
    for _ in range(120):
        if a.query_selector("#score-sheet") or b.query_selector("#score-sheet"):
            break
        mover = next((p for p in (a, b) if p.evaluate(can_draw)), None)
        if mover is None:
            a.wait_for_timeout(100)
            continue
        steady_turn(mover)
    for page in (a, b):
        page.wait_for_selector("#rematch-offer", timeout=20000)
    return a, b, tid


def test_rematch_accepted_by_both(new_context, artifacts) -> None:
    a, b, tid = _finished_game(new_context)
    a.click("#rematch-offer")
    # Sara sees that Rosa said yes, the seconds left, and the buttons to answer.
    b.wait_for_selector("#rematch-accept")
    assert "rosa_" in b.text_content("#rematch-status")
    left = int(b.get_attribute("#rematch-left", "data-left") or 0)
    assert 0 < left <= 30
    b.screenshot(path=str(artifacts / "rematch-open-390.png"))
    assert a.locator("#rematch-accept").count() == 0  # Rosa already said yes
    b.click("#rematch-accept")
    for page in (a, b):
        page.wait_for_function(
            f"() => location.hash.startsWith('#/table/') && location.hash !== '#/table/{tid}'"
        )
        page.wait_for_selector("#hand .card")
    new = a.evaluate("() => location.hash")
    assert b.evaluate("() => location.hash") == new
    # The finished table opened again says the rematch is on, and stays where it is.
    a.goto(f"/#/table/{tid}")
    a.wait_for_selector("#rematch-status[data-state='started']")
    assert a.get_attribute("#rematch-go", "href") == new
    a.screenshot(path=str(artifacts / "rematch-started-1366.png"))
    a.wait_for_timeout(300)
    assert a.evaluate("() => location.hash") == f"#/table/{tid}"
    a.click("#rematch-go")
    a.wait_for_function(f"() => location.hash === '{new}'")


def test_rematch_declined(new_context, artifacts) -> None:
    # The hand is played from the players' sessions while the browsers show it: clicking
    # a whole hand through is the accepted case's (and test_play_hand.py's) business.
    a, b, tid = _finished_game(new_context, scripted=True)
    # Sara's own answer to her offer is held back until the end: it must not undo
    # what the pushes said meanwhile.
    held: list[tuple[object, object]] = []

    def hold(route) -> None:
        held.append((route, route.fetch()))

    b.route(f"**/api/tables/{tid}/rematch", hold)
    b.click("#rematch-offer")
    b.wait_for_selector("#rematch-status[data-state='open']")  # from her socket
    # Rosa reloads the result sheet: the open offer is shown as it stands.
    a.reload()
    a.wait_for_selector("#rematch-decline")
    assert "sara_" in a.text_content("#rematch-status")
    a.screenshot(path=str(artifacts / "rematch-reloaded-1366.png"))
    a.click("#rematch-decline")
    for page in (a, b):
        page.wait_for_selector("#rematch-status[data-state='declined']")
    assert "rosa_" in b.text_content("#rematch-status")
    assert b.locator("#rematch-accept, #rematch-offer").count() == 0
    # The offer's answer ("open") arrives last, and changes nothing.
    assert len(held) == 1
    route, response = held[0]
    with b.expect_event("requestfinished", lambda r: r.url.endswith(f"/{tid}/rematch")):
        route.fulfill(response=response)
    b.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert b.get_attribute("#rematch-status", "data-state") == "declined"
    assert b.locator("#rematch-accept, #rematch-offer").count() == 0
    b.screenshot(path=str(artifacts / "rematch-declined-390.png"))


def test_rematch_times_out(short_rematch_context, artifacts) -> None:
    a, b, tid = _finished_game(short_rematch_context, scripted=True)
    a.click("#rematch-offer")
    offered = time.monotonic()
    # Sara sees the offer counting down from at most the server's 6 s, and does nothing.
    b.wait_for_selector("#rematch-accept")
    left = int(b.get_attribute("#rematch-left", "data-left") or 0)
    assert 0 < left <= REMATCH_SECONDS
    assert "rosa_" in b.text_content("#rematch-status")
    # Both see it expire: the server's timer, pushed to each, not a client-side clock.
    for page in (a, b):
        page.wait_for_selector("#rematch-status[data-state='expired']", timeout=15000)
    assert time.monotonic() - offered >= REMATCH_SECONDS - 1
    for page in (a, b):
        assert page.locator("#rematch-accept, #rematch-decline, #rematch-offer").count() == 0
        assert page.text_content("#rematch-status").strip()
    b.screenshot(path=str(artifacts / "rematch-expired-390.png"))
    a.screenshot(path=str(artifacts / "rematch-expired-1366.png"))
    # A yes that comes too late is refused, and no table was opened.
    late = b.evaluate(
        f"""() => fetch('/api/tables/{tid}/rematch', {{method: 'POST'}})
             .then(async r => [r.status, (await r.json()).error?.code])"""
    )
    assert late == [409, "rematch_closed"]
    state = a.evaluate(f"() => fetch('/api/tables/{tid}/rematch').then(r => r.json())")
    assert state["state"] == "expired" and state["new_table"] is None
    # What next: the result sheet still takes each back to the lobby.
    for page in (a, b):
        assert page.evaluate("() => location.hash") == f"#/table/{tid}"
        page.click("#back-lobby")
        page.wait_for_selector("#play-now")
