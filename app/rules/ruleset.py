"""Rule sets: every option of docs/rules-reference.md (part 3), the eight presets, host
overrides."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from .errors import RuleViolation

DISCARD_PILES = ("open", "closed", "any_depth")
ACE_TO_ACE = ("allowed", "wild_end_only", "no")
CLOSE_REQUIRES = ("clean", "any")
CARD_POINTS = ("standard", "face")


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One table's rules. Frozen: a table keeps the rules it started with."""

    preset: str = "custom"
    players: int = 2
    pairs: bool = True  # with 4 players: partners sit opposite (team = seat % 2)
    jokers: int = 4
    groups: bool = True
    group_distinct_suits: bool = False
    group_max: int = 0  # most cards in a group, wild included; 0 = no limit
    one_group_per_rank: bool = False
    discard_pile: str = "open"
    single_take_no_discard: bool = False
    ace_to_ace: str = "allowed"
    royal: bool = True
    semi_clean: bool = False
    close_requires: str = "clean"
    go_out_by_meld: bool = True
    muertos: int = 2
    muerto_unused_penalty: bool = True
    stock_end: int = 0
    card_points: str = "standard"
    two_points: int = 10
    joker_points: int = 20
    wild_relocation: bool = True
    add_to_any_meld: bool = False
    target_score: int = 0  # 0 = a single hand
    hand_size: int = 11
    muerto_size: int = 11
    close_bonus: int = 100
    muerto_penalty: int = 100

    @property
    def teams(self) -> int:
        return 2 if self.players == 4 and self.pairs else self.players

    def team_of(self, seat: int) -> int:
        return seat % 2 if self.players == 4 and self.pairs else seat

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(RuleSet) if f.name != "preset")

_BASE = RuleSet()
PRESETS: dict[str, RuleSet] = {
    "abierto": replace(
        _BASE,
        preset="abierto",
        jokers=0,
        groups=False,
        discard_pile="open",
        ace_to_ace="allowed",
        royal=True,
        close_requires="clean",
        go_out_by_meld=True,
        two_points=10,
    ),
    "abierto_sucio": replace(
        _BASE,
        preset="abierto_sucio",
        groups=True,
        single_take_no_discard=True,
        ace_to_ace="wild_end_only",
        royal=False,
        semi_clean=True,
        close_requires="any",
        go_out_by_meld=False,
        muerto_unused_penalty=False,
        two_points=20,
        joker_points=30,
    ),
    "cerrado": replace(_BASE, preset="cerrado", discard_pile="closed"),
    "cerrado_sucio": replace(
        _BASE, preset="cerrado_sucio", discard_pile="closed", close_requires="any"
    ),
    "cerrado_stcl": replace(_BASE, preset="cerrado_stcl", discard_pile="closed", groups=False),
    "burraco": replace(
        _BASE,
        preset="burraco",
        single_take_no_discard=True,
        ace_to_ace="wild_end_only",
        royal=False,
        semi_clean=True,
        close_requires="any",
        go_out_by_meld=False,
        muerto_unused_penalty=False,
        two_points=20,
        joker_points=30,
    ),
    "burako": replace(
        _BASE,
        preset="burako",
        one_group_per_rank=True,
        ace_to_ace="no",
        royal=False,
        close_requires="any",
        stock_end=2,
        two_points=20,
        joker_points=50,
    ),
    "brasil": replace(
        _BASE,
        preset="brasil",
        pairs=False,
        group_distinct_suits=True,
        group_max=4,
        discard_pile="any_depth",
        ace_to_ace="no",
        royal=False,
        go_out_by_meld=False,
        muertos=0,
        muerto_unused_penalty=False,
        card_points="face",
        two_points=20,
        joker_points=20,
        wild_relocation=False,
        add_to_any_meld=True,
        target_score=3000,
    ),
}

# Player counts each preset is offered with (docs/rules-reference.md, row "players").
PRESET_PLAYERS: dict[str, tuple[int, ...]] = {
    name: ((2, 3, 4) if name == "brasil" else (2, 4)) for name in PRESETS
}

_ALIASES = {"any canasta": "any", "any_canasta": "any"}


def _coerce(option: str, value: Any, kind: type) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise RuleViolation("bad_option", f"option {option} takes true or false")
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if value is None and option == "target_score":
                return 0
            raise RuleViolation("bad_option", f"option {option} takes a whole number")
        return value
    if not isinstance(value, str):
        raise RuleViolation("bad_option", f"option {option} takes a word")
    return _ALIASES.get(value, value)


_KINDS = {f.name: type(getattr(_BASE, f.name)) for f in fields(RuleSet)}


def make_ruleset(
    preset: str, players: object = None, overrides: dict[str, Any] | None = None
) -> RuleSet:
    """The preset's rules with the host's overrides, validated as a whole. (``players``
    is typed ``object`` so that a wrong type is a ``bad_option`` here, compiled or not:
    mypyc would refuse a string with a TypeError and turn True into 1.)"""
    base = PRESETS.get(preset)
    if base is None:
        raise RuleViolation("unknown_preset", f"there is no modality called {preset!r}")
    changes: dict[str, Any] = {}
    if players is not None:
        changes["players"] = _coerce("players", players, int)
    for option, value in (overrides or {}).items():
        if option not in _KINDS or option == "preset":
            raise RuleViolation("unknown_option", f"there is no rule option called {option!r}")
        changes[option] = _coerce(option, value, _KINDS[option])
    rules = replace(base, **changes)
    validate(rules)
    return rules


def validate(r: RuleSet) -> None:
    """Refuse combinations that cannot be played, each with a clear reason."""

    def bad(message: str) -> None:
        raise RuleViolation("inconsistent_rules", message)

    if r.players not in (2, 3, 4):
        bad("a table has 2, 3 or 4 players")
    if r.jokers not in (0, 4):
        bad("the deck has either 4 jokers or none")
    if r.discard_pile not in DISCARD_PILES:
        bad(f"discard_pile must be one of {', '.join(DISCARD_PILES)}")
    if r.ace_to_ace not in ACE_TO_ACE:
        bad(f"ace_to_ace must be one of {', '.join(ACE_TO_ACE)}")
    if r.close_requires not in CLOSE_REQUIRES:
        bad("close_requires must be clean or any (any canasta)")
    if r.card_points not in CARD_POINTS:
        bad("card_points must be standard or face")
    if r.muertos not in (0, r.teams):
        bad(f"muertos must be 0 or one per side ({r.teams})")
    if r.group_max and r.group_max < 3:
        bad("a group needs room for at least 3 cards")
    if r.group_max and r.group_distinct_suits and r.group_max > 5:
        bad("a group of distinct suits holds at most 4 naturals and a wild")
    if not 1 <= r.hand_size <= 20:
        bad("hand_size must be between 1 and 20")
    if r.muertos and not 1 <= r.muerto_size <= 20:
        bad("muerto_size must be between 1 and 20")
    if r.stock_end < 0 or r.stock_end > 20:
        bad("stock_end must be between 0 and 20")
    if r.target_score < 0 or r.target_score > 100_000:
        bad("target_score must be 0 (single hand) or a positive score up to 100000")
    for option in ("two_points", "joker_points", "close_bonus", "muerto_penalty"):
        if not 0 <= getattr(r, option) <= 1000:
            bad(f"{option} must be between 0 and 1000")
    deck = 104 + r.jokers
    dealt = r.players * r.hand_size + r.muertos * r.muerto_size
    if dealt + r.stock_end + 1 > deck:
        bad("the deal needs more cards than the deck holds")


def ruleset_from_dict(data: dict[str, Any]) -> RuleSet:
    # Fast path (every state parse passes here): the items in the order they came, which
    # for a dict written by to_dict is always the same; else the order-free key.
    key = tuple(data.items())
    rules = _CACHE.get(key)
    if rules is None:
        rules = _from_dict_cached(tuple(sorted(data.items())))
        if len(_CACHE) < 1024:
            _CACHE[key] = rules
    return rules


_CACHE: dict[tuple[tuple[str, Any], ...], RuleSet] = {}


def _from_dict_cached(key: tuple[tuple[str, Any], ...]) -> RuleSet:
    rules = _CACHE.get(key)
    if rules is None:
        rules = RuleSet(**dict(key))
        validate(rules)
        if len(_CACHE) < 1024:
            _CACHE[key] = rules
    return rules
