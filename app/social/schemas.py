"""Request and response bodies of the social endpoints."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.core.text import ChatText
from app.ratings.schemas import RatingOut
from app.social.i18n import LANGUAGES

BIG = 2**53 - 1  # the largest integer JSON carries exactly (2**62 arrived as 2**62+96)
Relation = Literal["self", "friends", "request_sent", "request_received", "none"]


class UserRef(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: int = Field(ge=-BIG, le=BIG)


class PlayerOut(BaseModel):
    user_id: int
    nickname: str
    level: int
    online: bool
    friend: bool
    avatar: str | None = None  # the equipped avatar's sku (None: the default drawing)
    guest: bool = False  # no username yet: cannot be challenged ("Retar") until claimed


class FriendRequestOut(BaseModel):
    id: int
    sender_id: int
    sender_nickname: str
    recipient_id: int
    recipient_nickname: str
    created_at: datetime


class RequestsOut(BaseModel):
    incoming: list[FriendRequestOut]
    outgoing: list[FriendRequestOut]


class ModalityStats(BaseModel):
    preset: str
    games: int
    wins: int
    xp: int


class GameLine(BaseModel):
    game_id: str
    preset: str
    bet: int
    team: int
    outcome: str
    coins_delta: int
    xp: int
    with_bots: bool
    ended_at: datetime
    totals: list[int] | None
    players: list[str] | None


class ProfileOut(BaseModel):
    user_id: int
    nickname: str
    is_guest: bool
    level: int
    xp: int
    level_xp: int
    next_level_xp: int
    games: int
    wins: int
    modalities: list[ModalityStats]
    equipped: dict[str, str]
    recent_games: list[GameLine]
    online: bool
    relation: Relation
    blocked: bool
    can_challenge: bool
    can_gift: bool  # "Regalar": any other player not blocked either way (seed 000)
    # Skill ratings per family and format (docs/ratings.md); none for a guest.
    ratings: list[RatingOut] = []


class NotificationOut(BaseModel):
    id: int
    kind: str
    payload: dict[str, Any]
    text: str  # in the reader's language
    created_at: datetime
    read: bool


class NotificationsOut(BaseModel):
    unread: int
    items: list[NotificationOut]


class ChatIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Checked again after cleaning (300 characters); the slack allows stripped blanks.
    text: ChatText


class ChatOut(BaseModel):
    type: Literal["chat"]
    channel: str
    id: int
    user_id: int
    nickname: str
    text: str
    at: datetime


class LanguageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # The schema lists ours; any other value is refused as unknown_language (not a bare
    # validation error), so the client can say which languages there are.
    language: str = Field(min_length=2, max_length=8, json_schema_extra={"enum": list(LANGUAGES)})


class LanguageOut(BaseModel):
    language: str
    languages: list[str]
