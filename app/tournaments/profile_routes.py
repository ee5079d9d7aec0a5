"""A player's tournament results, for their profile (docs/tournaments.md, "Profiles")."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from pydantic import BaseModel
from sqlalchemy import select

from app.api.deps import DbDep
from app.core.errors import ERROR_RESPONSES
from app.tournaments import service
from app.tournaments.models import Entrant, Match, Payout, Tournament

router = APIRouter(prefix="/api", tags=["tournaments"], responses=ERROR_RESPONSES)

LIMIT = 20


class ResultOut(BaseModel):
    id: int
    name: str
    format: str
    players: int
    finished_at: str | None
    place: int | None  # None: the player's side is not in the final ranking
    of: int  # how many sides (players, or pairs) were ranked
    prize: int  # the coins this player was paid


@router.get("/users/{user_id}/tournaments", response_model=list[ResultOut])
async def user_tournaments(
    user_id: Annotated[int, Path(ge=1, le=2**62)], db: DbDep
) -> list[ResultOut]:
    """The player's latest finished tournaments, newest first, with their places."""
    stmt = (
        select(Tournament, Entrant.id)
        .join(Entrant, Entrant.tournament_id == Tournament.id)
        .where(
            Entrant.user_id == user_id,
            Entrant.state != "left",
            Tournament.state == "finished",
        )
        .order_by(Tournament.finished_at.desc(), Tournament.id.desc())
        .limit(LIMIT)
    )
    rows = (await db.execute(stmt)).all()
    if not rows:
        return []
    ids = [t.id for t, _ in rows]
    entrants: dict[int, list[Entrant]] = {i: [] for i in ids}
    entrant_stmt = select(Entrant).where(Entrant.tournament_id.in_(ids), Entrant.state != "left")
    for e in (await db.execute(entrant_stmt.order_by(Entrant.id))).scalars():
        entrants[e.tournament_id].append(e)
    matches: dict[int, list[Match]] = {i: [] for i in ids}
    match_stmt = select(Match).where(Match.tournament_id.in_(ids))
    for m in (await db.execute(match_stmt.order_by(Match.round_no, Match.table_no))).scalars():
        matches[m.tournament_id].append(m)
    prizes: dict[int, int] = {}
    pay_stmt = select(Payout).where(
        Payout.tournament_id.in_(ids), Payout.user_id == user_id, Payout.state == "paid"
    )
    for p in (await db.execute(pay_stmt)).scalars():
        prizes[p.tournament_id] = prizes.get(p.tournament_id, 0) + p.amount
    out = []
    for t, entrant_id in rows:
        mine = next(e for e in entrants[t.id] if e.id == entrant_id)
        side = mine.team if t.players == 4 and mine.team is not None else mine.id
        order = [line.side for line in service.ranking(t, entrants[t.id], matches[t.id])]
        out.append(
            ResultOut(
                id=t.id,
                name=t.name,
                format=t.format,
                players=t.players,
                finished_at=t.finished_at.isoformat() if t.finished_at else None,
                place=order.index(side) + 1 if side in order else None,
                of=len(order),
                prize=prizes.get(t.id, 0),
            )
        )
    return out
