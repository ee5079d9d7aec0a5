"""What the ratings endpoints and the profile send."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

FamilyName = Literal["abierto", "cerrado", "burako", "brasil"]
FormatName = Literal["2p", "pairs", "multi"]


class RatingOut(BaseModel):
    family: str
    format: str
    rating: int  # the conservative display number (docs/ratings.md)
    games: int
    provisional: bool


class RatingRow(BaseModel):
    rank: int
    user_id: int
    nickname: str
    rating: int
    games: int


class RatingBoardOut(BaseModel):
    family: FamilyName
    format: FormatName
    # Only accounts with a settled rating are listed: guests never, provisional
    # ratings (fewer than ``min_games`` rated games) not yet.
    min_games: int
    rows: list[RatingRow]
