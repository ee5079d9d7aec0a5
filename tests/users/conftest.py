"""Fixtures for the account tests."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.users.models import Session, User
from tests.users.helpers import Snapshot


@pytest.fixture
def snapshot(db: AsyncSession) -> Snapshot:
    """Everything stored about accounts, to prove that a refused request changed nothing."""

    async def take() -> dict[str, Any]:
        db.expire_all()
        users = (await db.execute(select(User).order_by(User.id))).scalars().all()
        sessions = (await db.execute(select(Session).order_by(Session.id))).scalars().all()
        return {
            "users": [
                (u.id, u.username, u.username_lower, u.nickname, u.password_hash, u.is_guest)
                for u in users
            ],
            "sessions": [
                (s.id, s.token_hash, s.user_id, s.expires_at, s.revoked_at) for s in sessions
            ],
        }

    return take
