"""Where seeding reads ratings: the one place the tournaments ask for them.

Returns every player's skill in the tournament's preset and format (2 players, or
pairs at 4): the ratings' mean skill (``app.ratings.service.seat_ratings``, the number
quick play pairs by), a newcomer's for someone never rated. Seeding breaks ties with
the tournament's secret seed, so equal ratings are drawn fairly.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from app.ratings.service import seat_ratings


async def ratings_for(
    db: AsyncSession, user_ids: Sequence[int], family: str, fmt: int
) -> dict[int, float]:
    found = await seat_ratings(db, user_ids, family, {"players": fmt, "pairs": fmt == 4})
    return {u: float(found[u].skill) for u in user_ids}


def draw_key(seed: str, entrant_id: int) -> str:
    """A tie-break nobody can predict before the start (the seed is secret)."""
    return hashlib.sha256(f"{seed}:{entrant_id}".encode()).hexdigest()
