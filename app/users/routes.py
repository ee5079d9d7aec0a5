"""Account endpoints under /api."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response, status

from app.api.deps import (
    CurrentUser,
    DbDep,
    PasswordsDep,
    RedisDep,
    SettingsDep,
    client_ip,
    session_token,
)
from app.core.config import Settings
from app.core.errors import ERROR_RESPONSES, ErrorResponse
from app.tables.live import sockets
from app.users import service
from app.users.schemas import ClaimIn, LoginIn, MeOut, PasswordIn, RegisterIn
from app.users.tokens import SESSION_COOKIE, hash_token

router = APIRouter(prefix="/api", tags=["accounts"], responses=ERROR_RESPONSES)

_CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorResponse, "description": "Username already taken"}
}


def _set_session_cookie(response: Response, token: str, settings: Settings) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=settings.session_days * 24 * 3600,
        httponly=True,
        samesite="lax",
        secure=settings.cookie_secure,
        path="/",
    )


@router.post(
    "/auth/register",
    response_model=MeOut,
    status_code=status.HTTP_201_CREATED,
    responses=_CONFLICT,
)
async def register(
    body: RegisterIn,
    request: Request,
    response: Response,
    db: DbDep,
    redis: RedisDep,
    passwords: PasswordsDep,
    settings: SettingsDep,
) -> MeOut:
    await service.throttle_signup(redis, settings, client_ip(request))
    user, token = await service.register(db, passwords, body, settings)
    user.signup_addr = service.address_key(settings, client_ip(request))
    await db.commit()
    _set_session_cookie(response, token, settings)
    return MeOut.model_validate(user)


@router.post("/auth/login", response_model=MeOut)
async def login(
    body: LoginIn,
    request: Request,
    response: Response,
    db: DbDep,
    redis: RedisDep,
    passwords: PasswordsDep,
    settings: SettingsDep,
) -> MeOut:
    user, token = await service.login(
        db,
        redis,
        passwords,
        settings,
        username=body.username,
        password=body.password,
        client_ip=client_ip(request),
    )
    await db.commit()
    _set_session_cookie(response, token, settings)
    return MeOut.model_validate(user)


@router.post("/auth/logout", status_code=status.HTTP_204_NO_CONTENT)
async def logout(
    request: Request,
    db: DbDep,
    redis: RedisDep,
    settings: SettingsDep,
) -> Response:
    ended = await service.logout(db, session_token(request))
    await db.commit()
    if ended is not None:
        await sockets.end_sessions(redis, ended[0], [ended[1]])
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    response.delete_cookie(
        SESSION_COOKIE, httponly=True, samesite="lax", secure=settings.cookie_secure, path="/"
    )
    return response


@router.post("/auth/guest", response_model=MeOut, status_code=status.HTTP_201_CREATED)
async def guest(
    request: Request, response: Response, db: DbDep, redis: RedisDep, settings: SettingsDep
) -> MeOut:
    await service.throttle_signup(redis, settings, client_ip(request))
    user, token = await service.create_guest(db, settings)
    user.signup_addr = service.address_key(settings, client_ip(request))
    await db.commit()
    _set_session_cookie(response, token, settings)
    return MeOut.model_validate(user)


@router.post("/auth/claim", response_model=MeOut, responses=_CONFLICT)
async def claim(
    body: ClaimIn,
    request: Request,
    response: Response,
    user: CurrentUser,
    db: DbDep,
    redis: RedisDep,
    passwords: PasswordsDep,
    settings: SettingsDep,
) -> MeOut:
    old_token = session_token(request) or ""
    user, token = await service.claim(db, passwords, user, body, old_token, settings)
    await db.commit()
    await sockets.end_sessions(redis, user.id, [hash_token(old_token)])
    _set_session_cookie(response, token, settings)
    return MeOut.model_validate(user)


@router.post("/auth/password", status_code=status.HTTP_204_NO_CONTENT)
async def change_password(
    body: PasswordIn,
    request: Request,
    user: CurrentUser,
    db: DbDep,
    redis: RedisDep,
    passwords: PasswordsDep,
    settings: SettingsDep,
) -> Response:
    """New password; every other session of the account ends (its sockets close)."""
    ended = await service.change_password(
        db, redis, passwords, settings, user, body, session_token(request) or "", client_ip(request)
    )
    await db.commit()
    await sockets.end_sessions(redis, user.id, ended)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/me", response_model=MeOut)
async def me(user: CurrentUser) -> MeOut:
    return MeOut.model_validate(user)
