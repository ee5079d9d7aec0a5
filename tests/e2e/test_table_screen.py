"""The table as one screen: at every common size, for 2 and 4 players, after the deal and
after several moves, the page does not scroll and the hand, the buttons, the stock, the
pile and every seat are in the viewport; in pairs the partner sits opposite; the moves
of others are animated (none with reduced motion) within a frame budget; sound waits for
a gesture and its mute is remembered. Screenshots go to tests/e2e/artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.helpers import (
    READ_TABLE,
    as_guest,
    draw_and_discard,
    open_table,
    wait_my_turn_or_end,
)

SIZES = [
    ("phone-360", 360, 740),
    ("phone-390", 390, 844),
    ("phone-412", 412, 915),
    ("phone-land", 844, 390),
    ("tablet", 768, 1024),
    ("tablet-land", 1024, 768),
    ("laptop-1280", 1280, 720),
    ("laptop-1366", 1366, 768),
    ("desktop", 1920, 1080),
]
SHORT = {"hand_size": 11, "muertos": 0, "stock_end": 20}
HERE = Path(__file__).resolve().parent

PROBES = (HERE / "probes.js").read_text()

LAYOUT_PROBLEMS = (HERE / "layout_problems.js").read_text()


SETTLED = """() => document.getAnimations()
  .every((a) => a.effect.getTiming().iterations === Infinity || a.playState !== 'running')"""


def bot_table(
    page: Any,
    players: int,
    preset: str = "cerrado",
    rules: dict | None = None,
    target_score: int | None = None,
) -> str:
    """A table of `players` opened through the REST API and filled with bots."""
    tid = open_table(page, players, preset, rules or SHORT, target_score=target_score)
    page.click("#add-bots")
    page.wait_for_selector("#hand .card")
    return tid


def check_sizes(page: Any, artifacts: Path, tag: str) -> None:
    failures = {}
    for name, w, h in SIZES:
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(120)
        page.wait_for_function(SETTLED)  # cards mid-flight are not the layout
        problems = page.evaluate(LAYOUT_PROBLEMS)
        page.screenshot(path=str(artifacts / f"table-{tag}-{name}.png"))
        if problems:
            failures[name] = problems
    assert not failures, failures


def my_turns(page: Any, n: int) -> None:
    for _ in range(n):
        if wait_my_turn_or_end(page) == "end":
            return
        draw_and_discard(page)


def test_one_screen_at_every_size_two_players(new_context, artifacts: Path) -> None:
    page = new_context(390, 844).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    as_guest(page)
    bot_table(page, 2, target_score=3000)  # the head shows the target beside the scores
    wait_my_turn_or_end(page)
    check_sizes(page, artifacts, "2p-deal")
    page.set_viewport_size({"width": 390, "height": 844})
    my_turns(page, 3)
    check_sizes(page, artifacts, "2p-moves")
    assert errors == []


def test_four_players_partner_opposite_animated_within_budget(new_context, artifacts: Path) -> None:
    ctx = new_context(1366, 768)
    ctx.add_init_script(PROBES)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    as_guest(page)
    bot_table(page, 4, "burraco", {**SHORT, "muertos": 0}, target_score=3000)
    wait_my_turn_or_end(page)
    page.screenshot(path=str(artifacts / "table-4p-deal-laptop.png"))
    # Partner opposite (above the hand, centred), opponents left and right.
    places = page.evaluate("""() => {
      const hand = document.querySelector('#hand').getBoundingClientRect();
      return [...document.querySelectorAll('.opponents .seat')].map((s) => {
        const r = s.getBoundingClientRect();
        return { partner: !!s.querySelector('.tag.partner'), x: (r.left + r.right) / 2,
                 bottom: r.bottom, handTop: hand.top, mid: (hand.left + hand.right) / 2,
                 w: innerWidth };
      });
    }""")
    assert len(places) == 3
    partner = [p for p in places if p["partner"]]
    assert len(partner) == 1, places
    p = partner[0]
    assert p["bottom"] < p["handTop"] and abs(p["x"] - p["mid"]) < p["w"] * 0.08, p
    xs = sorted(q["x"] for q in places if not q["partner"])
    assert xs[0] < p["w"] / 3 and xs[1] > p["w"] * 2 / 3, places

    # The others' moves animate, and no main-thread task passes 50 ms while they do.
    page.evaluate("() => { __anims = []; __longTasks = []; __fxLog.length = 0; }")
    my_turns(page, 3)
    page.wait_for_timeout(600)
    anims = page.evaluate("() => window.__anims")
    fx = page.evaluate("() => window.__fxLog")
    others = [e for e in fx if e["seat"] is not None and e["seat"] != 0]
    kinds = {e["type"] for e in others if e["anims"] > 0}
    assert {"drew", "discarded"} <= kinds, fx
    assert all(e["anims"] > 0 for e in others if e["type"] in ("drew", "melded", "discarded")), fx
    assert any("flying" in a["cls"] for a in anims), anims[:10]
    assert any(a["fx"] == "pile-top" for a in anims), anims[:10]
    long_tasks = page.evaluate("() => window.__longTasks")
    assert not [d for d in long_tasks if d > 50], long_tasks
    page.screenshot(path=str(artifacts / "table-4p-laptop.png"))

    # The state after the animations is the server's: a fresh load shows the same.
    shown = page.evaluate(READ_TABLE)
    fresh = ctx.new_page()
    fresh.goto(page.url)
    fresh.wait_for_selector("#hand .card")
    if wait_my_turn_or_end(page) == "draw" and wait_my_turn_or_end(fresh) == "draw":
        assert sorted(fresh.evaluate(READ_TABLE)["hand"]) == sorted(shown["hand"])
        # What the pile says it takes comes with the legal commands, asked for after
        # the snapshot: both pages hold theirs before they are compared.
        for p in (page, fresh):
            p.wait_for_selector("#pile[data-legal='ready']")
        assert fresh.evaluate(READ_TABLE)["pile"] == page.evaluate(READ_TABLE)["pile"]
    fresh.close()
    check_sizes(page, artifacts, "4p-moves")
    assert errors == []


def test_pairs_scores_read_whole_on_every_phone(new_context, artifacts: Path) -> None:
    """The side names ("Nosotros", "Ellos") stay whole beside four-digit totals of either
    sign on every phone size, whatever the deal has scored so far: the totals are written
    into the bar and measured in one synchronous step, before the client can paint again."""
    page = new_context(390, 844).new_page()
    as_guest(page)
    bot_table(page, 4, "burraco", {**SHORT, "muertos": 0}, target_score=3000)
    wait_my_turn_or_end(page)
    measure = f"""([a, b]) => {{
      const s = [...document.querySelectorAll('.scorebar strong')];
      s[0].textContent = a; s[1].textContent = b;
      return ({LAYOUT_PROBLEMS.strip()})().filter((p) => p.includes('score'));
    }}"""
    failures = {}
    for name, w, h in SIZES:
        if w > 480:
            continue
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(120)
        for totals in (["-1.155", "3.295"], ["3.295", "-1.155"], ["-155", "295"]):
            problems = page.evaluate(measure, totals)
            if problems:
                failures[(name, *totals)] = problems
        page.screenshot(path=str(artifacts / f"table-4p-scores-{name}.png"))
    assert not failures, failures


def test_reduced_motion_runs_no_animation(new_context) -> None:
    ctx = new_context(390, 844, reduced_motion="reduce")
    ctx.add_init_script(PROBES)
    page = ctx.new_page()
    as_guest(page)
    bot_table(page, 2)
    my_turns(page, 2)
    fx = page.evaluate("() => window.__fxLog || []")
    assert any(e["seat"] == 1 for e in fx), fx  # the bot did move
    assert page.evaluate("() => window.__anims.length") == 0
    assert all(e["anims"] == 0 for e in fx), fx


def test_sound_waits_for_a_gesture_and_mute_is_remembered(new_context) -> None:
    ctx = new_context(390, 844)
    ctx.add_init_script(PROBES)
    page = ctx.new_page()
    page.goto("/")
    page.evaluate("() => localStorage.setItem('buraco.mute', '0')")
    page.click("#play-guest")  # a click is a gesture: a fresh load has none
    page.wait_for_selector("#play-now")
    tid = bot_table(page, 2)
    page.reload()
    page.wait_for_selector("#hand .card")
    page.wait_for_timeout(500)
    # The deal and the bot's moves arrived, but nobody touched the page yet.
    assert page.evaluate("() => window.__audioContexts") == 0
    assert page.evaluate("() => window.__soundLog || []") == []
    my_turns(page, 1)  # clicks: now sounds may play
    page.wait_for_function("() => (window.__soundLog || []).length > 0")
    assert page.evaluate("() => window.__audioContexts") == 1
    # Mute, reload: still muted, and nothing plays even after clicks.
    page.click("#mute")
    assert page.get_attribute("#mute", "aria-pressed") == "true"
    page.reload()
    page.wait_for_selector("#hand .card")
    assert page.get_attribute("#mute", "aria-pressed") == "true"
    my_turns(page, 1)
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.__soundLog || []") == []
    assert page.evaluate("() => window.__audioContexts") == 0
    assert tid
