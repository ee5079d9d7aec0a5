"""The operator's chip-dumping report: flagged pairs, their figures, what is held, and
the one action (release a winner's held winnings). Served as JSON at
``/api/admin/integrity`` and printed by ``python -m app.ops integrity``."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.economy.models import IntegrityFlag, WinningsHold
from app.users.models import User


async def report(db: AsyncSession, *, include_released: bool = False) -> dict[str, Any]:
    stmt = select(IntegrityFlag).order_by(IntegrityFlag.last_at.desc())
    if not include_released:
        stmt = stmt.where(IntegrityFlag.state == "open")
    flags = list((await db.execute(stmt)).scalars().all())
    winners = sorted({f.winner_id for f in flags})
    held: dict[int, list[WinningsHold]] = defaultdict(list)
    if winners:
        rows = await db.execute(
            select(WinningsHold)
            .where(WinningsHold.user_id.in_(winners))
            .order_by(WinningsHold.created_at)
        )
        for h in rows.scalars().all():
            held[h.user_id].append(h)
    ids = {f.winner_id for f in flags} | {f.loser_id for f in flags}
    names = dict((await db.execute(select(User.id, User.nickname).where(User.id.in_(ids)))).all())
    return {
        "pairs": [
            {
                "winner": {"id": f.winner_id, "nickname": names.get(f.winner_id)},
                "loser": {"id": f.loser_id, "nickname": names.get(f.loser_id)},
                "reason": f.reason,
                "games": f.games,
                "coins": f.coins,
                "state": f.state,
                "first_at": _iso(f.first_at),
                "last_at": _iso(f.last_at),
                "released_at": _iso(f.released_at),
            }
            for f in flags
        ],
        "winners": [
            {
                "id": w,
                "nickname": names.get(w),
                "held_coins": sum(h.amount for h in held[w] if h.state == "held"),
                "held_games": sum(1 for h in held[w] if h.state == "held"),
                "released_coins": sum(h.amount for h in held[w] if h.state == "released"),
                "actions": (
                    [{"action": "release", "method": "POST", "path": _release_path(w)}]
                    if any(h.state == "held" for h in held[w])
                    or any(f.state == "open" for f in flags if f.winner_id == w)
                    else []
                ),
            }
            for w in winners
        ],
    }


def _release_path(user_id: int) -> str:
    return f"/api/admin/integrity/winners/{user_id}/release"


def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when is not None else None
