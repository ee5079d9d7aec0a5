"""What creates a tournament, and what the API answers (docs/tournaments.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.tournaments import prizes

Format = Literal["knockout", "swiss"]
# The rule sets a tournament may be played with (app/rules/ruleset.py PRESETS).
Preset = Literal[
    "burraco", "abierto", "abierto_sucio", "cerrado", "cerrado_sucio", "cerrado_stcl", "burako"
]
MAX_BUY_IN = 1_000_000_000


class SitGoIn(BaseModel):
    """A Sit & Go opened by a player: starts when full."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field("Sit & Go", min_length=1, max_length=60)
    format: Format = "knockout"
    players: Literal[2, 4] = 2  # 2: one against one; 4: pairs
    preset: Preset = "burraco"
    entrants: Literal[4, 8, 16] = 8  # sides: players at 2, pairs at 4
    buy_in: int = Field(0, ge=0, le=MAX_BUY_IN)
    rounds: int = Field(0, ge=0, le=15)  # Swiss only; 0: log2(entrants) + 1
    hands: int = Field(2, ge=1, le=10)
    round_seconds: int = Field(1200, ge=30, le=7200)
    duplicate: bool = False
    allow_bots: bool = False
    bot_fill_seconds: int = Field(60, ge=5, le=3600)
    turbo: bool = False


class ScheduledIn(BaseModel):
    """A scheduled tournament, created by an operator."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=60)
    format: Format = "swiss"
    players: Literal[2, 4] = 2
    preset: Preset = "burraco"
    min_entrants: int = Field(4, ge=2, le=512)
    max_entrants: int = Field(64, ge=2, le=512)
    buy_in: int = Field(0, ge=0, le=MAX_BUY_IN)
    fee_bps: int | None = Field(None, ge=0, le=5_000)  # None: BURACO_TOURNAMENT_FEE_BPS
    guaranteed: int = Field(0, ge=0, le=MAX_BUY_IN)
    prize_table: list[int] | None = None  # shares in 1/100 %, summing to 10,000
    rounds: int = Field(5, ge=1, le=15)
    hands: int = Field(2, ge=1, le=10)
    round_seconds: int = Field(1800, ge=30, le=7200)
    duplicate: bool = False
    turbo: bool = False
    starts_at: datetime
    registration_opens_at: datetime | None = None
    late_registration_seconds: int = Field(0, ge=0, le=7200)

    @model_validator(mode="after")
    def _consistent(self) -> ScheduledIn:
        if self.min_entrants > self.max_entrants:
            raise ValueError("min_entrants must not exceed max_entrants")
        if self.prize_table is not None and not prizes.valid_table(self.prize_table):
            raise ValueError("prize_table: positive shares summing to 10000")
        if self.starts_at.tzinfo is None:
            raise ValueError("starts_at needs a time zone (e.g. 2026-12-05T20:00:00Z)")
        if self.late_registration_seconds and (self.format != "swiss" or self.players != 2):
            raise ValueError("late registration is for one-against-one Swiss tournaments only")
        return self


class TournamentOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: int
    kind: str
    format: str
    name: str
    state: str
    players: int
    preset: str
    entrants: int
    max_entrants: int
    min_entrants: int
    buy_in: int
    pool: int
    prizes: list[int]
    rounds: int
    hands: int
    round_seconds: int
    current_round: int
    duplicate: bool
    allow_bots: bool
    starts_at: datetime | None
    registration_open: bool
    registered: bool = False
    fee_bps: int = 0
    guaranteed: int = 0
    late_registration_seconds: int = 0
    turbo: bool = False
    started_at: datetime | None = None
    finished_at: datetime | None = None
    version: int = 0  # grows with every change: the live frames carry it too


class DetailOut(TournamentOut):
    entrants_list: list[dict[str, Any]]
    standings: list[dict[str, Any]]
    rounds_list: list[dict[str, Any]]
    payouts: list[dict[str, Any]]
