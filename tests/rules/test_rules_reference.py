"""docs/rules-reference.md tells each preset's options: its table must say what
``app/rules/ruleset.py`` plays, so the reference and the engine cannot drift apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.rules.ruleset import OPTION_NAMES, PRESET_PLAYERS, PRESETS

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "rules-reference.md"
# Options every preset shares, told in a sentence above the table rather than in rows.
SHARED = {"hand_size": 11, "muerto_size": 11, "close_bonus": 100, "muerto_penalty": 100}


def _preset_table() -> dict[str, dict[str, str]]:
    """The table whose header row is ``| option | abierto | ...``: option -> preset -> cell."""
    lines = REFERENCE.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| option | abierto |"))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    table: dict[str, dict[str, str]] = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        table[cells[0].strip("`").removesuffix("` offered")] = dict(
            zip(header[1:], cells[1:], strict=True)
        )
    return table


def _cell(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def test_the_table_has_every_preset_and_every_option() -> None:
    table = _preset_table()
    assert set(next(iter(table.values()))) == set(PRESETS)
    assert set(table) | set(SHARED) == set(OPTION_NAMES)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_presets_column_is_what_the_engine_plays(preset: str) -> None:
    rules = PRESETS[preset]
    table = _preset_table()
    for option, row in table.items():
        told = row[preset]
        if option == "players":
            assert told == ", ".join(str(n) for n in PRESET_PLAYERS[preset])
            continue
        # a note in brackets may follow the value ("20 (no jokers)")
        assert told.split(" (")[0] == _cell(getattr(rules, option)), (option, told)
    for option, value in SHARED.items():
        assert getattr(rules, option) == value, option
