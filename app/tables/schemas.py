"""Request bodies of the table endpoints."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.core.text import TableName
from app.rules.ruleset import PRESETS
from app.tables.meta import MIN_BET, BotStrength

MAX_BET = 1_000_000_000

Preset = str


def _preset_ok(value: str) -> str:
    if value not in PRESETS:
        raise ValueError(f"unknown modality; choose one of {', '.join(PRESETS)}")
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateTableIn(_Strict):
    name: TableName = ""
    preset: str = "cerrado"
    players: int = Field(default=2, ge=2, le=4)
    rules: dict[str, Any] = Field(default_factory=dict, description="RULES.md section 9 options")
    bet: int = Field(default=MIN_BET, ge=MIN_BET, le=MAX_BET)
    private: bool = False
    turbo: bool = False
    target_score: int | None = Field(default=None, ge=0, le=100_000)
    seat: int = Field(default=0, ge=0, le=3)

    _check_preset = field_validator("preset")(classmethod(lambda cls, v: _preset_ok(v)))


class SitIn(_Strict):
    seat: int | None = Field(default=None, ge=0, le=3)


class QuickplayIn(_Strict):
    preset: str = "cerrado"
    players: int = Field(default=2, ge=2, le=4)
    bots_after_seconds: float | None = Field(default=None, ge=0, le=600)
    bot_strength: BotStrength = "normal"

    _check_preset = field_validator("preset")(classmethod(lambda cls, v: _preset_ok(v)))


class BotsIn(_Strict):
    bot_strength: BotStrength = "normal"


class InviteIn(_Strict):
    usernames: list[str] = Field(min_length=1, max_length=3)


class ChallengeIn(_Strict):
    username: str = Field(min_length=1, max_length=32)
    preset: str = "cerrado"
    bet: int = Field(default=MIN_BET, ge=MIN_BET, le=MAX_BET)
    turbo: bool = False
    target_score: int | None = Field(default=None, ge=0, le=100_000)

    _check_preset = field_validator("preset")(classmethod(lambda cls, v: _preset_ok(v)))
