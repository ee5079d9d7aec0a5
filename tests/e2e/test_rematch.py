"""Rematch in two browsers: a one-hand game between two people ends, one offers
"Revancha", the other sees who accepted and the seconds left, accepts, and both land at
the new table; or declines, and the offer closes for both."""

from __future__ import annotations

from tests.e2e.helpers import draw_and_discard, register

# One short hand: 20 cards each, no muertos, ends when 20 cards are left in the stock.
OPEN = """async () => {
  const r = await fetch('/api/tables', { method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Revancha e2e', players: 2, preset: 'cerrado', target_score: 0,
      rules: { hand_size: 20, muertos: 0, stock_end: 20 } }) });
  return (await r.json()).id;
}"""


def _finished_game(new_context):
    a, b = new_context(1366, 768).new_page(), new_context(390, 844).new_page()
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
    for _ in range(120):
        if a.query_selector("#score-sheet") or b.query_selector("#score-sheet"):
            break
        mover = next((p for p in (a, b) if p.evaluate(can_draw)), None)
        if mover is None:
            a.wait_for_timeout(100)
            continue
        draw_and_discard(mover)
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


def test_rematch_declined(new_context) -> None:
    a, b, _ = _finished_game(new_context)
    b.click("#rematch-offer")
    a.wait_for_selector("#rematch-decline")
    a.click("#rematch-decline")
    for page in (a, b):
        page.wait_for_selector("#rematch-status[data-state='declined']")
    assert "rosa_" in b.text_content("#rematch-status")
    assert b.locator("#rematch-accept, #rematch-offer").count() == 0
