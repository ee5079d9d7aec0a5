"""WebSocket messages from the browser: one pydantic discriminated union.

Every frame is JSON; anything that does not validate gets an ``error`` frame with a
stable code and changes nothing. ``docs/protocol.md`` documents both directions.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import TimeoutError as DatabasePoolTimeout

from app.core.errors import AppError

TableRef = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9]+$")]
CardName = Annotated[str, Field(min_length=2, max_length=3)]
Cards = Annotated[list[CardName], Field(max_length=24)]


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DrawCmd(_Msg):
    type: Literal["draw"]


class MeldRef(_Msg):
    team: int = Field(ge=0, le=3)
    meld: int = Field(ge=0, le=200)


class TakeDiscardCmd(_Msg):
    type: Literal["take_discard"]
    depth: int = Field(default=1, ge=1, le=108)
    meld: Cards | None = None
    add: MeldRef | None = None
    wild_as: CardName | None = None


class MeldCmd(_Msg):
    type: Literal["meld"]
    cards: Annotated[list[CardName], Field(min_length=1, max_length=24)]
    wild_as: CardName | None = None


class AddCmd(_Msg):
    type: Literal["add"]
    team: int = Field(ge=0, le=3)
    meld: int = Field(ge=0, le=200)
    cards: Annotated[list[CardName], Field(min_length=1, max_length=24)]
    wild_as: CardName | None = None


class DiscardCmd(_Msg):
    type: Literal["discard"]
    card: CardName


GameCommand = Annotated[
    DrawCmd | TakeDiscardCmd | MeldCmd | AddCmd | DiscardCmd, Field(discriminator="type")
]


class Ping(_Msg):
    type: Literal["ping"]


class LobbyMsg(_Msg):
    type: Literal["lobby"]
    on: bool = True


class Watch(_Msg):
    type: Literal["watch"]
    table: TableRef
    last_v: int | None = Field(default=None, ge=0)


class Unwatch(_Msg):
    type: Literal["unwatch"]
    table: TableRef


class CommandMsg(_Msg):
    type: Literal["command"]
    table: TableRef
    cid: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")
    command: GameCommand


class LegalMsg(_Msg):
    type: Literal["legal"]
    table: TableRef


class LeaveMsg(_Msg):
    type: Literal["leave"]
    table: TableRef


class EmoteMsg(_Msg):
    """An emote at a table the sender sits at or watches (app/tables/live/emotes.py)."""

    type: Literal["emote"]
    table: TableRef
    emote: str = Field(min_length=1, max_length=32, pattern=r"^[a-z0-9_]+$")


class CutMsg(_Msg):
    """The cutter cuts the awaited deck (docs/protocol.md, "The cut"); the service
    checks the position's range (``bad_cut``)."""

    type: Literal["cut"]
    table: TableRef
    cid: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")
    position: int = Field(ge=-1000, le=1000)
    seed: str | None = Field(default=None, min_length=1, max_length=64)


class SeedMsg(_Msg):
    """A seated player's client seed for the awaited deal (docs/fairness.md)."""

    type: Literal["seed"]
    table: TableRef
    cid: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")
    seed: str = Field(min_length=1, max_length=64)


ClientMessage = Annotated[
    Ping
    | LobbyMsg
    | Watch
    | Unwatch
    | CommandMsg
    | LegalMsg
    | LeaveMsg
    | EmoteMsg
    | CutMsg
    | SeedMsg,
    Field(discriminator="type"),
]
CLIENT_MESSAGE = TypeAdapter(ClientMessage)

MAX_FRAME_BYTES = 16 * 1024
RATE_PER_SECOND = 20


def error_frame(code: str, message: str, cid: str | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if cid is not None:
        frame["cid"] = cid
    return frame


# Redis unreachable, its pool exhausted (BlockingConnectionPool's wait ran out) or a reply
# too slow: the move was not applied (or its commit's outcome is unknown, and the client's
# command id makes a retry safe). Clients see ``server_busy`` (503), not internal_error.
# Redis away, or its pool or the database's pool exhausted: all answered ``server_busy``.
REDIS_UNAVAILABLE = (RedisConnectionError, RedisTimeoutError, DatabasePoolTimeout)


def server_busy() -> AppError:
    return AppError(
        "server_busy",
        "The server is busy right now; try again in a moment.",
        503,
        headers={"Retry-After": "1"},
    )
