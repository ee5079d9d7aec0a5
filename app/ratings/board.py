"""Reading ratings: a player's, for the profile, and the leaderboard per family/format."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.ratings.families import FAMILIES, FORMATS
from app.ratings.models import Rating
from app.ratings.schemas import RatingOut, RatingRow
from app.ratings.service import PROVISIONAL_GAMES, display_rating, is_provisional
from app.users.models import User


async def ratings_of(db: AsyncSession, user: User) -> list[RatingOut]:
    """Every rating the player has, families and formats in their usual order. A guest
    has none to show (guests are never rated)."""
    if user.is_guest:
        return []
    rows = (await db.execute(select(Rating).where(Rating.user_id == user.id))).scalars()
    pairs = [(f, m) for f in FAMILIES for m in FORMATS]
    order: dict[tuple[str, str], int] = {pair: i for i, pair in enumerate(pairs)}
    return sorted(
        (
            RatingOut(
                family=r.family,
                format=r.format,
                rating=display_rating(r.mu, r.sigma),
                games=r.games,
                provisional=is_provisional(r.games),
            )
            for r in rows
        ),
        key=lambda r: order.get((r.family, r.format), len(order)),
    )


async def leaderboard(db: AsyncSession, family: str, fmt: str, limit: int) -> list[RatingRow]:
    """The best settled ratings: accounts only, at least PROVISIONAL_GAMES rated games,
    by the conservative ordinal (mu - 3 sigma), ties by the earlier account."""
    stmt = (
        select(User.id, User.nickname, Rating.mu, Rating.sigma, Rating.games)
        .join(Rating, Rating.user_id == User.id)
        .where(
            Rating.family == family,
            Rating.format == fmt,
            Rating.games >= PROVISIONAL_GAMES,
            User.is_guest.is_(False),
        )
        .order_by(Rating.ordinal.desc(), User.id)
        .limit(limit)
    )
    return [
        RatingRow(
            rank=i + 1,
            user_id=uid,
            nickname=nick,
            rating=display_rating(mu, sigma),
            games=games,
        )
        for i, (uid, nick, mu, sigma, games) in enumerate((await db.execute(stmt)).all())
    ]
