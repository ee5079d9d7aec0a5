"""Golden playthroughs: seeded full hands rendered as text, so that any change in the
engine's behaviour shows up as a diff.

Each game has two files under ``golden/``: ``NAME.json`` holds the deal's seed and the
commands the bots chose, ``NAME.txt`` the hand as a person reads it (the deal, every
command and the events it caused, the score breakdown). The test replays the recorded
commands on the seeded deal and compares the text, so tuning the bots does not disturb
it, while any change in what the engine accepts or produces does. ``UPDATE_GOLDEN=1``
lets the bots play the hands again and rewrites both files.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from app.rules import commands as C
from app.rules import events as E
from app.rules.bots import Bot, RandomBot
from app.rules.cards import NAME
from app.rules.deal import random_deal
from app.rules.engine import apply
from app.rules.greedy import GreedyBot
from app.rules.melds import canasta_kind, render
from app.rules.ruleset import RuleSet, make_ruleset
from app.rules.serialize import command_from_dict, command_to_dict
from app.rules.state import DRAW, PLAY, State, initial_state

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN", "") not in ("", "0")

# name: (preset, one bot kind per seat, seed)
GAMES: dict[str, tuple[str, tuple[str, ...], int]] = {
    "cerrado-2p-greedy-vs-greedy": ("cerrado", ("greedy", "greedy"), 11),
    "abierto_sucio-4p-greedy-vs-random": (
        "abierto_sucio",
        ("greedy", "random", "greedy", "random"),
        22,
    ),
    "burako-2p-random-vs-greedy": ("burako", ("random", "greedy"), 33),
    "brasil-3p-greedy-greedy-random": ("brasil", ("greedy", "greedy", "random"), 44),
    "cerrado_stcl-4p-greedy": ("cerrado_stcl", ("greedy",) * 4, 55),
    "abierto-2p-greedy-vs-random": ("abierto", ("greedy", "random"), 66),
}


def cards(cs: tuple[int, ...] | list[int]) -> str:
    return " ".join(NAME[c] for c in cs) if cs else "-"


def meld_text(m: Any, rules: RuleSet) -> str:
    kind = canasta_kind(m, rules)
    text = "[" + " ".join(render(m)) + "]"
    return f"{text} ({kind} canasta)" if kind else text


def command_text(cmd: C.Command) -> str:
    wild = getattr(cmd, "wild_as", None)
    wild_text = f", wild as {NAME[wild]}" if wild is not None else ""
    if isinstance(cmd, C.Draw):
        return "draw"
    if isinstance(cmd, C.TakeDiscard):
        out = "take the pile" + (f" to depth {cmd.depth}" if cmd.depth != 1 else "")
        if cmd.meld is not None:
            out += f", melding it with {cards(cmd.meld)}"
        if cmd.add is not None:
            out += f", adding it to team {cmd.add[0]} meld {cmd.add[1]}"
        return out + wild_text
    if isinstance(cmd, C.LayMeld):
        return f"meld {cards(cmd.cards)}{wild_text}"
    if isinstance(cmd, C.AddToMeld):
        return f"add {cards(cmd.cards)} to team {cmd.team} meld {cmd.index}{wild_text}"
    if isinstance(cmd, C.Discard):
        return f"discard {NAME[cmd.card]}"
    raise AssertionError(cmd)


def event_lines(e: E.Event, after: State) -> list[str]:
    rules = after.rules
    if isinstance(e, E.HandStarted):
        out = [f"hand {e.hand_no}, seat {e.first} plays first"]
        out += [f"  seat {s} holds {cards(h)}" for s, h in enumerate(e.hands)]
        out += [f"  muerto of team {t}: {cards(m)}" for t, m in enumerate(e.muertos)]
        out += [
            f"  stock ({len(e.stock)}, top first): {cards(e.stock)}",
            f"  pile: {cards(e.discard)}",
        ]
        return out
    if isinstance(e, E.Drew):
        return [f"drew {NAME[e.card]}"]
    if isinstance(e, E.TookPile):
        return [f"took {len(e.cards)} from the pile: {cards(e.cards)}"]
    if isinstance(e, E.Melded):
        index = len(after.melds[e.meld.owner]) - 1
        return [f"team {e.meld.owner} meld {index}: {meld_text(e.meld, rules)}"]
    if isinstance(e, E.Added):
        return [
            f"added {cards(e.cards)}: team {e.team} meld {e.index} is now "
            f"{meld_text(e.meld, rules)}"
        ]
    if isinstance(e, E.Discarded):
        return [f"discarded {NAME[e.card]}"]
    if isinstance(e, E.MuertoTaken):
        how = "directly" if e.direct else "after discarding (indirect)"
        return [f"seat {e.seat} takes team {e.team}'s muerto {how}: {cards(e.cards)}"]
    if isinstance(e, E.MuertoToStock):
        return [f"the stock runs low: team {e.team}'s muerto goes under it"]
    assert isinstance(e, E.HandEnded)
    who = f"team {e.closer} closes" if e.closer >= 0 else "nobody closes"
    out = [f"hand over ({e.reason}): {who}"]
    for team, s in enumerate(e.scores):
        out.append(
            f"  team {team}: table {s['table']}, canastas {', '.join(s['canastas']) or '-'} "
            f"(+{s['canasta_bonus']}), closing +{s['close_bonus']}, hand {s['hand']}, "
            f"muerto {s['muerto_penalty']} = {s['total']}"
        )
    out.append(
        f"  winner: team {e.winner}; totals {' / '.join(map(str, e.totals))}"
        + (f"; match over, team {e.match_winner} wins" if e.match_over else "")
    )
    return out


def final_lines(state: State) -> list[str]:
    out = ["at the end:"]
    out += [f"  seat {s} holds {cards(h)}" for s, h in enumerate(state.hands)]
    for team, melds in enumerate(state.melds):
        for i, m in enumerate(melds):
            out.append(f"  team {team} meld {i}: {meld_text(m, state.rules)}")
    out += [
        f"  pile: {cards(state.discard)}",
        f"  stock: {len(state.stock)} cards",
        f"  turns: {state.turns}",
    ]
    return out


def bots_for(kinds: tuple[str, ...], seed: int) -> list[Bot]:
    return [
        GreedyBot() if k == "greedy" else RandomBot(random.Random(seed * 10 + s))
        for s, k in enumerate(kinds)
    ]


def play(name: str, recorded: list[dict[str, Any]] | None) -> tuple[str, list[dict[str, Any]]]:
    """The hand's text and its commands: replayed from ``recorded``, else chosen by bots."""
    preset, kinds, seed = GAMES[name]
    rules = make_ruleset(preset, len(kinds))
    first = seed % len(kinds)
    deal = random_deal(rules, first, random.Random(seed))
    lines = [
        f"# {name}: {preset}, {len(kinds)} players, seed {seed}",
        "# seats: " + ", ".join(f"{s} {k}" for s, k in enumerate(kinds)),
    ]
    events, state = apply(initial_state(rules), C.SYSTEM, deal)
    for e in events:
        lines += event_lines(e, state)
    bots = bots_for(kinds, seed)
    commands: list[dict[str, Any]] = []
    turn = 0
    while state.phase in (DRAW, PLAY):
        seat = state.turn
        if state.phase == DRAW:
            turn += 1
            lines.append(
                f"turn {turn}: seat {seat} (team {rules.team_of(seat)}), "
                f"hand {len(state.hands[seat])}, stock {len(state.stock)}, "
                f"pile {len(state.discard)}"
            )
        if recorded is None:
            cmd = bots[seat].choose(state, seat)
        else:
            assert len(commands) < len(recorded), "the recorded commands ran out"
            step = recorded[len(commands)]
            assert step["seat"] == seat, f"recorded seat {step['seat']}, turn of {seat}"
            cmd = command_from_dict(step["command"])
        commands.append({"seat": seat, "command": command_to_dict(cmd)})
        events, state = apply(state, seat, cmd)
        lines.append(f"  > {command_text(cmd)}")
        for e in events:
            lines += ["    " + line for line in event_lines(e, state)]
    if recorded is not None:
        assert len(commands) == len(recorded), "the hand ended before the recorded commands"
    lines += final_lines(state)
    return "\n".join(lines) + "\n", commands


@pytest.mark.parametrize("name", list(GAMES))
def test_golden_playthrough(name: str) -> None:
    text_path = GOLDEN / f"{name}.txt"
    json_path = GOLDEN / f"{name}.json"
    if UPDATE:
        text, commands = play(name, None)
        GOLDEN.mkdir(exist_ok=True)
        text_path.write_text(text, encoding="utf-8")
        json_path.write_text(json.dumps(commands, indent=0) + "\n", encoding="utf-8")
    assert json_path.exists() and text_path.exists(), "run with UPDATE_GOLDEN=1 to create"
    recorded = json.loads(json_path.read_text(encoding="utf-8"))
    text, _ = play(name, recorded)
    expected = text_path.read_text(encoding="utf-8")
    if text != expected:
        diff = "\n".join(
            f"line {i + 1}:\n  golden: {a}\n  now:    {b}"
            for i, (a, b) in enumerate(zip(expected.splitlines(), text.splitlines(), strict=False))
            if a != b
        )
        lengths = len(expected.splitlines()), len(text.splitlines())
        if lengths[0] != lengths[1]:
            diff += f"\n{lengths[0]} golden lines, {lengths[1]} now"
        pytest.fail(
            f"{name} differs from its golden text (UPDATE_GOLDEN=1 rewrites it)\n{diff[:3000]}"
        )


def test_golden_games_cover_presets_and_lineups() -> None:
    presets = {p for p, _, _ in GAMES.values()}
    players = {len(k) for _, k, _ in GAMES.values()}
    assert len(presets) >= 4 and {2, 4} <= players
    assert any(set(k) == {"greedy"} for _, k, _ in GAMES.values())
    assert any(set(k) == {"greedy", "random"} for _, k, _ in GAMES.values())


def test_golden_hands_end() -> None:
    """Every recorded game is a full hand: it ends with the hand-over summary."""
    for name in GAMES:
        path = GOLDEN / f"{name}.txt"
        if path.exists():
            text = path.read_text(encoding="utf-8")
            assert "hand over (" in text and "winner: team" in text, name
