"""Rule sets: the presets carry the values of RULES.md section 9, the host may override
any option, and unknown or inconsistent options are refused with a stable code."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest

from app.rules.errors import RuleViolation
from app.rules.ruleset import (
    OPTION_NAMES,
    PRESET_PLAYERS,
    PRESETS,
    RuleSet,
    make_ruleset,
    ruleset_from_dict,
)

COLUMNS = [
    "abierto",
    "abierto_sucio",
    "cerrado",
    "cerrado_sucio",
    "cerrado_stcl",
    "burraco",
    "burako",
    "brasil",
]

# RULES.md section 9, transcribed row by row (one value per column above). ``None`` is
# the table's "-": the option does not apply to that preset and is not compared.
# "single hand" is target_score 0; "any canasta" is close_requires "any"; "no" group max
# is group_max 0 (no limit).
TABLE: dict[str, list[Any]] = {
    "players": [(2, 4)] * 7 + [(2, 3, 4)],
    "pairs": [True] * 7 + [False],
    "jokers": [0, 4, 4, 4, 4, 4, 4, 4],
    "groups": [False, True, True, True, False, True, True, True],
    "group_distinct_suits": [False, False, False, False, None, False, False, True],
    "group_max": [0, 0, 0, 0, None, 0, 0, 4],
    "one_group_per_rank": [False, False, False, False, None, False, True, False],
    "discard_pile": ["open", "open", "closed", "closed", "closed", "open", "open", "any_depth"],
    "single_take_no_discard": [False, True, False, False, False, True, False, False],
    "ace_to_ace": [
        "allowed",
        "wild_end_only",
        "allowed",
        "allowed",
        "allowed",
        "wild_end_only",
        "no",
        "no",
    ],
    "royal": [True, False, True, True, True, False, False, False],
    "semi_clean": [False, True, False, False, False, True, False, False],
    "close_requires": ["clean", "any", "clean", "any", "clean", "any", "any", "clean"],
    "go_out_by_meld": [True, False, True, True, True, False, True, False],
    "muertos": [2, 2, 2, 2, 2, 2, 2, 0],
    "muerto_unused_penalty": [True, False, True, True, True, False, True, None],
    "stock_end": [0, 0, 0, 0, 0, 0, 2, 0],
    "two_points": [10, 20, 10, 10, 10, 20, 20, 20],
    "joker_points": [None, 30, 20, 20, 20, 30, 50, 20],  # abierto deals no jokers
    "wild_relocation": [True, True, True, True, True, True, True, False],
    "add_to_any_meld": [False, False, False, False, False, False, False, True],
    "target_score": [0, 0, 0, 0, 0, 0, 0, 3000],
    # Section 8: brasil counts number cards at face value; every other preset 5 / 10.
    "card_points": ["standard"] * 7 + ["face"],
}
# Section 4 and 8: the same for every preset.
COMMON = {"hand_size": 11, "muerto_size": 11, "close_bonus": 100, "muerto_penalty": 100}


def _cases() -> list[tuple[str, str, Any]]:
    out = []
    for option, values in TABLE.items():
        for preset, value in zip(COLUMNS, values, strict=True):
            if value is not None:
                out.append((preset, option, value))
    return out


def test_the_table_covers_every_preset_and_option() -> None:
    assert set(PRESETS) == set(COLUMNS)
    covered = set(TABLE) | set(COMMON) | {"players", "pairs"}
    missing = set(OPTION_NAMES) - covered
    assert not missing, f"options of RuleSet not in the section 9 table: {missing}"


@pytest.mark.parametrize(("preset", "option", "value"), _cases())
def test_preset_value(preset: str, option: str, value: Any) -> None:
    if option == "players":
        assert PRESET_PLAYERS[preset] == value
        for n in value:
            assert make_ruleset(preset, n).players == n
        return
    assert getattr(PRESETS[preset], option) == value
    assert getattr(make_ruleset(preset), option) == value


@pytest.mark.parametrize("preset", COLUMNS)
def test_common_values_and_name(preset: str) -> None:
    rules = PRESETS[preset]
    assert rules.preset == preset
    for option, value in COMMON.items():
        assert getattr(rules, option) == value, option


@pytest.mark.parametrize("preset", COLUMNS)
def test_teams(preset: str) -> None:
    for n in PRESET_PLAYERS[preset]:
        rules = make_ruleset(preset, n)
        if n == 4 and preset != "brasil":
            assert rules.teams == 2
            assert [rules.team_of(s) for s in range(4)] == [0, 1, 0, 1]  # partners opposite
        else:
            assert rules.teams == n
            assert [rules.team_of(s) for s in range(n)] == list(range(n))


@pytest.mark.parametrize("preset", COLUMNS)
def test_every_option_can_be_overridden(preset: str) -> None:
    """Seed 004: the host may change any rule (each override alone, where consistent)."""
    base = PRESETS[preset]
    flips: dict[str, Any] = {
        "groups": not base.groups,
        "single_take_no_discard": not base.single_take_no_discard,
        "royal": not base.royal,
        "semi_clean": not base.semi_clean,
        "go_out_by_meld": not base.go_out_by_meld,
        "muerto_unused_penalty": not base.muerto_unused_penalty,
        "wild_relocation": not base.wild_relocation,
        "add_to_any_meld": not base.add_to_any_meld,
        "one_group_per_rank": not base.one_group_per_rank,
        "discard_pile": "closed" if base.discard_pile != "closed" else "open",
        "ace_to_ace": "no" if base.ace_to_ace != "no" else "allowed",
        "close_requires": "any" if base.close_requires == "clean" else "clean",
        "stock_end": base.stock_end + 3,
        "two_points": 15,
        "joker_points": 40,
        "target_score": 2000,
        "close_bonus": 300,
        "muerto_penalty": 50,
        "hand_size": 9,
        "jokers": 4 if base.jokers == 0 else 0,
        "card_points": "face" if base.card_points == "standard" else "standard",
    }
    for option, value in flips.items():
        rules = make_ruleset(preset, None, {option: value})
        assert getattr(rules, option) == value, option
        # nothing else moved
        for f in fields(RuleSet):
            if f.name != option:
                assert getattr(rules, f.name) == getattr(base, f.name), (option, f.name)


def test_overrides_combine_and_aliases() -> None:
    rules = make_ruleset(
        "cerrado",
        4,
        {"close_requires": "any canasta", "target_score": None, "pairs": False, "muertos": 4},
    )
    assert rules.close_requires == "any"
    assert rules.target_score == 0
    assert rules.teams == 4 and rules.team_of(3) == 3
    assert make_ruleset("brasil", 2, {"muertos": 2}).muertos == 2
    assert make_ruleset("cerrado", 2, {"close_requires": "any_canasta"}).close_requires == "any"


def _code(preset: str, players: int | None, overrides: dict[str, Any] | None) -> str:
    with pytest.raises(RuleViolation) as info:
        make_ruleset(preset, players, overrides)
    assert info.value.message and isinstance(info.value.message, str)
    return info.value.code


@pytest.mark.parametrize("preset", ["canasta", "", "Cerrado", "custom"])
def test_unknown_preset(preset: str) -> None:
    assert _code(preset, None, None) == "unknown_preset"


@pytest.mark.parametrize("option", ["jokerz", "preset", "teams", "", "Groups"])
def test_unknown_option(option: str) -> None:
    assert _code("cerrado", None, {option: 1}) == "unknown_option"


@pytest.mark.parametrize(
    ("overrides", "players"),
    [
        ({"groups": "yes"}, None),
        ({"groups": 1}, None),
        ({"two_points": "20"}, None),
        ({"two_points": True}, None),
        ({"two_points": 2.5}, None),
        ({"discard_pile": 1}, None),
        ({"close_requires": None}, None),
        ({"hand_size": None}, None),
        ({}, "4"),
        ({}, True),
    ],
)
def test_bad_option_types(overrides: dict[str, Any], players: Any) -> None:
    assert _code("cerrado", players, overrides) == "bad_option"


@pytest.mark.parametrize(
    ("preset", "players", "overrides"),
    [
        ("cerrado", 3, None),  # two muertos cannot serve three sides
        ("cerrado", 5, None),
        ("brasil", 1, None),
        ("abierto", 6, None),
        ("cerrado", None, {"jokers": 2}),
        ("cerrado", None, {"discard_pile": "sideways"}),
        ("cerrado", None, {"ace_to_ace": "sometimes"}),
        ("cerrado", None, {"close_requires": "dirty"}),
        ("cerrado", None, {"card_points": "double"}),
        ("cerrado", None, {"muertos": 1}),
        ("cerrado", 4, {"muertos": 4}),  # pairs: two sides, so two muertos
        ("cerrado", None, {"group_max": 2}),
        ("brasil", None, {"group_max": 6}),
        ("cerrado", None, {"hand_size": 0}),
        ("cerrado", None, {"hand_size": 21}),
        ("cerrado", None, {"muerto_size": 0}),
        ("cerrado", None, {"stock_end": -1}),
        ("cerrado", None, {"stock_end": 21}),
        ("cerrado", None, {"target_score": -5}),
        ("cerrado", None, {"two_points": -1}),
        ("cerrado", None, {"close_bonus": 5000}),
        ("cerrado", 4, {"hand_size": 20, "muerto_size": 20}),  # more cards than the deck
        ("abierto", 4, {"hand_size": 20, "muerto_size": 12}),  # 104 cards: 80+24+1 > 104
    ],
)
def test_inconsistent_rules(preset: str, players: int | None, overrides: Any) -> None:
    assert _code(preset, players, overrides) == "inconsistent_rules"


def test_the_deal_bound_is_exact() -> None:
    """The last deal that fits is accepted: 4 x 20 + 2 x 11 + 1 = 103 <= 104 (abierto)."""
    assert make_ruleset("abierto", 4, {"hand_size": 20, "muerto_size": 11}).hand_size == 20
    # the same with jokers (108 cards) fits where the 104-card deck does not
    assert make_ruleset("cerrado", 4, {"hand_size": 20, "muerto_size": 12}).muerto_size == 12
    # 108 cards: 4 x 20 + 2 x 13 + stock_end 1 + 1 = 108
    rules = make_ruleset("cerrado", 4, {"hand_size": 20, "muerto_size": 13, "stock_end": 1})
    assert rules.muerto_size == 13
    assert (
        _code("cerrado", 4, {"hand_size": 20, "muerto_size": 13, "stock_end": 2})
        == "inconsistent_rules"
    )


@pytest.mark.parametrize("preset", COLUMNS)
def test_dict_round_trip(preset: str) -> None:
    for n in PRESET_PLAYERS[preset]:
        rules = make_ruleset(preset, n, {"target_score": 1500})
        assert ruleset_from_dict(rules.to_dict()) == rules


def test_from_dict_validates() -> None:
    data = make_ruleset("cerrado").to_dict()
    data["jokers"] = 3
    with pytest.raises(RuleViolation) as info:
        ruleset_from_dict(data)
    assert info.value.code == "inconsistent_rules"


def test_rulesets_are_frozen() -> None:
    rules = make_ruleset("cerrado")
    with pytest.raises(AttributeError):
        rules.groups = False  # type: ignore[misc]
