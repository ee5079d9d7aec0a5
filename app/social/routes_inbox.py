"""Social endpoints under /api: the notifications centre and chat."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response

from app.api.deps import CurrentUser, DbDep, RedisDep
from app.core.errors import ERROR_RESPONSES
from app.economy.deps import NotifierDep
from app.economy.notify import Outbox
from app.social import chat, notifications
from app.social.routes_prefs import LangDep
from app.social.schemas import ChatIn, ChatOut, NotificationOut, NotificationsOut
from app.tables.lobby.lobby import visible_table
from app.tables.lobby.routes import TablesDep

router = APIRouter(prefix="/api", tags=["social"], responses=ERROR_RESPONSES)
TableId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,32}$")]
AfterId = Annotated[int | None, Query(ge=0, le=2**62)]
Limit = Annotated[int, Query(ge=1, le=100)]


@router.get("/notifications", response_model=NotificationsOut)
async def my_notifications(
    user: CurrentUser,
    db: DbDep,
    lang: LangDep,
    before_id: Annotated[int | None, Query(ge=1, le=2**62)] = None,
    limit: Limit = 50,
) -> NotificationsOut:
    items = await notifications.listing(db, user.id, limit, before_id)
    return NotificationsOut(
        unread=await notifications.unread_count(db, user.id),
        items=[NotificationOut(**notifications.out(n, lang)) for n in items],
    )


@router.post("/notifications/{note_id}/read", status_code=204)
async def read_one(
    note_id: Annotated[int, Path(ge=1, le=2**62)],
    user: CurrentUser,
    db: DbDep,
    notifier: NotifierDep,
) -> Response:
    outbox = Outbox()
    await notifications.mark_read(db, outbox, user.id, note_id)
    await db.commit()
    await outbox.flush(db, notifier)
    return Response(status_code=204)


@router.post("/notifications/read-all", status_code=204)
async def read_all(user: CurrentUser, db: DbDep, notifier: NotifierDep) -> Response:
    outbox = Outbox()
    await notifications.mark_all_read(db, outbox, user.id)
    await db.commit()
    await outbox.flush(db, notifier)
    return Response(status_code=204)


async def _post(
    table_id: str | None,
    body: ChatIn,
    user: CurrentUser,
    db: DbDep,
    redis: RedisDep,
    notifier: NotifierDep,
) -> dict[str, Any]:
    outbox = Outbox()
    message = await chat.post(db, redis, outbox, user, table_id, body.text)
    await db.commit()
    await outbox.flush(db, notifier)
    return message


@router.get("/chat/lobby", response_model=list[ChatOut])
async def lobby_history(
    user: CurrentUser, db: DbDep, after_id: AfterId = None, limit: Limit = 50
) -> list[dict[str, Any]]:
    return await chat.history(db, user.id, None, after_id, limit)


@router.post("/chat/lobby", response_model=ChatOut, status_code=201)
async def lobby_say(
    body: ChatIn, user: CurrentUser, db: DbDep, redis: RedisDep, notifier: NotifierDep
) -> dict[str, Any]:
    return await _post(None, body, user, db, redis, notifier)


# A table's chat is for those who may watch the table: anyone at a public table, the
# players and the invited at a private one (the table socket relays it the same way).


@router.get("/chat/tables/{table_id}", response_model=list[ChatOut])
async def table_history(
    table_id: TableId,
    user: CurrentUser,
    db: DbDep,
    svc: TablesDep,
    after_id: AfterId = None,
    limit: Limit = 50,
) -> list[dict[str, Any]]:
    await visible_table(svc, table_id, user.id)
    return await chat.history(db, user.id, table_id, after_id, limit)


@router.post("/chat/tables/{table_id}", response_model=ChatOut, status_code=201)
async def table_say(
    table_id: TableId,
    body: ChatIn,
    user: CurrentUser,
    db: DbDep,
    redis: RedisDep,
    notifier: NotifierDep,
    svc: TablesDep,
) -> dict[str, Any]:
    await visible_table(svc, table_id, user.id)
    return await _post(table_id, body, user, db, redis, notifier)
