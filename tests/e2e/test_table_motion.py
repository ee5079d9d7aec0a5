"""An opponent's moves, animated, with known cards: the deal is stacked (BURACO_ENV=test
only, app/tables/lobby/testdeals.py) and the opponent is a second browser that plays chosen
cards through its own UI. The watching player sees the deal fly out, the opponent's
draw, a new meld, cards added to it, the canasta's moment, a second meld, the discard and
the muerto flying to the opponent, each as Web Animations, and then the same table as the
server's (a fresh load); a spectator with reduced motion sees every move and no
animation. Dialogs stay above cards in flight (the seat menu and the confirm dialog are
open while cards fly; the next hand is dealt under the result sheet)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from app.rules.cards import NAME, full_deck
from tests.e2e.helpers import as_guest, open_table

HERE = Path(__file__).resolve().parent
PROBES = (HERE / "probes.js").read_text()
SETTLED = """() => document.getAnimations()
  .every((a) => a.effect.getTiming().iterations === Infinity || a.playState !== 'running')"""

# The opponent (seat 1, on turn first) holds a heart run to grow into a clean canasta, a
# spade run and one card to discard: emptying the hand that way takes the muerto.
OPPONENT = ["7H", "8H", "9H", "JH", "QH", "KH", "4S", "5S", "6S", "7S", "9C"]
STOCK_TOP = "10H"
RULES = {"hand_size": 11, "muertos": 2, "muerto_size": 11}

POST = """async ([path, body]) => {
  const r = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body) });
  return [r.status, await r.text()];
}"""

# What the table shows of the game (everything but one's own hand).
SHOWN = """() => ({
  stock: document.querySelector('#stock .pile-count')?.dataset.n,
  pile: document.querySelector('#pile')?.getAttribute('aria-label'),
  pileTop: (c => c && c.dataset.r + c.dataset.s)(
    document.querySelector('[data-fx=pile-top] .corner')),
  melds: [...document.querySelectorAll('.meld')].map(m => m.getAttribute('aria-label')),
  seats: [...document.querySelectorAll('.seat')].map(s => s.getAttribute('aria-label')),
  muertos: [...document.querySelectorAll('.muerto')].map(m => m.getAttribute('aria-label')),
})"""


def stacked_deal(first: int = 1) -> dict[str, Any]:
    """A whole abierto deck (no jokers) cut as RULES say, the opponent's hand and the
    stock's top card fixed, the rest in a fixed shuffled order."""
    rest = [NAME[c] for c in full_deck(0)]
    for card in [*OPPONENT, STOCK_TOP]:
        rest.remove(card)
    random.Random(12).shuffle(rest)
    mine, rest = rest[:11], rest[11:]
    muertos, rest = [rest[:11], rest[11:22]], rest[22:]
    return {
        "hands": [mine, OPPONENT],
        "muertos": muertos,
        "stock": [STOCK_TOP, *rest],
        "first": first,
    }


def recorded(page: Any) -> tuple[list[dict], list[dict]]:
    return page.evaluate("() => [window.__fxLog, window.__anims]")


def reset(page: Any) -> None:
    page.evaluate("() => { window.__anims.length = 0; window.__fxLog.length = 0; }")


def wait_move(page: Any, kind: str, seat: int = 1) -> None:
    page.wait_for_function(
        f"() => window.__fxLog.some(e => e.type === '{kind}' && e.seat === {seat})"
    )


def pick(page: Any, *cards: str) -> None:
    for card in cards:
        page.click(f"#hand .card[data-card='{card}']")


def covered_in_flight(page: Any) -> dict:
    """Freeze the cards in flight, then ask what a point at the centre of one of them
    hits (the flight layer made hittable for the question): the open dialog, or the card."""
    page.wait_for_function("() => document.querySelector('.fx-layer .card')")
    return page.evaluate("""() => {
      document.getAnimations().forEach((a) => a.pause());
      const layer = document.querySelector('.fx-layer');
      layer.style.pointerEvents = 'auto';
      layer.querySelectorAll('.card').forEach((c) => { c.style.pointerEvents = 'auto'; });
      const card = layer.querySelector('.card');
      const r = card.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      layer.style.pointerEvents = '';
      layer.querySelectorAll('.card').forEach((c) => { c.style.pointerEvents = ''; });
      document.getAnimations().forEach((a) => a.play());
      return { inDialog: !!hit?.closest('.overlay'), onCard: !!hit?.closest('.fx-layer') };
    }""")


def test_an_opponents_known_moves_are_animated_and_end_as_the_server_says(
    new_context, artifacts: Path
) -> None:
    ctx = new_context(1366, 768)
    ctx.add_init_script(PROBES)
    ana = ctx.new_page()
    errors: list[str] = []
    ana.on("pageerror", lambda e: errors.append(str(e)))
    as_guest(ana)
    tid = open_table(ana, 2, "abierto", RULES, name="Mesa sabida")
    ana.wait_for_selector("#wait-title")
    status, body = ana.evaluate(
        POST, [f"/api/test/tables/{tid}/deals", {"deals": [stacked_deal()]}]
    )
    assert status == 200, body

    # A spectator who asked for reduced motion watches the same game.
    still_ctx = new_context(390, 844, reduced_motion="reduce")
    still_ctx.add_init_script(PROBES)
    still = still_ctx.new_page()
    as_guest(still)
    still.goto(f"/#/table/{tid}")
    still.wait_for_selector("#wait-title")

    bea = new_context(1280, 800).new_page()
    as_guest(bea)
    status, body = bea.evaluate(POST, [f"/api/tables/{tid}/sit", {}])
    assert status == 200, body
    bea.goto(f"/#/table/{tid}")
    bea.wait_for_selector("#act-draw:not([disabled])")
    assert sorted(
        bea.eval_on_selector_all("#hand .card", "cs => cs.map(c => c.dataset.card)")
    ) == sorted(OPPONENT)

    # The deal flies out: cards to the opponent's seat, Ana's own cards from the stock.
    ana.wait_for_function("() => window.__fxLog.some(e => e.type === 'hand_started')")
    fx, anims = recorded(ana)
    deal = [e for e in fx if e["type"] == "hand_started"]
    assert deal and deal[0]["anims"] >= 11 + 3, fx  # 11 cards glide in, 3 fly to Bea
    assert (
        sum(a["id"] == "fly" for a in anims) >= 3 and sum(a["id"] == "glide" for a in anims) >= 11
    ), anims
    ana.wait_for_function(SETTLED)

    # Bea draws (the known 10♥), while Ana has Bea's seat menu open: the card flies
    # under the dialog, never over it.
    reset(ana)
    ana.click("[data-seat='1'] .seat-menu-btn")
    ana.wait_for_selector("#seat-menu")
    bea.click("#act-draw")
    wait_move(ana, "drew")
    assert covered_in_flight(ana) == {"inDialog": True, "onCard": False}
    fx, anims = recorded(ana)
    assert [e["anims"] for e in fx if e["type"] == "drew"] == [1], fx
    assert any(a["id"] == "fly" and "flying" in a["cls"] for a in anims), anims
    ana.keyboard.press("Escape")
    ana.wait_for_selector("#seat-menu", state="detached")
    bea.wait_for_selector("#hand .card[data-card='10H']")

    # A new meld glides from Bea's seat to its place.
    reset(ana)
    pick(bea, "7H", "8H", "9H")
    bea.click("#act-meld")
    wait_move(ana, "melded")
    fx, anims = recorded(ana)
    assert [e["anims"] for e in fx if e["type"] == "melded"] == [1], fx
    assert [a["id"] for a in anims if a["fx"] == "meld-1-0"] == ["glide"], anims

    # A card added flies to the meld (Ana has the leave dialog open meanwhile).
    ana.wait_for_function(SETTLED)
    reset(ana)
    ana.click("#leave")
    ana.wait_for_selector("#confirm-ok")
    pick(bea, "10H")
    bea.click("[data-fx='meld-1-0']")
    wait_move(ana, "added")
    assert covered_in_flight(ana) == {"inDialog": True, "onCard": False}
    fx, anims = recorded(ana)
    assert [e["anims"] for e in fx if e["type"] == "added"] == [1], fx
    assert [a["id"] for a in anims] == ["fly"], anims
    ana.click("#confirm-cancel")

    # Three more make a clean canasta of seven: they fly in, then the canasta's moment
    # (the meld swells and glows, "¡Canasta!" rises over it).
    ana.wait_for_function(SETTLED)
    reset(ana)
    pick(bea, "JH", "QH", "KH")
    bea.click("[data-fx='meld-1-0']")
    word = ana.wait_for_function(
        """() => document.getAnimations().some(a => a.id === 'canasta' && a.playState === 'running'
          && (a.effect.getComputedTiming().progress ?? 0) > 0.3)  // past its delay: glowing
          && document.querySelector('.fx-layer .fx-banner')?.textContent"""
    ).json_value()
    ana.screenshot(path=str(artifacts / "table-canasta-moment-1366.png"))
    fx, anims = recorded(ana)
    assert [e["anims"] for e in fx if e["type"] == "added"] == [5], fx  # 3 cards, swell, word
    assert [a["id"] for a in anims if a["fx"] == "meld-1-0"] == ["canasta"], anims
    assert [a["cls"] for a in anims if a["id"] == "canasta-banner"] == ["fx-banner"], anims
    assert word == "¡Canasta!"
    assert ana.locator("[data-fx='meld-1-0'].canasta .badge-canasta.clean").count() == 1

    # A second meld; then the discard of the last card glides onto the pile and the
    # muerto flies from the table to Bea.
    ana.wait_for_function(SETTLED)
    pick(bea, "4S", "5S", "6S", "7S")
    bea.click("#act-meld")
    ana.wait_for_selector("[data-fx='meld-1-1']")
    ana.wait_for_function(SETTLED)
    reset(ana)
    pick(bea, "9C")
    bea.click("#act-discard")
    wait_move(ana, "muerto_taken")
    fx, anims = recorded(ana)
    assert [e["anims"] for e in fx if e["type"] == "discarded"] == [1], fx
    assert [e["anims"] for e in fx if e["type"] == "muerto_taken"] == [3], fx
    assert [a["fx"] for a in anims if a["id"] == "glide"] == ["pile-top"], anims
    assert sum(a["id"] == "fly" for a in anims) == 3, anims
    bea.wait_for_function("() => document.querySelectorAll('#hand .card').length === 11")

    # Once everything has landed Ana's table is the server's: a fresh load shows the same.
    ana.wait_for_function(SETTLED)
    ana.wait_for_selector("#act-draw:not([disabled])")
    ana.wait_for_selector("#pile[data-legal='ready']")  # the pile's hint needs them
    shown = ana.evaluate(SHOWN)
    assert len(shown["melds"]) == 2 and shown["pileTop"] == "9♣", shown
    fresh = ctx.new_page()
    fresh.goto(ana.url)
    fresh.wait_for_selector("#act-draw:not([disabled])")
    fresh.wait_for_selector("#pile[data-legal='ready']")
    assert fresh.evaluate(SHOWN) == shown
    assert fresh.evaluate(SHOWN)["melds"] == bea.evaluate(SHOWN)["melds"]
    fresh.close()
    ana.screenshot(path=str(artifacts / "table-after-muerto-1366.png"))

    # The spectator with reduced motion saw every move, none animated.
    fx = still.evaluate("() => window.__fxLog")
    kinds = {e["type"] for e in fx}
    assert {"hand_started", "drew", "melded", "added", "discarded", "muerto_taken"} <= kinds, fx
    assert all(e["anims"] == 0 for e in fx), fx
    assert still.evaluate("() => window.__anims.length") == 0
    assert still.evaluate(SHOWN)["melds"] == shown["melds"]
    assert errors == []


def whole_deck_deal(hand: list[str], top: str, seed: int, first: int) -> dict[str, Any]:
    """No muertos: seat `first` holds `hand`, the stock starts with `top`."""
    rest = [NAME[c] for c in full_deck(0)]
    for card in [*hand, top]:
        rest.remove(card)
    random.Random(seed).shuffle(rest)
    hands = [rest[:11], hand] if first == 1 else [hand, rest[:11]]
    return {"hands": hands, "muertos": [], "stock": [top, *rest[11:]], "first": first}


def test_the_next_deal_flies_under_the_hand_result(new_context, artifacts: Path) -> None:
    """A hand closes and the next is dealt at once: its cards fly while the result sheet
    is open, under it."""
    ctx = new_context(390, 844)
    ctx.add_init_script(PROBES)
    ana = ctx.new_page()
    as_guest(ana)
    rules = {"hand_size": 11, "muertos": 0, "target_score": 5000}
    tid = open_table(ana, 2, "abierto", rules, name="Dos manos")
    ana.wait_for_selector("#wait-title")
    closer = ["7H", "8H", "9H", "10H", "JH", "QH", "KH", "4S", "5S", "6S", "9C"]
    deals = [whole_deck_deal(closer, "7S", 3, 1), whole_deck_deal(closer, "7S", 4, 0)]
    status, body = ana.evaluate(POST, [f"/api/test/tables/{tid}/deals", {"deals": deals}])
    assert status == 200, body
    bea = new_context(1280, 800).new_page()
    as_guest(bea)
    assert bea.evaluate(POST, [f"/api/tables/{tid}/sit", {}])[0] == 200
    bea.goto(f"/#/table/{tid}")
    bea.wait_for_selector("#act-draw:not([disabled])")
    bea.click("#act-draw")
    bea.wait_for_selector("#hand .card[data-card='7S']")
    pick(bea, "7H", "8H", "9H", "10H", "JH", "QH", "KH")
    bea.click("#act-meld")
    bea.wait_for_selector("[data-fx='meld-1-0'].canasta")
    pick(bea, "4S", "5S", "6S", "7S")
    bea.click("#act-meld")
    bea.wait_for_selector("[data-fx='meld-1-1']")
    ana.wait_for_function(SETTLED)
    reset(ana)
    pick(bea, "9C")
    bea.click("#act-discard")  # the last card: Bea closes, hand 2 is dealt
    bea.click("#confirm-ok")  # a move that ends the hand asks once

    ana.wait_for_selector("#result-title")
    assert covered_in_flight(ana) == {"inDialog": True, "onCard": False}
    ana.screenshot(path=str(artifacts / "table-result-over-deal-390.png"))
    ana.wait_for_function("() => window.__fxLog.some(e => e.type === 'hand_started')")
    fx, _ = recorded(ana)
    assert [e["type"] for e in fx if e["type"] in ("hand_ended", "hand_started")] == [
        "hand_ended",
        "hand_started",
    ], fx
