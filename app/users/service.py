"""Account logic: signup, login, guests, claiming, sessions.

Services flush but never commit (DESIGN.md convention 11): the route commits once the
whole request has succeeded, so a refused request leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from redis.asyncio import Redis
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratelimit
from app.core.config import Settings
from app.core.db import utcnow
from app.core.errors import AppError
from app.core.ids import UserId
from app.users import repository as repo
from app.users import throttle
from app.users.models import Session, User
from app.users.passwords import Passwords
from app.users.schemas import GUEST_NICKNAME_PREFIX, ClaimIn, PasswordIn, RegisterIn
from app.users.tokens import hash_token, new_token

INVALID_LOGIN = AppError("invalid_credentials", "Wrong username or password.", 401)
NOT_AUTHENTICATED_MESSAGE = "You are not logged in, or your session has ended."


def _username_taken() -> AppError:
    return AppError("username_taken", "That username is already taken.", 409)


async def start_session(
    db: AsyncSession, user_id: UserId, session_days: int, now: datetime | None = None
) -> str:
    """Create a server-side session and return the raw token for the cookie."""
    now = now or utcnow()
    token = new_token()
    await repo.add_session(db, user_id, hash_token(token), now, now + timedelta(days=session_days))
    return token


async def user_from_token(db: AsyncSession, token: str | None) -> User | None:
    """Resolve a raw cookie token to its user; None if missing, unknown, expired or revoked."""
    found = await session_from_token(db, token)
    return found[0] if found else None


async def session_from_token(
    db: AsyncSession,
    token: str | None,
) -> tuple[User, Session] | None:
    if not token or len(token) > 256:
        return None
    return await repo.session_for_token_hash(db, hash_token(token), utcnow())


async def register(
    db: AsyncSession, passwords: Passwords, data: RegisterIn, settings: Settings
) -> tuple[User, str]:
    if await repo.username_taken(db, data.username):
        raise _username_taken()
    user = User(
        username=data.username,
        username_lower=data.username.lower(),
        nickname=data.username,
        password_hash=await passwords.hash(data.password),
        is_guest=False,
    )
    db.add(user)
    try:
        await db.flush()
    except IntegrityError:
        # Lost a race with a concurrent signup of the same name.
        await db.rollback()
        raise _username_taken() from None
    return user, await start_session(db, UserId(user.id), settings.session_days)


async def login(
    db: AsyncSession,
    redis: Redis,
    passwords: Passwords,
    settings: Settings,
    *,
    username: str,
    password: str,
    client_ip: str,
) -> tuple[User, str]:
    await throttle.check_login(redis, settings, username, client_ip)
    user = await repo.get_user_by_username(db, username)
    # Unknown users are verified against a dummy hash: same answer, same time.
    ok = await passwords.verify(user.password_hash if user else None, password)
    if user is None or not ok:
        raise INVALID_LOGIN
    await throttle.login_succeeded(redis, username, client_ip)
    if user.password_hash and passwords.needs_rehash(user.password_hash):
        user.password_hash = await passwords.hash(password)
    return user, await start_session(db, UserId(user.id), settings.session_days)


def address_key(settings: Settings, ip: str) -> str:
    """A keyed hash of a client address: new accounts from one address can be weighed
    together (app/economy/integrity.py) without storing the address itself."""
    assert settings.secret_key is not None
    key = settings.secret_key.get_secret_value().encode()
    return hmac.new(key, f"signup:{ip}".encode(), hashlib.sha256).hexdigest()[:32]


async def throttle_signup(redis: Redis, settings: Settings, ip: str) -> None:
    """New accounts (full or guest) per client address: keeps a flood from filling the db."""
    checks = [(f"rl:signup:ip:{ip}", settings.signup_limit_per_ip)]
    await _throttle(redis, checks, settings.signup_window_seconds, "new accounts")


async def _throttle(redis: Redis, checks: list[tuple[str, int]], window: int, what: str) -> None:
    for key, limit in checks:
        verdict = await ratelimit.hit(redis, key, limit, window)
        if not verdict.allowed:
            raise throttle.refused(what, verdict.retry_after)


async def create_guest(db: AsyncSession, settings: Settings) -> tuple[User, str]:
    # Guests arriving together may pick the same free name: the loser of that race tries
    # another name inside a savepoint instead of failing the visitor.
    for _ in range(GUEST_NAME_ATTEMPTS):
        user = User(nickname=await _free_guest_nickname(db), is_guest=True)
        try:
            async with db.begin_nested():
                db.add(user)
                await db.flush()
        except IntegrityError:
            continue
        return user, await start_session(db, UserId(user.id), settings.session_days)
    raise AppError("conflict", "Could not create a guest right now; try again.", 409)


GUEST_NAME_ATTEMPTS = 5


async def _free_guest_nickname(db: AsyncSession) -> str:
    # Four digits first (friendlier); widen if the space is getting crowded.
    for digits in (4, 4, 4, 5, 6, 7, 8, 9, 10):
        candidate = f"{GUEST_NICKNAME_PREFIX}{secrets.randbelow(10**digits):0{digits}d}"
        if not await repo.nickname_taken(db, candidate):
            return candidate
    raise AppError("conflict", "Could not pick a guest name; try again.", 409)


async def claim(
    db: AsyncSession,
    passwords: Passwords,
    user: User,
    data: ClaimIn,
    old_token: str,
    settings: Settings,
) -> tuple[User, str]:
    """Turn a guest into a full account, keeping its id (and so everything it owns)."""
    if not user.is_guest:
        raise AppError("not_guest", "This account already has a username.", 409)
    if await repo.username_taken(db, data.username):
        raise _username_taken()
    password_hash = await passwords.hash(data.password)
    # The guest's row locked and read afresh: of claims sent at once (with one name or
    # several), the first turns the guest into an account and the rest find it claimed,
    # rather than each renaming it in turn and all answering success.
    await db.refresh(user, with_for_update=True)
    if not user.is_guest:
        raise AppError("not_guest", "This account already has a username.", 409)
    user.username = data.username
    user.username_lower = data.username.lower()
    user.nickname = data.username
    user.password_hash = password_hash
    user.is_guest = False
    try:
        await db.flush()
    except IntegrityError:
        await db.rollback()
        raise _username_taken() from None
    # A new token on a change of privilege: the guest's token stops working (the route
    # closes its sockets after the commit).
    await repo.revoke_session(db, hash_token(old_token), utcnow())
    return user, await start_session(db, UserId(user.id), settings.session_days)


async def logout(db: AsyncSession, token: str | None) -> tuple[int, str] | None:
    """Revoke the session; its user id and token hash, to close its sockets."""
    if not token:
        return None
    token_hash = hash_token(token)
    user_id = await repo.revoke_session(db, token_hash, utcnow())
    return (user_id, token_hash) if user_id is not None else None


async def change_password(
    db: AsyncSession,
    redis: Redis,
    passwords: Passwords,
    settings: Settings,
    user: User,
    data: PasswordIn,
    token: str,
    client_ip: str,
) -> list[str]:
    """Set a new password and end every other session of the account; returns the
    ended sessions' token hashes (their sockets are closed after the commit)."""
    if user.is_guest or not user.username:
        raise AppError("not_allowed", "Guests have no password; create an account.", 409)
    await throttle.check_login(redis, settings, user.username, client_ip)
    # The row locked and read afresh: of changes sent at once, each checks the current
    # password against the one the change before it set. The same change sent again
    # finds its new password already set and answers as the first did; another one
    # finds its "current" password no longer current.
    await db.refresh(user, with_for_update=True)
    if not await passwords.verify(user.password_hash, data.current_password):
        if await passwords.verify(user.password_hash, data.new_password):
            return await repo.revoke_other_sessions(
                db, UserId(user.id), hash_token(token), utcnow()
            )
        raise AppError("invalid_credentials", "The current password is wrong.", 401)
    user.password_hash = await passwords.hash(data.new_password)
    return await repo.revoke_other_sessions(db, UserId(user.id), hash_token(token), utcnow())
