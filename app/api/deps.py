"""FastAPI dependencies: hand out what the lifespan built and stored on ``app.state``.

``HTTPConnection`` (not ``Request``) keeps each of these usable from WebSocket routes too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Security
from fastapi.security import APIKeyCookie
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.requests import HTTPConnection

from app.core import tracking
from app.core.config import Settings
from app.core.db import unit_of_work
from app.core.errors import AppError
from app.users.models import User
from app.users.passwords import Passwords
from app.users.service import NOT_AUTHENTICATED_MESSAGE, user_from_token
from app.users.tokens import SESSION_COOKIE


# The dependencies are coroutines even where they only read app.state: FastAPI runs a
# plain function dependency in a worker thread, a thread hop per dependency and request,
# queued behind a pool of 40 threads in a burst (and a thread must not read the loop's
# structures: see app/tables/live/overload.py).
async def get_settings(conn: HTTPConnection) -> Settings:
    settings: Settings = conn.app.state.settings
    return settings


async def get_redis(conn: HTTPConnection) -> Redis:
    redis: Redis = conn.app.state.redis
    return redis


async def get_passwords(conn: HTTPConnection) -> Passwords:
    passwords: Passwords = conn.app.state.passwords
    return passwords


def get_sessionmaker(conn: HTTPConnection) -> async_sessionmaker[AsyncSession]:
    maker: async_sessionmaker[AsyncSession] = conn.app.state.sessionmaker
    return maker


async def get_db(conn: HTTPConnection) -> AsyncIterator[AsyncSession]:
    """One session per request, shared by whatever the request calls (the table hooks
    too: ``unit_of_work``), so a request never holds two pooled connections. Routes
    commit explicitly; anything uncommitted is rolled back."""
    async with unit_of_work(get_sessionmaker(conn)) as session:
        yield session


def session_token(conn: HTTPConnection) -> str | None:
    return conn.cookies.get(SESSION_COOKIE)


def client_ip(conn: HTTPConnection) -> str:
    # Behind a proxy, run uvicorn with --proxy-headers so this is the real client.
    return conn.client.host if conn.client else "unknown"


# OpenAPI's security scheme: the session cookie set by register, login and guest.
session_cookie = APIKeyCookie(
    name=SESSION_COOKIE,
    scheme_name="session",
    auto_error=False,
    description="The session cookie set by login, register or guest",
)


async def optional_user(
    conn: HTTPConnection,
    db: Annotated[AsyncSession, Depends(get_db)],
    _cookie: Annotated[str | None, Security(session_cookie)] = None,
) -> User | None:
    return await user_from_token(db, session_token(conn))


async def current_user(user: Annotated[User | None, Depends(optional_user)]) -> User:
    if user is None:
        raise AppError("not_authenticated", NOT_AUTHENTICATED_MESSAGE, 401)
    tracking.set_user(user.id)  # an error from here on names its user (when tracking is on)
    return user


SettingsDep = Annotated[Settings, Depends(get_settings)]
RedisDep = Annotated[Redis, Depends(get_redis)]
DbDep = Annotated[AsyncSession, Depends(get_db)]
PasswordsDep = Annotated[Passwords, Depends(get_passwords)]
CurrentUser = Annotated[User, Depends(current_user)]
