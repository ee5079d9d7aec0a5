"""Finished games for the rating tests, archived the way the table service does it."""

from __future__ import annotations

import itertools
import time
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.ratings.models import Rating, RatingEvent
from app.ratings.service import RatedArchive
from app.rules.ruleset import PRESETS
from app.tables.storage.archive import GameArchive
from app.tables.storage.meta import Seat, TableMeta, bot_seat, person_seat

_games = itertools.count(1)


def finished_meta(
    preset: str,
    seats: list[int | None],
    *,
    pairs: bool = True,
    abandoned: frozenset[int] = frozenset(),
    game_id: str | None = None,
) -> TableMeta:
    """A finished table: ``seats`` are user ids, None for a bot."""
    n = next(_games)
    rules = PRESETS[preset].to_dict() | {"players": len(seats), "pairs": pairs}
    built: list[Seat | None] = []
    for i, uid in enumerate(seats):
        seat = bot_seat(i) if uid is None else person_seat(uid, f"P{uid}")
        seat.abandoned = uid in abandoned
        built.append(seat)
    return TableMeta(
        id=f"t{n}",
        name="t",
        host=next(u for u in seats if u is not None),
        preset=preset,
        rules=rules,
        players=len(seats),
        bet=0,
        seats=built,
        status="finished",
        created_at=time.time(),
        started_at=time.time(),
        game_id=game_id or f"g{n}x{time.monotonic_ns()}"[:32],
    )


def hand_log(totals: list[int], winner: int | None) -> list[Any]:
    event = {"type": "hand_ended", "totals": totals, "match_winner": winner, "match_over": True}
    return [{"e": event}]


async def finish(
    maker: async_sessionmaker[AsyncSession], meta: TableMeta, totals: list[int], winner: int
) -> str:
    """Archive and rate, as TableService.finish does through the archive hook."""
    await RatedArchive(GameArchive(maker), maker)(meta, hand_log(totals, winner))
    assert meta.game_id is not None
    return meta.game_id


async def rating(
    maker: async_sessionmaker[AsyncSession], uid: int, family: str, fmt: str
) -> Rating | None:
    async with maker() as db:
        return await db.get(Rating, (uid, family, fmt))


async def event(maker: async_sessionmaker[AsyncSession], game_id: str) -> RatingEvent | None:
    async with maker() as db:
        return await db.get(RatingEvent, game_id)


async def all_ratings(maker: async_sessionmaker[AsyncSession]) -> list[tuple[Any, ...]]:
    async with maker() as db:
        rows = await db.execute(
            select(
                Rating.user_id, Rating.family, Rating.format, Rating.mu, Rating.sigma, Rating.games
            ).order_by(Rating.user_id, Rating.family, Rating.format)
        )
        return [tuple(r) for r in rows]
