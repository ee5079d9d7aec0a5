"""Touch targets of the hand: on a touch screen every card of the hand, overlapped as it
is, keeps a strip at least 44 px wide that a finger hits (measured with elementFromPoint
across the strip, in the hand's visible area), with a full 11-card hand and with a hand of
28 after taking a big pile, at phone sizes in portrait and landscape; the page still never
scrolls and the hand stays inside the viewport (a very long hand scrolls inside its own
area). A tap on a strip chooses that card, which lifts without covering the row above.
Screenshots go to tests/e2e/artifacts/."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from app.rules.cards import NAME, full_deck
from tests.e2e.helpers import as_guest, open_table

HERE = Path(__file__).resolve().parent
LAYOUT_PROBLEMS = (HERE / "layout_problems.js").read_text()
SIZES = [("360", 360, 740), ("390", 390, 844), ("412", 412, 915), ("land", 844, 390)]
SETTLED = """() => document.getAnimations()
  .every((a) => a.effect.getTiming().iterations === Infinity || a.playState !== 'running')"""
POST = """async ([path, body]) => {
  const r = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body) });
  return [r.status, await r.text()];
}"""

# For every card: the width of the strip a finger hits (the card, not its neighbour), and
# where its middle is. The hand scrolls inside itself when it must: each card is brought
# into its visible area first.
STRIPS = """() => {
  const hand = document.querySelector('#hand');
  const out = [];
  for (const card of hand.querySelectorAll('.card')) {
    const area = hand.getBoundingClientRect();
    let r = card.getBoundingClientRect();
    if (r.left < area.left || r.right > area.right) {
      hand.scrollLeft += r.left - area.left - 10;
      r = card.getBoundingClientRect();
    }
    const y = r.top + 14;  // the card's corner: its rank and suit
    const hits = [];
    for (let x = Math.floor(r.left); x <= Math.ceil(r.right); x++) {
      const el = document.elementFromPoint(x, y);  // whole pixels: x is the pixel [x, x + 1)
      if (el && el.closest('.card') === card) hits.push(x);
    }
    const width = hits.length ? hits[hits.length - 1] - hits[0] + 1 : 0;
    const gaps = hits.length ? width - hits.length : 0;  // a strip in one piece
    const x = hits.length ? (hits[0] + hits[hits.length - 1]) / 2 : null;
    out.push({ card: card.dataset.key, width, gaps, x, y });
  }
  hand.scrollLeft = 0;
  return out;
}"""


def big_pile_deal() -> dict[str, Any]:
    """20 cards each and an open pile of 8 under the first player (you): taking it makes 28."""
    deck = [NAME[c] for c in full_deck(0)]
    random.Random(28).shuffle(deck)
    return {
        "hands": [deck[:20], deck[20:40]],
        "muertos": [],
        "discard": deck[40:48],
        "stock": deck[48:],
        "first": 0,
    }


def touch_page(new_context: Any) -> Any:
    ctx = new_context(360, 740, has_touch=True)
    page = ctx.new_page()
    as_guest(page)
    assert page.evaluate("() => matchMedia('(pointer: coarse)').matches")
    return page


def check_strips(page: Any, artifacts: Path, tag: str, n: int, scrolls: bool) -> None:
    failures: dict[str, Any] = {}
    for name, w, h in SIZES:
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        page.wait_for_function(SETTLED)
        strips = page.evaluate(STRIPS)
        assert len(strips) == n, strips
        narrow = [s for s in strips if s["width"] < 44 or s["gaps"]]
        problems = page.evaluate(LAYOUT_PROBLEMS)
        if scrolls:  # the last cards may be scrolled out of sight: the hand itself is in it
            problems = [p for p in problems if not p.startswith("last card")]
        page.screenshot(path=str(artifacts / f"table-touch-{tag}-{name}.png"))
        if narrow or problems:
            failures[name] = {"narrow": narrow, "layout": problems}
    assert not failures, failures


# How far a chosen card of the last row reaches into the row above (px; 0: not at all).
INTO_ROW_ABOVE = """() => {
  const rows = [...document.querySelectorAll('#hand .hand-row')];
  if (rows.length < 2) return null;
  const chosen = rows[rows.length - 1].querySelector('.card[aria-pressed=true]');
  const above = [...rows[rows.length - 2].querySelectorAll('.card')];
  const bottom = Math.max(...above.map((c) => c.getBoundingClientRect().bottom));
  return Math.max(0, bottom - chosen.getBoundingClientRect().top);
}"""


def tap_a_card_of_the_last_row(page: Any) -> None:
    """A tap on a strip chooses that card; chosen, it lifts without covering the row above."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(150)
    strips = page.evaluate(STRIPS)
    middle = strips[-2]
    page.evaluate(
        """(key) => { const c = document.querySelector(`#hand [data-key="${key}"]`);
        const hand = document.querySelector('#hand'); const a = hand.getBoundingClientRect();
        const r = c.getBoundingClientRect();
        if (r.left < a.left || r.right > a.right) hand.scrollLeft += r.left - a.left - 10; }""",
        middle["card"],
    )
    again = {s["card"]: s for s in page.evaluate(STRIPS)}[middle["card"]]
    page.evaluate(
        """(key) => { const c = document.querySelector(`#hand [data-key="${key}"]`);
        const hand = document.querySelector('#hand'); const a = hand.getBoundingClientRect();
        const r = c.getBoundingClientRect();
        if (r.left < a.left || r.right > a.right) hand.scrollLeft += r.left - a.left - 10; }""",
        middle["card"],
    )
    page.touchscreen.tap(again["x"], again["y"])
    sel = f'#hand [data-key="{middle["card"]}"]'
    page.wait_for_function(
        f"() => document.querySelector('{sel}').getAttribute('aria-pressed') === 'true'"
    )
    assert page.locator("#hand .card[aria-pressed=true]").count() == 1
    page.wait_for_timeout(200)  # the lift's transition
    assert page.locator("#hand .hand-row").count() == 2  # 11 or 28 cards at 390 px: two rows
    assert page.evaluate(INTO_ROW_ABOVE) == 0


def test_every_card_of_a_full_hand_has_a_finger_wide_strip(new_context, artifacts) -> None:
    page = touch_page(new_context)
    open_table(page, 2, "cerrado", {"hand_size": 11, "muertos": 0, "stock_end": 20})
    page.click("#add-bots")
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length >= 11")
    page.wait_for_function("() => !document.querySelector('#act-draw').disabled")
    check_strips(page, artifacts, "11", 11, scrolls=False)
    tap_a_card_of_the_last_row(page)


def test_a_hand_of_28_after_a_big_pile_still_has_them(new_context, artifacts) -> None:
    page = touch_page(new_context)
    tid = open_table(page, 2, "abierto", {"hand_size": 20, "muertos": 0}, name="Pozo grande")
    page.wait_for_selector("#wait-title")
    short = big_pile_deal()
    short["stock"] = short["stock"][1:]  # a card short of the deck: refused
    status, body = page.evaluate(POST, [f"/api/test/tables/{tid}/deals", {"deals": [short]}])
    assert status == 422 and "bad_deal" in body, body
    status, body = page.evaluate(
        POST, [f"/api/test/tables/{tid}/deals", {"deals": [big_pile_deal()]}]
    )
    assert status == 200, body
    page.click("#add-bots")
    page.wait_for_selector("#act-pile:not([disabled])")
    page.click("#act-pile")
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 28")
    check_strips(page, artifacts, "28", 28, scrolls=True)
    tap_a_card_of_the_last_row(page)
