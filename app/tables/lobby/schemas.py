"""Request bodies and responses of the table endpoints.

The responses allow fields they do not name (``extra="allow"``): a table's meta grows
with the game (bot strength, presence...), and a field added there reaches clients
without a second edit here; OpenAPI still names and types every field listed."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from app.core.text import TableName
from app.rules.ruleset import (
    ACE_TO_ACE,
    CARD_POINTS,
    CLOSE_REQUIRES,
    DISCARD_PILES,
    PRESET_PLAYERS,
    PRESETS,
    RuleSet,
)
from app.tables.storage.meta import MIN_BET, BotStrength, Status

MAX_BET = 1_000_000_000

Preset = str
# OpenAPI lists the modalities (the validators below enforce them).
PRESET_ENUM: dict[str, Any] = {"enum": list(PRESETS)}


# What each rule option takes (docs/rules-reference.md, part 3), for OpenAPI;
# make_ruleset checks the values again and the options as a whole (e.g. the deal must fit
# the deck: 422 inconsistent_rules, the one refusal this schema cannot express).
_OPTION_LIMITS: dict[str, dict[str, Any]] = {
    "jokers": {"enum": [0, 4]},
    "discard_pile": {"enum": list(DISCARD_PILES)},
    "ace_to_ace": {"enum": list(ACE_TO_ACE)},
    "close_requires": {"enum": list(CLOSE_REQUIRES)},
    "card_points": {"enum": list(CARD_POINTS)},
    "muertos": {"enum": [0, 2, 3, 4]},
    "group_max": {"enum": [0, 3, 4, 5, 6, 7, 8]},
    "hand_size": {"minimum": 1, "maximum": 20},
    "muerto_size": {"minimum": 1, "maximum": 20},
    "stock_end": {"minimum": 0, "maximum": 20},
    "target_score": {"minimum": 0, "maximum": 100_000},
    **{
        name: {"minimum": 0, "maximum": 1000}
        for name in ("two_points", "joker_points", "close_bonus", "muerto_penalty")
    },
}


def _rules_schema() -> dict[str, Any]:
    base, props = RuleSet(), {}
    for f in fields(RuleSet):
        if f.name in ("preset", "players"):  # set by the request's own fields
            continue
        value = getattr(base, f.name)
        kind = (
            "boolean"
            if isinstance(value, bool)
            else "integer"
            if isinstance(value, int)
            else "string"
        )
        props[f.name] = {"type": kind, **_OPTION_LIMITS.get(f.name, {})}
    return {"type": "object", "properties": props, "additionalProperties": False}


def _players_schema(seat: bool) -> dict[str, Any]:
    """Players by modality (brasil 2-4, the others 2 or 4), and a seat that exists."""
    rules: list[dict[str, Any]] = [
        {
            "if": {
                "properties": {
                    "preset": {
                        "not": {
                            "enum": [
                                name for name, allowed in PRESET_PLAYERS.items() if 3 in allowed
                            ]
                        }
                    }
                }
            },
            "then": {"properties": {"players": {"enum": [2, 4]}}},
        },
    ]
    if seat:
        rules += [
            {
                "if": {"properties": {"players": {"const": n}}},
                "then": {"properties": {"seat": {"maximum": n - 1}}},
            }
            for n in (2, 3)
        ]
    return {"allOf": rules}


def _whole_numbers(rules: dict[str, Any]) -> dict[str, Any]:
    """JSON has one number type: 10.0 is the whole number the schema asks for."""
    return {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in rules.items()}


def _preset_ok(value: str) -> str:
    if value not in PRESETS:
        raise ValueError(f"unknown modality; choose one of {', '.join(PRESETS)}")
    return value


def _stake_ok(bet: int) -> int:
    if 0 < bet < MIN_BET:  # 0: no stakes, open to anyone (docs/economy.md, "Nobody locked out")
        raise ValueError(f"a bet is 0 (no stakes) or at least {MIN_BET}")
    return bet


def _stake_schema(schema: dict[str, Any]) -> None:
    """OpenAPI says what _stake_ok accepts: 0, or MIN_BET up to MAX_BET."""
    schema.pop("minimum", None)
    schema.pop("maximum", None)
    schema["anyOf"] = [{"const": 0}, {"minimum": MIN_BET, "maximum": MAX_BET}]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateTableIn(_Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra=_players_schema(seat=True))

    name: TableName = ""
    preset: str = Field(default="cerrado", json_schema_extra=PRESET_ENUM)
    players: int = Field(default=2, ge=2, le=4)
    rules: dict[str, Any] = Field(
        default_factory=dict,
        json_schema_extra=_rules_schema(),
        description="The options of docs/rules-reference.md, part 3; checked as a whole",
    )
    bet: int = Field(default=MIN_BET, ge=0, le=MAX_BET, json_schema_extra=_stake_schema)
    private: bool = False
    turbo: bool = False
    target_score: int | None = Field(default=None, ge=0, le=100_000)
    time_bank: int | None = Field(
        default=None,
        ge=0,
        le=300,
        description="Seconds of time bank per seat per hand; none: the server's default",
    )
    seat: int = Field(default=0, ge=0, le=3)

    _check_preset = field_validator("preset")(classmethod(lambda cls, v: _preset_ok(v)))
    _whole_numbers = field_validator("rules")(classmethod(lambda cls, v: _whole_numbers(v)))
    _stake = field_validator("bet")(classmethod(lambda cls, v: _stake_ok(v)))


class SitIn(_Strict):
    seat: int | None = Field(default=None, ge=0, le=3)


class QuickplayIn(_Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra=_players_schema(seat=False))
    preset: str = Field(default="cerrado", json_schema_extra=PRESET_ENUM)
    players: int = Field(default=2, ge=2, le=4)
    bots_after_seconds: float | None = Field(default=None, ge=0, le=600)
    bot_strength: BotStrength = "normal"
    match: StrictBool = Field(
        default=False,
        description="A match to the variant's target score (``match_targets`` of "
        "GET /api/lobby/options) instead of a single hand",
    )

    _check_preset = field_validator("preset")(classmethod(lambda cls, v: _preset_ok(v)))


class BotsIn(_Strict):
    bot_strength: BotStrength = "normal"


class InviteIn(_Strict):
    usernames: list[str] = Field(min_length=1, max_length=3)


class ChallengeIn(_Strict):
    username: str = Field(min_length=1, max_length=32)
    preset: str = Field(default="cerrado", json_schema_extra=PRESET_ENUM)
    bet: int = Field(default=MIN_BET, ge=MIN_BET, le=MAX_BET)
    turbo: bool = False
    target_score: int | None = Field(default=None, ge=0, le=100_000)

    _check_preset = field_validator("preset")(classmethod(lambda cls, v: _preset_ok(v)))


# ---------------------------------------------------------------- responses


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class SeatOut(_Out):
    user_id: int | None
    name: str
    bot: bool
    connected: bool = True
    timeouts: int = 0
    abandoned: bool = False


class HandOut(_Out):
    """A hand's fairness commitment; its deal and salt once the hand is over."""

    hand_no: int
    commitment: str
    deal: dict[str, Any] | None = None
    salt: str | None = None
    revealed: bool | None = None


class RematchOut(_Out):
    """A rematch offer (also pushed as the ``rematch`` message, docs/protocol.md)."""

    type: Literal["rematch"]
    table: str
    state: Literal["none", "open", "starting", "started", "declined", "expired", "failed"]
    accepted: list[int]
    waiting: list[int]
    deadline: float | None = None
    new_table: str | None = None
    code: str | None = None
    by: dict[str, Any] | None = None


class InvitationDeclinedOut(_Out):
    table: str
    declined: bool


class LockOut(_Out):
    locked: bool
    missing: list[Literal["level", "credits"]]
    needs: dict[str, int]


class OptionsOut(_Out):
    """What "Crear partida" may offer this player, and what a locked option needs."""

    level: int
    xp: int
    next_level_xp: int | None = None
    credits: int
    options: dict[str, LockOut]
    challenge: dict[str, Any]
    match_targets: dict[str, int] = Field(
        default_factory=dict, description="Quick play's match: the target score per variant"
    )
    time_bank: dict[str, float] = Field(
        default_factory=dict, description="The default time bank per hand: normal and turbo"
    )


class TableOut(_Out):
    id: str
    name: str
    host: int
    kind: str
    preset: str = Field(json_schema_extra=PRESET_ENUM)
    overrides: dict[str, Any]
    rules: dict[str, Any]
    players: int
    bet: int
    private: bool
    turbo: bool
    special: bool
    target_score: int
    seats: list[SeatOut | None]
    invited: list[int]
    status: Status
    created_at: float
    started_at: float | None
    game_id: str | None
    hands: list[HandOut]
    bots_after: float | None = None
    close_reason: str | None = None
    time_bank: float | None = None
    bank: dict[str, Any] | None = None
    free_seats: int
    turn_deadline: float | None = Field(default=None, description="GET /tables/{id} only")


class SeatSummaryOut(_Out):
    name: str
    bot: bool
    user_id: int | None


class TableSummaryOut(_Out):
    id: str
    name: str
    preset: str = Field(json_schema_extra=PRESET_ENUM)
    players: int
    bet: int
    turbo: bool
    private: bool
    kind: str
    status: Status
    target_score: int
    free_seats: int
    created_at: float
    seats: list[SeatSummaryOut | None]


class LobbyOut(_Out):
    tables: list[TableSummaryOut]
    min_bet: int


class SeatTakenOut(_Out):
    table: str
    seat: int | None


class LeftOut(_Out):
    table: str
    v: int
    abandoned: bool


class InvitedOut(_Out):
    table: str
    invited: list[int]


class DeclinedOut(_Out):
    table: str
    declined: bool


class GameOut(_Out):
    id: str
    table_id: str
    preset: str
    rules: dict[str, Any]
    seats: list[Any]
    bet: int
    hands: list[Any]
    events: list[Any]
    totals: Any
    winner_team: int | None
    status: str
    started_at: str
    ended_at: str


class VerifiedHandOut(_Out):
    hand_no: int
    commitment: str
    recomputed: str
    ok: bool
    deal: dict[str, Any]
    salt: str


class VerifyOut(_Out):
    game_id: str
    ok: bool
    hands: list[VerifiedHandOut]


class MyResultOut(_Out):
    """The caller's own result of a finished game (the end sheet)."""

    game_id: str
    settled: bool = Field(description="False until the settlement has committed")
    outcome: str | None = Field(description="win, loss, abandon or void")
    coins_delta: int = Field(description="Coins won (positive) or lost (negative)")
    xp_gained: int
    bet: int
    with_bots: bool
    level: int
    xp: int = Field(description="The player's XP now, this game's included")
    level_xp: int = Field(description="XP at which the current level began")
    next_level_xp: int | None
