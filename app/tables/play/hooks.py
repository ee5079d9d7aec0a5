"""The economy's hooks into the live tables.

The tables call these at fixed points; the economy (app/economy) implements them with
Postgres. ``FreeTables`` allows everything and moves no money: the default until the
economy is wired in, and what tests of table mechanics use.

Every method is idempotent for the same arguments, so a retried or raced call changes
nothing twice. Failures are ``AppError``s with stable codes (e.g. ``insufficient_funds``,
``level_too_low``, ``no_credits``), which the tables pass on to the player unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class GameResult:
    game_id: str
    table_id: str
    preset: str
    bet: int
    # people only (bots stake nothing), by user id: their team, and whether they abandoned
    teams: dict[int, int]
    abandoned: frozenset[int]
    winner_team: int | None  # None when the game was voided
    bots: int  # how many seats bots played (to stop farming coins or XP against bots)


class TableHooks(Protocol):
    async def charge_special_table(self, user_id: int, table_id: str) -> None:
        """Creating a special table (pairs, turbo, private): level 2 and 1 credit."""

    async def refund_special_table(self, user_id: int, table_id: str) -> None:
        """The special table never started: give the credit back."""

    async def reserve_seat(self, user_id: int, table_id: str, bet: int) -> None:
        """Sitting needs ``bet`` coins available; hold them for this table."""

    async def release_seat(self, user_id: int, table_id: str) -> None:
        """The player stood up (or the table closed) before the game started."""

    async def start_game(
        self, game_id: str, table_id: str, bet: int, users: list[int]
    ) -> list[int]:
        """Move every held stake to the game's escrow, all or none. Returns the users who
        could not pay (then nothing moved and the game does not start)."""

    async def abort_start(self, result: GameResult) -> bool:
        """A start failed at some step (``result`` is void): refund what it escrowed and
        release every hold of ``result.teams`` at the table, in one transaction. True
        when anything moved back. Idempotent."""

    async def settle_game(self, result: GameResult) -> None:
        """Pay the pot once (keyed by the game id): winners, forfeits, or refunds on void."""


class FreeTables:
    """Everything allowed, nothing charged."""

    async def charge_special_table(self, user_id: int, table_id: str) -> None:
        return None

    async def refund_special_table(self, user_id: int, table_id: str) -> None:
        return None

    async def reserve_seat(self, user_id: int, table_id: str, bet: int) -> None:
        return None

    async def release_seat(self, user_id: int, table_id: str) -> None:
        return None

    async def start_game(
        self, game_id: str, table_id: str, bet: int, users: list[int]
    ) -> list[int]:
        return []

    async def abort_start(self, result: GameResult) -> bool:
        return False

    async def settle_game(self, result: GameResult) -> None:
        return None
