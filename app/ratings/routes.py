"""GET /api/ratings/leaderboard: the best settled ratings of a family and format."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.api.deps import DbDep
from app.core.errors import ERROR_RESPONSES
from app.ratings import board
from app.ratings.schemas import FamilyName, FormatName, RatingBoardOut
from app.ratings.service import PROVISIONAL_GAMES

router = APIRouter(prefix="/api", tags=["ratings"], responses=ERROR_RESPONSES)


@router.get("/ratings/leaderboard", response_model=RatingBoardOut)
async def rating_leaderboard(
    db: DbDep,
    family: FamilyName,
    format: FormatName = "2p",
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
) -> RatingBoardOut:
    rows = await board.leaderboard(db, family, format, limit)
    return RatingBoardOut(family=family, format=format, min_games=PROVISIONAL_GAMES, rows=rows)
