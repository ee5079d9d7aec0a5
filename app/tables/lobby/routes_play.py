"""Playing with the same people again, and what "Crear partida" may offer, under /api."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from starlette.requests import HTTPConnection

from app.api.deps import CurrentUser, DbDep
from app.core.errors import ERROR_RESPONSES
from app.tables.lobby import invites, rematch
from app.tables.lobby.options import create_options
from app.tables.lobby.result import my_result
from app.tables.lobby.routes import TablesDep, TablesRoute, display_name
from app.tables.lobby.schemas import InvitationDeclinedOut, MyResultOut, OptionsOut, RematchOut

router = APIRouter(
    prefix="/api", tags=["tables"], responses=ERROR_RESPONSES, route_class=TablesRoute
)
TableId = Annotated[str, Path(pattern=r"^[A-Za-z0-9]{1,32}$")]
GameId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,32}$")]


@router.get("/lobby/options", response_model=OptionsOut)
async def lobby_options(user: CurrentUser, db: DbDep, conn: HTTPConnection) -> dict[str, Any]:
    """Each create option (pairs, turbo, private) with ``locked``, what it ``needs``
    (level, credits) and what is ``missing``; a challenge is never locked."""
    return await create_options(db, conn.app.state.settings, user.id)


@router.get("/games/{game_id}/mine", response_model=MyResultOut)
async def my_game_result(game_id: GameId, user: CurrentUser, db: DbDep) -> dict[str, Any]:
    """The end sheet: the caller's own coins won or lost, XP gained and progress to the
    next level (``settled`` False until the settlement commits; ask again)."""
    return await my_result(db, game_id, user.id)


@router.get("/tables/{table_id}/rematch", response_model=RematchOut)
async def rematch_state(table_id: TableId, user: CurrentUser, svc: TablesDep) -> dict[str, Any]:
    return await rematch.state(svc, table_id, user.id)


@router.post("/tables/{table_id}/rematch", response_model=RematchOut)
async def rematch_accept(table_id: TableId, user: CurrentUser, svc: TablesDep) -> dict[str, Any]:
    """Offer a rematch of a finished game, or accept the open offer."""
    return await rematch.accept(svc, table_id, user.id, display_name(user))


@router.post("/tables/{table_id}/rematch/decline", response_model=RematchOut)
async def rematch_decline(table_id: TableId, user: CurrentUser, svc: TablesDep) -> dict[str, Any]:
    return await rematch.decline(svc, table_id, user.id, display_name(user))


@router.post("/tables/{table_id}/invitation/decline", response_model=InvitationDeclinedOut)
async def decline_invitation(
    table_id: TableId, user: CurrentUser, svc: TablesDep
) -> dict[str, Any]:
    """The invitation toast's "Rechazar": the host gets ``invitation_declined``."""
    await invites.decline(svc, table_id, user.id, display_name(user))
    return {"table": table_id, "declined": True}
