"""Whole hands by taps only (issue 32), on stacked deals where you go out in your first
turn: 2 players on a 360x740 phone, 4 in pairs on a 390x844 one (after the 4-player felt
with both muertos is checked at the six sizes and a turn is played by taps); then the
end-of-match sheet at the six sizes, whole, the rematch offer in sight, and the match's
replay, whose last step says in words who closed. Split from
test_phone_journeys.py (whose helpers it uses) so the two run on separate workers."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.helpers import TEXT_CUT, as_guest, open_table
from tests.e2e.test_phone_journeys import (
    GO_OUT,
    SIX,
    end_sheet_everywhere,
    go_out_by_taps,
    look,
    my_draw,
    phone,
    settle,
    stack_and_start,
    stacked,
    tap_turn,
)

CLOSED = {1: "cerró la mano.", 2: "cerraron la mano."}


def test_a_whole_hand_by_taps_on_a_small_phone_two_players(new_context, artifacts) -> None:
    page = phone(new_context, 360, 740)
    as_guest(page)
    tid = open_table(page, 2, "cerrado", {"hand_size": 11, "muertos": 0})
    page.wait_for_selector("#wait-title")
    stack_and_start(page, tid, stacked(2, GO_OUT["mine"], GO_OUT["pile"]))
    assert my_draw(page) == "draw"
    go_out_by_taps(page, artifacts, "2p-360x740")
    end_sheet_everywhere(page, artifacts, "2p")
    replay_says_who_closed(page, 1)
    assert page.dialogs == []  # type: ignore[attr-defined]


def test_four_players_around_a_phone_and_a_whole_hand_by_taps(new_context, artifacts) -> None:
    page = phone(new_context, 390, 844)
    as_guest(page)
    # With both muertos on the felt: the side seats, the stock, the pile and the muertos
    # never over each other, and every seat's name ("Bot Jorge" the longest) read whole,
    # at every size; a turn by taps: draw, choose, discard.
    tid = open_table(page, 4, "cerrado", {"hand_size": 11, "muertos": 2, "pairs": True})
    page.wait_for_selector("#wait-title")
    stack_and_start(page, tid, stacked(4, [], ["5S"], muertos=2))
    assert my_draw(page) == "draw"
    failures = {}
    for name, w, h in SIX:
        page.set_viewport_size({"width": w, "height": h})
        problems = look(page, artifacts, f"4p-muertos-{name}")
        assert page.locator(".seat .seat-name").count() == 4
        problems += page.evaluate(TEXT_CUT, ".seat .seat-name")  # two lines at most
        if problems:
            failures[name] = problems
    assert not failures, failures
    page.set_viewport_size({"width": 390, "height": 844})
    settle(page)
    tap_turn(page)
    problems = look(page, artifacts, "4p-muertos-played-390x844")
    assert not problems, problems

    # In pairs, without muertos: you go out in your first turn, by taps.
    tid = open_table(page, 4, "cerrado", {"hand_size": 11, "muertos": 0, "pairs": True})
    page.wait_for_selector("#wait-title")
    stack_and_start(page, tid, stacked(4, GO_OUT["mine"], GO_OUT["pile"]))
    assert my_draw(page) == "draw"
    go_out_by_taps(page, artifacts, "4p-390x844")
    end_sheet_everywhere(page, artifacts, "4p")
    replay_says_who_closed(page, 2)
    assert page.dialogs == []  # type: ignore[attr-defined]


def replay_says_who_closed(page: Any, players: int) -> None:
    """The match's replay, from its end sheet: the last step names the side that closed
    (a guest as the page words them, "Invitado 1234") with the verb for one player or a
    pair; no message is left with its braces."""
    stored = page.evaluate("() => window.__buraco.app.me.nickname")
    me = re.sub(r"^Invitado(\d+)$", r"Invitado \1", stored)
    page.click("#see-replay")
    page.wait_for_selector("#rp-board")
    page.locator("body").press("End")
    page.wait_for_function(
        "() => { const c = document.querySelector('#rp-counter');"
        " return c && c.dataset.n === c.dataset.last && c.dataset.last !== '0'; }"
    )
    said = page.text_content("#rp-step") or ""
    assert said.endswith(CLOSED[players]) and me in said, (said, me)
    assert not re.search(r"[{}]|Invitado\d", said), said
    sides = page.locator(".rp-zone h3").all_inner_texts()
    assert any(me in side for side in sides) and stored not in " ".join(sides), sides
