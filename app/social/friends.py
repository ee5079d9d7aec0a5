"""Friends (requests both ways, stored as two rows) and blocks."""

from __future__ import annotations

from sqlalchemy import and_, delete, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import AppError
from app.economy.notify import Outbox
from app.economy.sql import insert_ignore, table_of
from app.social import notifications
from app.social.models import Block, FriendRequest, Friendship
from app.users.models import User


async def user_or_404(db: AsyncSession, user_id: int) -> User:
    user = await db.get(User, user_id) if 0 < user_id < 2**62 else None
    if user is None:
        raise AppError("user_not_found", "No such player.", 404)
    return user


async def are_friends(db: AsyncSession, a: int, b: int) -> bool:
    stmt = select(Friendship.user_id).where(Friendship.user_id == a, Friendship.friend_id == b)
    return (await db.execute(stmt)).first() is not None


async def blocked_between(db: AsyncSession, a: int, b: int) -> bool:
    stmt = select(Block.blocker_id).where(
        or_(
            and_(Block.blocker_id == a, Block.blocked_id == b),
            and_(Block.blocker_id == b, Block.blocked_id == a),
        )
    )
    return (await db.execute(stmt)).first() is not None


async def hidden_ids(db: AsyncSession, user_id: int) -> set[int]:
    """Everyone this user blocked or was blocked by: neither sees the other's chat."""
    a = select(Block.blocked_id).where(Block.blocker_id == user_id)
    b = select(Block.blocker_id).where(Block.blocked_id == user_id)
    return set((await db.execute(a.union(b))).scalars())


async def send_request(db: AsyncSession, outbox: Outbox, me: User, to_id: int) -> FriendRequest:
    if to_id == me.id:
        raise AppError("cannot_befriend_self", "You cannot befriend yourself.", 400)
    other = await user_or_404(db, to_id)
    if await blocked_between(db, me.id, to_id):
        raise AppError("blocked", "You cannot send a request to this player.", 403)
    if await are_friends(db, me.id, to_id):
        raise AppError("already_friends", "You are already friends.", 409)
    reverse = await _pending(db, to_id, me.id)
    if reverse is not None:  # they asked first: asking back accepts
        return await _ask_back(db, outbox, me, reverse)
    if await _pending(db, me.id, to_id) is not None:
        raise _already_sent()
    req = FriendRequest(sender_id=me.id, recipient_id=other.id, state="pending")
    try:
        async with db.begin_nested():
            db.add(req)
            await db.flush()
    except IntegrityError:
        # A pending request between the two was stored at the same moment (the unique
        # index over the pair): this one gets the answer it would have got after it.
        reverse = await _pending(db, to_id, me.id)
        if reverse is None:
            raise _already_sent() from None
        return await _ask_back(db, outbox, me, reverse)
    await notifications.add(
        db,
        outbox,
        other.id,
        "friend_request",
        {
            "request_id": req.id,
            "from_user_id": me.id,
            "from_nickname": me.nickname,
        },
    )
    return req


async def _ask_back(
    db: AsyncSession, outbox: Outbox, me: User, reverse: FriendRequest
) -> FriendRequest:
    """Accept ``reverse``, their request to ``me``; answered at the same moment by
    another of ``me``'s requests (both now friends), say so."""
    try:
        await accept(db, outbox, me, reverse.id)
    except AppError as exc:
        if exc.code == "request_not_found" and await are_friends(db, me.id, reverse.sender_id):
            raise AppError("already_friends", "You are already friends.", 409) from None
        raise
    return reverse


def _already_sent() -> AppError:
    return AppError("request_pending", "You already sent this player a request.", 409)


async def _pending(db: AsyncSession, sender: int, recipient: int) -> FriendRequest | None:
    stmt = select(FriendRequest).where(
        FriendRequest.sender_id == sender,
        FriendRequest.recipient_id == recipient,
        FriendRequest.state == "pending",
    )
    return (await db.execute(stmt)).scalars().first()


async def _incoming(db: AsyncSession, me: User, request_id: int) -> FriendRequest:
    # Locked and read afresh (the session may hold it from before the lock): of the
    # same answer sent many times at once, one finds it pending and the rest wait, then
    # find it answered (one friendship, one "accepted" notification).
    req = (
        await db.get(FriendRequest, request_id, with_for_update=True, populate_existing=True)
        if 0 < request_id < 2**62
        else None
    )
    if req is None or req.recipient_id != me.id or req.state != "pending":
        raise AppError("request_not_found", "No such pending friend request.", 404)
    return req


async def accept(db: AsyncSession, outbox: Outbox, me: User, request_id: int) -> None:
    req = await _incoming(db, me, request_id)
    req.state = "accepted"
    await notifications.mark_friend_request_read(db, outbox, me.id, "request_id", req.id)
    await insert_ignore(
        db,
        table_of(Friendship),
        [
            {"user_id": req.sender_id, "friend_id": me.id},
            {"user_id": me.id, "friend_id": req.sender_id},
        ],
        ["user_id", "friend_id"],
    )
    await notifications.add(
        db,
        outbox,
        req.sender_id,
        "friend_accepted",
        {
            "user_id": me.id,
            "nickname": me.nickname,
        },
    )


async def decline(db: AsyncSession, outbox: Outbox, me: User, request_id: int) -> None:
    req = await _incoming(db, me, request_id)
    req.state = "declined"
    await notifications.mark_friend_request_read(db, outbox, me.id, "request_id", req.id)
    await db.flush()


async def remove(db: AsyncSession, me: int, other: int) -> None:
    await db.execute(
        delete(Friendship).where(
            or_(
                and_(Friendship.user_id == me, Friendship.friend_id == other),
                and_(Friendship.user_id == other, Friendship.friend_id == me),
            )
        )
    )


async def block(db: AsyncSession, outbox: Outbox, me: int, other: int) -> None:
    if me == other:
        raise AppError("cannot_block_self", "You cannot block yourself.", 400)
    await user_or_404(db, other)
    await insert_ignore(
        db, table_of(Block), [{"blocker_id": me, "blocked_id": other}], ["blocker_id", "blocked_id"]
    )
    await remove(db, me, other)
    await db.execute(
        update(FriendRequest)
        .where(
            FriendRequest.state == "pending",
            or_(
                and_(FriendRequest.sender_id == me, FriendRequest.recipient_id == other),
                and_(FriendRequest.sender_id == other, FriendRequest.recipient_id == me),
            ),
        )
        .values(state="cancelled")
    )
    # The cancelled requests' notifications are read, on both sides: nothing is left to
    # answer, and the badge no longer counts them.
    await notifications.mark_friend_request_read(db, outbox, me, "from_user_id", other)
    await notifications.mark_friend_request_read(db, outbox, other, "from_user_id", me)


async def unblock(db: AsyncSession, me: int, other: int) -> None:
    await db.execute(delete(Block).where(Block.blocker_id == me, Block.blocked_id == other))


async def friends_of(db: AsyncSession, me: int) -> list[User]:
    stmt = (
        select(User)
        .join(Friendship, Friendship.friend_id == User.id)
        .where(Friendship.user_id == me)
        .order_by(User.nickname)
    )
    return list((await db.execute(stmt)).scalars())


async def blocked_by(db: AsyncSession, me: int) -> list[User]:
    stmt = (
        select(User)
        .join(Block, Block.blocked_id == User.id)
        .where(Block.blocker_id == me)
        .order_by(User.nickname)
    )
    return list((await db.execute(stmt)).scalars())


async def pending_for(db: AsyncSession, me: int) -> tuple[list[FriendRequest], list[FriendRequest]]:
    base = select(FriendRequest).where(FriendRequest.state == "pending")
    incoming = base.where(FriendRequest.recipient_id == me).order_by(FriendRequest.id)
    outgoing = base.where(FriendRequest.sender_id == me).order_by(FriendRequest.id)
    return (
        list((await db.execute(incoming)).scalars()),
        list((await db.execute(outgoing)).scalars()),
    )


async def search(db: AsyncSession, me: int, text: str, limit: int) -> list[User]:
    pattern = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    hidden = await hidden_ids(db, me)
    stmt = (
        select(User)
        .where(User.nickname.ilike(f"{pattern}%", escape="\\"), User.id != me)
        .order_by(User.nickname)
        .limit(limit + len(hidden))
    )
    return [u for u in (await db.execute(stmt)).scalars() if u.id not in hidden][:limit]
