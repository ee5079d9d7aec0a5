"""Tournament endpoints under /api (docs/tournaments.md, "API")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from starlette.requests import HTTPConnection

from app.api.deps import CurrentUser, DbDep, SettingsDep, optional_user
from app.core.errors import ERROR_RESPONSES
from app.economy.deps import NotifierDep
from app.economy.notify import Outbox
from app.tournaments import money, service
from app.tournaments.runner import TournamentRunner
from app.tournaments.schemas import DetailOut, SitGoIn, TournamentOut
from app.users.models import User

router = APIRouter(prefix="/api", tags=["tournaments"], responses=ERROR_RESPONSES)

MaybeUser = Annotated[User | None, Depends(optional_user)]


def kick(conn: HTTPConnection, tournament_id: int) -> None:
    runner: TournamentRunner | None = getattr(conn.app.state, "tournaments", None)
    if runner is not None:
        runner.kick(tournament_id)


async def one(db: DbDep, tournament_id: int, user_id: int | None) -> TournamentOut:
    found = await service.detail(db, tournament_id, user_id)
    return TournamentOut.model_validate(
        found.model_dump(exclude={"entrants_list", "standings", "rounds_list", "payouts"})
    )


@router.get("/tournaments", response_model=list[TournamentOut])
async def list_tournaments(
    db: DbDep,
    user: MaybeUser,
    status: Annotated[
        str | None,
        # the schema names the three values; the service refuses any other with its own
        # code (invalid_status), as the API's docs say
        Query(max_length=16, json_schema_extra={"enum": ["upcoming", "running", "finished"]}),
    ] = None,
) -> list[TournamentOut]:
    return await service.listing(db, status, user.id if user else None)


@router.get("/players/{user_id}/tournaments")
async def player_tournaments(
    user_id: Annotated[int, Path(ge=1, le=2**62)], db: DbDep, user: CurrentUser
) -> list[dict[str, Any]]:
    """A player's finished tournaments with their place and prize (the profile shows
    them)."""
    return await service.player_results(db, user_id)


@router.get("/tournaments/{tournament_id}", response_model=DetailOut)
async def get_tournament(tournament_id: int, db: DbDep, user: MaybeUser) -> DetailOut:
    return await service.detail(db, tournament_id, user.id if user else None)


@router.post("/tournaments", response_model=TournamentOut)
async def create_sit_and_go(
    body: SitGoIn,
    conn: HTTPConnection,
    user: CurrentUser,
    db: DbDep,
    settings: SettingsDep,
    notifier: NotifierDep,
) -> TournamentOut:
    """A Sit & Go, with its creator registered (and the buy-in paid) in one transaction."""
    outbox = Outbox()
    t = await service.create_sitgo(db, settings, user.id, body)
    await money.register(db, settings, outbox, t.id, user)
    await db.commit()
    await outbox.flush(db, notifier)
    kick(conn, t.id)
    return await service.one(db, t.id, user.id)


@router.post("/tournaments/{tournament_id}/register", response_model=TournamentOut)
async def register_in_tournament(
    tournament_id: int,
    conn: HTTPConnection,
    user: CurrentUser,
    db: DbDep,
    settings: SettingsDep,
    notifier: NotifierDep,
) -> TournamentOut:
    outbox = Outbox()
    await money.register(db, settings, outbox, tournament_id, user)
    await db.commit()
    await outbox.flush(db, notifier)
    kick(conn, tournament_id)
    return await service.one(db, tournament_id, user.id)


@router.post("/tournaments/{tournament_id}/unregister", response_model=TournamentOut)
async def unregister_from_tournament(
    tournament_id: int, conn: HTTPConnection, user: CurrentUser, db: DbDep, notifier: NotifierDep
) -> TournamentOut:
    outbox = Outbox()
    await money.unregister(db, outbox, tournament_id, user.id)
    await db.commit()
    await outbox.flush(db, notifier)
    kick(conn, tournament_id)
    return await service.one(db, tournament_id, user.id)
