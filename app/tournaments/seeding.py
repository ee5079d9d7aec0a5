"""Where seeding reads ratings: the one place the tournaments ask for them.

Returns every player's rating in ``family`` (the rule set) and ``fmt`` (2 or 4
players); 0 for everyone until the ratings (app/ratings) answer here. Seeding breaks
ties with the tournament's secret seed, so equal ratings are drawn fairly.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession


async def ratings_for(
    db: AsyncSession, user_ids: Sequence[int], family: str, fmt: int
) -> dict[int, float]:
    return {u: 0.0 for u in user_ids}


def draw_key(seed: str, entrant_id: int) -> str:
    """A tie-break nobody can predict before the start (the seed is secret)."""
    return hashlib.sha256(f"{seed}:{entrant_id}".encode()).hexdigest()
