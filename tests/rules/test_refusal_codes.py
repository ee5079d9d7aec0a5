"""Exact refusal codes of the project's refusal scenarios.

The conformance format (shared/conformance/README.md) only says whether a step is accepted
or refused. This test replays ``tests/rules/scenarios/refusals.json`` through the engine and
asserts the exact ``RuleViolation.code`` of every refused step, in order, and checks that
every code in ``app/rules/*.py`` is exercised, either by a scenario or, for codes no player
command can trigger, by a direct test below.

Codes no player command can trigger (tested directly, not as scenarios):
- ``bad_deal``, ``hand_in_play``: only the table service deals (seat ``SYSTEM``).
- ``not_allowed``: a seat sending a Deal; the scenario format has no deal step.
- ``unknown_preset``, ``unknown_option``, ``bad_option``, ``inconsistent_rules``: table
  setup (``make_ruleset``), before any command.
- ``bad_command`` for an unknown command object (the scenario covers the other
  ``bad_command``: a pile take naming both a meld and an add).

Reachable only from a test deal (kept as scenarios, with the reason in their "about"):
- ``stock_empty``: in play the hand ends as soon as a turn ends with the stock at
  ``stock_end`` and no muerto left, so nobody meets an empty stock.
- ``cannot_close`` at the discard: the no-stranding check refuses the play that would leave
  such a last card, so only a hand dealt empty gets there (the meld path is reachable).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from app.rules import commands as C
from app.rules.conformance import build_state, to_command
from app.rules.engine import apply
from app.rules.errors import RuleViolation
from app.rules.ruleset import make_ruleset
from app.rules.state import HAND_OVER, OVER, initial_state

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = Path(__file__).resolve().parent / "scenarios"
RULES_SRC = ROOT / "app" / "rules"

# scenario id -> the code of each refused step, in step order
EXPECTED_CODES: dict[str, list[str]] = {
    "refuse-not-your-turn": ["not_your_turn", "not_your_turn"],
    "refuse-bad-seat": ["bad_seat"],
    "refuse-must-draw-first": ["must_draw_first", "must_draw_first", "must_draw_first"],
    "refuse-already-drew": ["already_drew", "already_drew"],
    "refuse-card-not-in-hand": [
        "card_not_in_hand",
        "card_not_in_hand",
        "card_not_in_hand",
        "card_not_in_hand",
    ],
    "refuse-stock-empty": ["stock_empty"],
    "refuse-pile-empty": ["pile_empty"],
    "refuse-bad-depth-open-pile": ["bad_depth"],
    "refuse-bad-depth-beyond-pile": ["bad_depth", "bad_depth"],
    "refuse-pile-needs-play": ["pile_needs_play"],
    "refuse-bad-command-meld-and-add": ["bad_command"],
    "refuse-bad-wild-slot": [
        "bad_wild_slot",
        "bad_wild_slot",
        "bad_wild_slot",
        "bad_wild_slot",
        "bad_wild_slot",
    ],
    "refuse-group-rank-taken": ["group_rank_taken"],
    "refuse-no-such-meld": ["no_such_meld", "no_such_meld", "no_such_meld", "cannot_add"],
    "refuse-not-your-meld": ["not_your_meld"],
    "refuse-cannot-discard-taken-card": ["cannot_discard_taken_card"],
    "refuse-cannot-close-by-meld": ["cannot_close"],
    "refuse-cannot-close-by-discard": ["cannot_close"],
    "refuse-must-keep-card": ["must_keep_card"],
    "refuse-stranded-last-card": ["stranded", "stranded"],
    "refuse-stranded-taken-single": ["stranded"],
    "refuse-stranded-copies-of-taken-single": ["stranded"],
    "refuse-meld-too-small": ["meld_too_small"],
    "refuse-group-of-twos": ["group_of_twos"],
    "refuse-too-many-wilds": ["too_many_wilds", "too_many_wilds", "too_many_wilds"],
    "refuse-groups-not-allowed": ["groups_not_allowed"],
    "refuse-group-suits-repeat": ["group_suits_repeat", "group_suits_repeat"],
    "refuse-group-too-large": ["group_too_large", "group_too_large"],
    "refuse-not-a-meld": ["not_a_meld", "not_a_meld", "not_a_meld", "not_a_meld", "not_a_meld"],
    "refuse-ace-to-ace-not-allowed": ["ace_to_ace_not_allowed"],
    "refuse-ace-to-ace-not-allowed-by-add": ["ace_to_ace_not_allowed"],
    "refuse-nothing-to-add": ["nothing_to_add"],
    "refuse-cannot-add": ["cannot_add", "cannot_add", "cannot_add"],
    "refuse-wild-fixed": ["wild_fixed"],
    "refuse-wild-cannot-move": ["wild_cannot_move"],
    "refuse-game-over": ["game_over", "game_over"],
    "refuse-hand-over": ["hand_over"],
}


# codes no player command can trigger, each with the direct test that raises it
NON_PLAYER_CODES = {
    "bad_deal",
    "hand_in_play",
    "not_allowed",
    "unknown_preset",
    "unknown_option",
    "bad_option",
    "inconsistent_rules",
}


def _load(name: str) -> dict[str, dict[str, Any]]:
    data = json.loads((SCENARIOS / name).read_text(encoding="utf-8"))
    return {s["id"]: s for s in data}


REFUSALS = _load("refusals.json")


def _replay(scenario: dict[str, Any]) -> tuple[list[str], Any]:
    """Run a scenario; return the codes of its refused steps and the final state."""
    state = build_state(scenario)
    codes: list[str] = []
    for number, step in enumerate(scenario["steps"], start=1):
        command = to_command(step)
        if step.get("expect", "ok") == "reject":
            with pytest.raises(RuleViolation) as info:
                apply(state, step["seat"], command)
            codes.append(info.value.code)
        else:
            try:
                state = apply(state, step["seat"], command)[1]
            except RuleViolation as exc:  # pragma: no cover - a failing scenario
                pytest.fail(f"{scenario['id']} step {number} refused: {exc.code}: {exc.message}")
    return codes, state


def test_every_refusal_scenario_has_expected_codes() -> None:
    assert set(REFUSALS) == set(EXPECTED_CODES)


@pytest.mark.parametrize("scenario_id", sorted(EXPECTED_CODES))
def test_refusal_codes(scenario_id: str) -> None:
    scenario = REFUSALS[scenario_id]
    codes, _ = _replay(scenario)
    assert codes == EXPECTED_CODES[scenario_id]
    for code in set(codes):  # each scenario names its codes in its "about"
        assert code in scenario["about"], f"{scenario_id}: about does not name {code}"


# ---------------------------------------------------------------- non-player codes


def _dealt(preset: str = "abierto") -> Any:
    return build_state(
        {
            "rules": {"preset": preset, "players": 2, "set": {"muertos": 0}},
            "deal": {"hands": [["5H", "6H", "7H"], ["3D", "8C"]], "stock": ["4S", "4D"]},
        }
    )


def _code(fn: Any) -> str:
    with pytest.raises(RuleViolation) as info:
        fn()
    return info.value.code


def test_bad_command_unknown_object() -> None:
    assert _code(lambda: apply(_dealt(), 0, object())) == "bad_command"
    assert _code(lambda: apply(_dealt(), 0, ("draw",))) == "bad_command"


@pytest.mark.parametrize("seat", [True, False, "0", 0.0, None, -1, 99])
def test_a_seat_that_is_no_int_is_bad_seat(seat: Any) -> None:
    """Compiled or not (mypyc would turn True into 1 and refuse "0" with a TypeError)."""
    state = _dealt()
    assert state.turn == 0
    assert _code(lambda: apply(state, seat, C.Draw())) == "bad_seat"


def test_not_allowed_seat_deals() -> None:
    deal = C.Deal(hands=((), ()), muertos=(), stock=(1, 2))
    assert _code(lambda: apply(_dealt(), 0, deal)) == "not_allowed"


def test_hand_in_play_and_bad_deal() -> None:
    deal = C.Deal(hands=((), ()), muertos=(), stock=(1, 2))
    assert _code(lambda: apply(_dealt(), C.SYSTEM, deal)) == "hand_in_play"
    fresh = initial_state(make_ruleset("abierto", 2, {"muertos": 0}))
    one_hand = C.Deal(hands=((),), muertos=(), stock=())
    assert _code(lambda: apply(fresh, C.SYSTEM, one_hand)) == "bad_deal"


def test_setup_codes() -> None:
    assert _code(lambda: make_ruleset("canasta")) == "unknown_preset"
    assert _code(lambda: make_ruleset("abierto", 2, {"wilds": 3})) == "unknown_option"
    assert _code(lambda: make_ruleset("abierto", 2, {"groups": "yes"})) == "bad_option"
    assert _code(lambda: make_ruleset("abierto", 5)) == "inconsistent_rules"


# ---------------------------------------------------------------- coverage of codes

_CODE_RE = re.compile(r'(?:RuleViolation|_fail|refuse)\(\s*"([a-z][a-z_]*)"')
_ELSE_RE = re.compile(r'_fail\(\s*"[a-z_]+"\s+if\s+.*?\s+else\s+"([a-z][a-z_]*)"')


def _source_codes() -> set[str]:
    codes: set[str] = set()
    for path in sorted(RULES_SRC.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        codes.update(_CODE_RE.findall(text))
        codes.update(_ELSE_RE.findall(text))
    return codes


def test_every_code_in_app_rules_is_covered() -> None:
    covered = {c for codes in EXPECTED_CODES.values() for c in codes} | NON_PLAYER_CODES
    covered.add("bad_command")
    missing = _source_codes() - covered
    assert not missing, f"refusal codes with no scenario in refusals.json: {sorted(missing)}"


# ---------------------------------------------------------------- target_score


@pytest.mark.parametrize(
    ("scenario_id", "phase", "code", "totals"),
    [
        ("opt-target-score-3000", HAND_OVER, "hand_over", (342, -19)),
        ("opt-target-score-0", OVER, "game_over", (342, -19)),
        ("opt-target-score-300", OVER, "game_over", (342, -19)),
    ],
)
def test_target_score_phase(
    scenario_id: str, phase: str, code: str, totals: tuple[int, ...]
) -> None:
    """The conformance checks see the same hand; the phase after it is what differs."""
    scenario = _load("options.json")[scenario_id]
    codes, state = _replay(scenario)
    assert codes == [code]
    assert state.phase == phase
    assert state.totals == totals
    assert state.match_winner == (0 if phase == OVER else -1)
