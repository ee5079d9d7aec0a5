"""Who may challenge or invite whom: one rule, which the challenge and invitation
endpoints enforce and a profile's ``can_challenge`` shows, so the button and the server
never disagree.

Blocks are rows in Postgres (``social.models.Block``) read on every check, in either
direction: the blocked player cannot reach the one who blocked them, nor the other way
round. A Redis flush changes none of it. Each challenge or invitation request also counts
against the sender's budget (``invite_limit`` per ``invite_window_seconds``).
"""

from __future__ import annotations

from typing import Literal

from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import ratelimit
from app.core.config import Settings
from app.core.errors import AppError
from app.social.friends import blocked_between
from app.users.models import User

Action = Literal["challenge", "invite"]

_SELF = {
    "challenge": ("cannot_challenge_self", "You cannot challenge yourself."),
    "invite": ("cannot_invite_self", "You are at the table already."),
}
_BLOCKED = {
    "challenge": "You cannot play a challenge with this player.",
    "invite": "You cannot invite this player.",
}


async def refusal(db: AsyncSession, me: int, other: User, action: Action) -> AppError | None:
    """Why ``me`` may not challenge (or invite) ``other``, or None when they may."""
    if other.id == me:
        code, message = _SELF[action]
        return AppError(code, message, 422)
    if other.is_guest:  # a challenge names its friend by username, which a guest lacks
        return AppError("user_not_found", "That player has no username yet.", 404)
    if await blocked_between(db, me, other.id):
        return AppError("blocked", _BLOCKED[action], 403)
    return None


async def check_unblocked(db: AsyncSession, me: int, other: int, action: Action) -> None:
    """Answering a challenge or an invitation sent before a block: the block wins."""
    if await blocked_between(db, me, other):
        raise AppError("blocked", _BLOCKED[action], 403)


async def check(db: AsyncSession, me: int, other: User, action: Action) -> None:
    error = await refusal(db, me, other, action)
    if error is not None:
        raise error


async def count_request(redis: Redis, settings: Settings, me: int) -> None:
    """One challenge or invitation request against the sender's budget, else 429."""
    verdict = await ratelimit.hit(
        redis, f"rl:invite:{me}", settings.invite_limit, settings.invite_window_seconds
    )
    if not verdict.allowed:
        raise AppError(
            "rate_limited",
            f"Too many challenges and invitations: try again in {verdict.retry_after} seconds.",
            429,
            headers={"Retry-After": str(verdict.retry_after)},
        )
