"""Social endpoints under /api: players, profiles, friends, blocks."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.deps import CurrentUser, DbDep, RedisDep, SettingsDep
from app.core.errors import ERROR_RESPONSES
from app.economy.deps import NotifierDep
from app.economy.levels import level_for
from app.economy.models import EquippedItem, PlayerStats
from app.economy.notify import Outbox
from app.social import friends, presence, profiles
from app.social.models import FriendRequest
from app.social.schemas import FriendRequestOut, PlayerOut, ProfileOut, RequestsOut, UserRef
from app.users.models import User

router = APIRouter(prefix="/api", tags=["social"], responses=ERROR_RESPONSES)
MAX_ONLINE = 200


async def players_out(
    db: AsyncSession, me: int, users: list[User], online: set[int]
) -> list[PlayerOut]:
    ids = [u.id for u in users]
    xp: dict[int, int] = {}
    avatars: dict[int, str] = {}
    if ids:
        stmt = select(PlayerStats.user_id, PlayerStats.xp).where(PlayerStats.user_id.in_(ids))
        xp = {u: int(x) for u, x in (await db.execute(stmt)).all()}
        worn = select(EquippedItem.user_id, EquippedItem.sku).where(
            EquippedItem.user_id.in_(ids), EquippedItem.slot == "avatar"
        )
        avatars = {u: sku for u, sku in (await db.execute(worn)).all()}
    mine = {f.id for f in await friends.friends_of(db, me)}
    return [
        PlayerOut(
            user_id=u.id,
            nickname=u.nickname,
            level=level_for(xp.get(u.id, 0)),
            online=u.id in online,
            friend=u.id in mine,
            avatar=avatars.get(u.id),
            guest=u.is_guest,
        )
        for u in users
    ]


@router.get("/players/search", response_model=list[PlayerOut])
async def search_players(
    user: CurrentUser,
    db: DbDep,
    redis: RedisDep,
    settings: SettingsDep,
    q: Annotated[str, Query(min_length=1, max_length=32, pattern=r"^[^\x00-\x1f\x7f]+$")],
    limit: Annotated[int, Query(ge=1, le=50)] = 20,
) -> list[PlayerOut]:
    found = await friends.search(db, user.id, q, limit)
    online = await presence.online_ids(redis, settings.redis_buckets)
    return await players_out(db, user.id, found, set(online))


@router.get("/players/online", response_model=list[PlayerOut])
async def online_players(
    user: CurrentUser, db: DbDep, redis: RedisDep, settings: SettingsDep
) -> list[PlayerOut]:
    """The lobby's list of online players (people blocked either way are left out). The
    one asking is online and counted, even before their socket has said so."""
    hidden = await friends.hidden_ids(db, user.id)
    online = await presence.online_ids(redis, settings.redis_buckets)
    ids = [i for i in online if i not in hidden and i != user.id]
    ids = [user.id, *ids][:MAX_ONLINE]
    users = []
    if ids:
        stmt = select(User).where(User.id.in_(ids)).order_by(User.nickname)
        users = list((await db.execute(stmt)).scalars())
    return await players_out(db, user.id, users, set(ids))


@router.get("/profiles/{user_id}", response_model=ProfileOut)
async def profile(
    user_id: int, user: CurrentUser, db: DbDep, redis: RedisDep, settings: SettingsDep
) -> ProfileOut:
    return await profiles.profile(db, redis, user, user_id, settings.redis_buckets)


@router.get("/friends", response_model=list[PlayerOut])
async def my_friends(
    user: CurrentUser, db: DbDep, redis: RedisDep, settings: SettingsDep
) -> list[PlayerOut]:
    mine = await friends.friends_of(db, user.id)
    online = await presence.online_ids(redis, settings.redis_buckets)
    return await players_out(db, user.id, mine, set(online))


async def _requests_out(db: AsyncSession, reqs: list[FriendRequest]) -> list[FriendRequestOut]:
    ids = {r.sender_id for r in reqs} | {r.recipient_id for r in reqs}
    names: dict[int, str] = {}
    if ids:
        stmt = select(User.id, User.nickname).where(User.id.in_(ids))
        names = {r[0]: r[1] for r in (await db.execute(stmt)).all()}
    return [
        FriendRequestOut(
            id=r.id,
            sender_id=r.sender_id,
            sender_nickname=names[r.sender_id],
            recipient_id=r.recipient_id,
            recipient_nickname=names[r.recipient_id],
            created_at=r.created_at,
        )
        for r in reqs
    ]


@router.get("/friends/requests", response_model=RequestsOut)
async def friend_requests(user: CurrentUser, db: DbDep) -> RequestsOut:
    incoming, outgoing = await friends.pending_for(db, user.id)
    return RequestsOut(
        incoming=await _requests_out(db, incoming), outgoing=await _requests_out(db, outgoing)
    )


@router.post("/friends/requests", status_code=201, response_model=RequestsOut)
async def send_request(
    body: UserRef, user: CurrentUser, db: DbDep, notifier: NotifierDep
) -> RequestsOut:
    outbox = Outbox()
    await friends.send_request(db, outbox, user, body.user_id)
    await db.commit()
    await outbox.flush(db, notifier)
    return await friend_requests(user, db)


@router.post("/friends/requests/{request_id}/accept", response_model=list[PlayerOut])
async def accept_request(
    request_id: int,
    user: CurrentUser,
    db: DbDep,
    redis: RedisDep,
    settings: SettingsDep,
    notifier: NotifierDep,
) -> list[PlayerOut]:
    outbox = Outbox()
    await friends.accept(db, outbox, user, request_id)
    await db.commit()
    await outbox.flush(db, notifier)
    return await my_friends(user, db, redis, settings)


@router.post("/friends/requests/{request_id}/decline", status_code=204)
async def decline_request(
    request_id: int, user: CurrentUser, db: DbDep, notifier: NotifierDep
) -> Response:
    outbox = Outbox()
    await friends.decline(db, outbox, user, request_id)
    await db.commit()
    await outbox.flush(db, notifier)
    return Response(status_code=204)


@router.delete("/friends/{user_id}", status_code=204)
async def remove_friend(user_id: int, user: CurrentUser, db: DbDep) -> Response:
    await friends.user_or_404(db, user_id)
    await friends.remove(db, user.id, user_id)
    await db.commit()
    return Response(status_code=204)


@router.get("/blocks", response_model=list[PlayerOut])
async def my_blocks(user: CurrentUser, db: DbDep) -> list[PlayerOut]:
    return await players_out(db, user.id, await friends.blocked_by(db, user.id), set())


@router.post("/blocks", status_code=204)
async def block(
    body: UserRef, user: CurrentUser, db: DbDep, redis: RedisDep, notifier: NotifierDep
) -> Response:
    outbox = Outbox()
    await friends.block(db, outbox, user.id, body.user_id)
    await db.commit()
    await outbox.flush(db, notifier)
    await presence.sync_hidden(db, redis, user.id, body.user_id)
    return Response(status_code=204)


@router.delete("/blocks/{user_id}", status_code=204)
async def unblock(user_id: int, user: CurrentUser, db: DbDep, redis: RedisDep) -> Response:
    await friends.user_or_404(db, user_id)
    await friends.unblock(db, user.id, user_id)
    await db.commit()
    await presence.sync_hidden(db, redis, user.id, user_id)
    return Response(status_code=204)
