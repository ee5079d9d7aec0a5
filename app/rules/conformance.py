"""``python -m app.rules.conformance PATH...``: run rules scenarios (a fixed interface).

The format is fixed by ``shared/conformance/README.md``: each JSON file holds a list of
scenarios (rules, an explicit deal, steps expected to be accepted or refused, checks).
Prints one line per failed scenario and ends with ``N passed, M failed``.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from . import commands as C
from .cards import NAME, parse, parse_many
from .engine import apply
from .errors import RuleViolation
from .melds import SEQ, canasta_kind, render
from .ruleset import make_ruleset
from .state import HAND_OVER, M_TAKEN, M_USED, OVER, State, initial_state


class Mismatch(Exception):
    pass


def scenario_files(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            files.extend(sorted(path.rglob("*.json")))
        elif path.is_file():
            files.append(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {p}")
    return files


def build_state(scenario: dict[str, Any]) -> State:
    spec = scenario["rules"]
    rules = make_ruleset(spec["preset"], spec.get("players"), spec.get("set") or {})
    deal = scenario["deal"]
    command = C.Deal(
        hands=tuple(parse_many(h) for h in deal["hands"]),
        muertos=tuple(parse_many(m) for m in deal.get("muertos") or []),
        stock=parse_many(deal.get("stock") or []),
        discard=parse_many(deal.get("discard") or []),
        first=deal.get("first", 0),
    )
    return apply(initial_state(rules), C.SYSTEM, command)[1]


def _wild(value: str | None) -> int | None:
    return None if value is None else parse(value)


def to_command(step: dict[str, Any]) -> C.Command:
    """A scenario step as an engine command."""
    if "draw" in step:
        return C.Draw()
    if "take_discard" in step:
        spec = step["take_discard"] or {}
        add = spec.get("add")
        return C.TakeDiscard(
            depth=spec.get("depth", 1),
            meld=parse_many(spec["meld"]) if "meld" in spec else None,
            add=(add["team"], add["meld"]) if add is not None else None,
            wild_as=_wild(spec.get("wild_as", step.get("wild_as"))),
        )
    if "meld" in step:
        return C.LayMeld(parse_many(step["meld"]), _wild(step.get("wild_as")))
    if "add" in step:
        spec = step["add"]
        return C.AddToMeld(
            spec["team"],
            spec["meld"],
            parse_many(spec["cards"]),
            _wild(spec.get("wild_as", step.get("wild_as"))),
        )
    if "discard" in step:
        return C.Discard(parse(step["discard"]))
    raise ValueError("step has no action")


def _expect(what: str, want: Any, got: Any) -> None:
    if want != got:
        raise Mismatch(f"{what}: expected {want!r}, got {got!r}")


def _meld_view(m: Any) -> Any:
    cards = render(m)
    return cards if m.kind == SEQ else sorted(cards)


def check(state: State, checks: dict[str, Any]) -> None:
    """Compare the state with a ``then``/``end`` block; raise Mismatch on a difference."""
    rules = state.rules
    for key, want in checks.items():
        if key == "turn":
            _expect("turn", want, state.turn)
        elif key == "hand":
            for seat, cards in want.items():
                held = Counter(render_cards(state.hands[int(seat)]))
                _expect(f"hand of seat {seat}", Counter(cards), held)
        elif key == "hand_size":
            for seat, n in want.items():
                _expect(f"hand size of seat {seat}", n, len(state.hands[int(seat)]))
        elif key == "melds":
            for team, melds in want.items():
                actual = state.melds[int(team)]
                got = [_meld_view(m) for m in actual]
                # a group compares as a multiset: sort the expected one where a group stands
                exp = [
                    sorted(m) if i < len(actual) and actual[i].kind != SEQ else m
                    for i, m in enumerate(melds)
                ]
                _expect(f"melds of team {team}", exp, got)
        elif key == "canastas":
            for team, kinds in want.items():
                found = [canasta_kind(m, rules) for m in state.melds[int(team)]]
                _expect(f"canastas of team {team}", kinds, [k for k in found if k])
        elif key == "discard":
            _expect("discard pile", want, render_cards(state.discard))
        elif key == "stock_size":
            _expect("stock size", want, len(state.stock))
        elif key == "muerto_taken":
            for team, taken in want.items():
                was_taken = state.muerto_status[int(team)] in (M_TAKEN, M_USED)
                _expect(f"muerto taken by team {team}", taken, was_taken)
        elif key == "over":
            _expect(
                "over",
                want,
                state.phase in (HAND_OVER, OVER) and state.hand_no > 0 and state.end_reason != "",
            )
        elif key == "scores":
            for team, score in want.items():
                _expect(f"score of team {team}", score, _hand_score(state, int(team)))
        elif key == "winner":
            _expect("winner", want, state.winner if state.end_reason else None)
        else:
            raise Mismatch(f"unknown check {key!r}")


def _hand_score(state: State, team: int) -> int | None:
    return state.hand_scores[team] if state.end_reason else None


def render_cards(cards: Any) -> list[str]:
    return [NAME[c] for c in cards]


def run_scenario(scenario: dict[str, Any]) -> str | None:
    """None when the scenario passes, else ``"step N: what differed"``."""
    try:
        state = build_state(scenario)
    except (RuleViolation, KeyError, ValueError, TypeError) as exc:
        return f"setup: {exc}"
    for number, step in enumerate(scenario.get("steps", []), start=1):
        expect = step.get("expect", "ok")
        try:
            command = to_command(step)
        except (KeyError, ValueError, TypeError) as exc:
            return f"step {number}: bad step ({exc})"
        try:
            _, new = apply(state, step["seat"], command)
        except RuleViolation as exc:
            if expect != "reject":
                return f"step {number}: refused ({exc.code}: {exc.message}), expected ok"
            continue
        if expect == "reject":
            return f"step {number}: accepted, expected reject"
        state = new
        try:
            check(state, step.get("then", {}))
        except Mismatch as exc:
            return f"step {number}: {exc}"
    try:
        check(state, scenario.get("end", {}))
    except Mismatch as exc:
        return f"end: {exc}"
    return None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m app.rules.conformance PATH [PATH ...]", file=sys.stderr)
        return 2
    passed = failed = 0
    for path in scenario_files(args):
        try:
            scenarios = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            print(f"{path}: cannot read ({exc})")
            failed += 1
            continue
        for scenario in scenarios:
            outcome = run_scenario(scenario)
            if outcome is None:
                passed += 1
            else:
                failed += 1
                print(f"{scenario.get('id', '?')} ({path.name}): {outcome}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
