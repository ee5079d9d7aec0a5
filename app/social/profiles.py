"""A player's public profile, as the profile screen (and its "Retar" button) needs it."""

from __future__ import annotations

from redis.asyncio import Redis
from sqlalchemy import exists, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.economy import shop
from app.economy.levels import level_for, xp_needed
from app.economy.models import GameRecord, PlayerStats
from app.ratings.board import ratings_of
from app.social import friends, presence, reach
from app.social.models import FriendRequest
from app.social.schemas import GameLine, ModalityStats, ProfileOut, Relation
from app.tables.storage.models import Game
from app.users.models import User

RECENT_GAMES = 10


async def profile(
    db: AsyncSession, redis: Redis, me: User, user_id: int, buckets: int = 0
) -> ProfileOut:
    user = await friends.user_or_404(db, user_id)
    stats = await db.get(PlayerStats, user.id)
    xp = stats.xp if stats else 0
    level = level_for(xp)
    online = await presence.is_online(redis, user.id, buckets)
    relation = await _relation(db, me.id, user.id)
    blocked = me.id != user.id and await friends.blocked_between(db, me.id, user.id)
    # What POST /api/challenges enforces (reach.refusal), shown only for a player online.
    may_challenge = await reach.refusal(db, me.id, user, "challenge") is None
    return ProfileOut(
        user_id=user.id,
        nickname=user.nickname,
        is_guest=user.is_guest,
        level=level,
        xp=xp,
        level_xp=xp_needed(level),
        next_level_xp=xp_needed(level + 1),
        games=stats.games if stats else 0,
        wins=stats.wins if stats else 0,
        modalities=await _modalities(db, user.id),
        equipped=await shop.equipped(db, user.id),
        recent_games=await _recent(db, user.id, me.id),
        online=online,
        relation=relation,
        blocked=blocked,
        can_challenge=online and may_challenge,
        can_gift=not blocked and me.id != user.id,
        ratings=await ratings_of(db, user),
    )


async def _relation(db: AsyncSession, me: int, other: int) -> Relation:
    if me == other:
        return "self"
    if await friends.are_friends(db, me, other):
        return "friends"
    stmt = select(FriendRequest.sender_id).where(
        FriendRequest.state == "pending",
        FriendRequest.sender_id.in_([me, other]),
        FriendRequest.recipient_id.in_([me, other]),
    )
    sender = (await db.execute(stmt)).scalars().first()
    if sender is None:
        return "none"
    return "request_sent" if sender == me else "request_received"


async def _modalities(db: AsyncSession, user_id: int) -> list[ModalityStats]:
    wins = func.sum((GameRecord.outcome == "win").cast(type_=GameRecord.xp.type))
    stmt = (
        select(GameRecord.preset, func.count(), wins, func.sum(GameRecord.xp))
        .where(GameRecord.user_id == user_id, GameRecord.outcome != "void")
        .group_by(GameRecord.preset)
        .order_by(GameRecord.preset)
    )
    return [
        ModalityStats(preset=p, games=int(g), wins=int(w or 0), xp=int(x or 0))
        for p, g, w, x in (await db.execute(stmt)).all()
    ]


async def _recent(db: AsyncSession, user_id: int, viewer: int) -> list[GameLine]:
    stmt = (
        select(GameRecord, Game.totals, Game.seats, Game.ended_at)
        .outerjoin(Game, Game.id == GameRecord.game_id)
        .where(GameRecord.user_id == user_id)
    )
    if viewer != user_id:  # someone else's private games only to those who played them
        mine = aliased(GameRecord)
        played = exists().where(mine.game_id == GameRecord.game_id, mine.user_id == viewer)
        stmt = stmt.where(or_(Game.private.is_(False), played))
    stmt = stmt.order_by(GameRecord.created_at.desc()).limit(RECENT_GAMES)
    lines = []
    for rec, totals, seats, ended_at in (await db.execute(stmt)).all():
        lines.append(
            GameLine(
                game_id=rec.game_id,
                preset=rec.preset,
                bet=rec.bet,
                team=rec.team,
                outcome=rec.outcome,
                coins_delta=rec.coins_delta,
                xp=rec.xp,
                with_bots=rec.with_bots,
                ended_at=ended_at or rec.created_at,
                totals=list(totals) if totals else None,
                players=[str(s.get("name", "")) for s in seats] if seats else None,
            )
        )
    return lines
