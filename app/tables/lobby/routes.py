"""Lobby, table, challenge and finished-game endpoints under /api."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, status
from fastapi.routing import APIRoute
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response

from app.api.deps import CurrentUser, DbDep
from app.core.errors import ERROR_RESPONSES, AppError
from app.economy.deps import NotifierDep
from app.economy.notify import Outbox
from app.rules.ruleset import PRESETS
from app.social import notifications, reach
from app.social.routes_prefs import LangDep
from app.tables.live.overload import refuse_when_saturated
from app.tables.live.protocol import REDIS_UNAVAILABLE, server_busy
from app.tables.lobby import lobby
from app.tables.lobby.personal import equipped, localized, rating_lookup
from app.tables.lobby.schemas import (
    PRESET_ENUM,
    BotsIn,
    ChallengeIn,
    CreateTableIn,
    DeclinedOut,
    GameOut,
    InvitedOut,
    InviteIn,
    LeftOut,
    LobbyOut,
    QuickplayIn,
    SeatTakenOut,
    SitIn,
    TableOut,
    VerifyOut,
)
from app.tables.play.service import Change, TableService, table_record
from app.tables.storage import listing
from app.tables.storage.archive import load_game, verify
from app.tables.storage.meta import MIN_BET, TableMeta
from app.users.models import User
from app.users.repository import get_user_by_username


class TablesRoute(APIRoute):
    """Redis unreachable or its pool exhausted: 503 ``server_busy``, not a 500."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            try:
                return await handler(request)
            except REDIS_UNAVAILABLE:
                raise server_busy() from None

        return guarded


router = APIRouter(
    prefix="/api", tags=["tables"], responses=ERROR_RESPONSES, route_class=TablesRoute
)


async def get_tables(conn: HTTPConnection) -> TableService:
    svc: TableService = conn.app.state.tables
    return svc


TablesDep = Annotated[TableService, Depends(get_tables)]
BUSY = [Depends(refuse_when_saturated)]  # a saturated process takes no new tables or seats


def display_name(user: User) -> str:
    return user.nickname or user.username or f"#{user.id}"


@router.post(
    "/tables", status_code=status.HTTP_201_CREATED, response_model=TableOut, dependencies=BUSY
)
async def create_table(
    body: CreateTableIn, user: CurrentUser, svc: TablesDep, db: DbDep, lang: LangDep
) -> dict[str, Any]:
    meta = await lobby.create_table(
        svc,
        user.id,
        display_name(user),
        body,
        equipped=await equipped(db, user.id),
        rate=rating_lookup(db, user.id),
    )
    return localized(meta.public(), lang)


@router.get("/tables", response_model=LobbyOut)
async def list_tables(
    svc: TablesDep,
    user: CurrentUser,
    lang: LangDep,
    preset: Annotated[str | None, Query(max_length=20, json_schema_extra=PRESET_ENUM)] = None,
    players: Annotated[int | None, Query(ge=2, le=4)] = None,
    min_bet: Annotated[int | None, Query(ge=0)] = None,
    max_bet: Annotated[int | None, Query(ge=0)] = None,
    free_seats: Annotated[int | None, Query(ge=1, le=4)] = None,
    turbo: bool | None = None,
    status: Annotated[Literal["waiting", "playing"], Query()] = "waiting",
) -> dict[str, Any]:
    """Public tables waiting for players, or (``status=playing``) games to watch."""
    if preset is not None and preset not in PRESETS:
        raise AppError("unknown_preset", f"There is no modality called {preset}.", 422)
    filters = {
        "preset": preset,
        "players": players,
        "min_bet": min_bet,
        "max_bet": max_bet,
        "free_seats": free_seats,
        "turbo": turbo,
    }
    read = listing.playing if status == "playing" else listing.waiting
    tables = [localized(t, lang) for t in await read(svc.store, filters)]
    return {"tables": tables, "min_bet": MIN_BET}


@router.get("/tables/{table_id}", response_model=TableOut)
async def get_table(
    table_id: str, user: CurrentUser, svc: TablesDep, lang: LangDep
) -> dict[str, Any]:
    meta = await lobby.visible_table(svc, table_id, user.id)
    return localized(meta.public_with_clock(), lang)


@router.post("/tables/{table_id}/sit", response_model=SeatTakenOut, dependencies=BUSY)
async def sit(
    table_id: str, body: SitIn, user: CurrentUser, svc: TablesDep, db: DbDep
) -> dict[str, Any]:
    seat = await lobby.sit(
        svc,
        table_id,
        user.id,
        display_name(user),
        body.seat,
        await equipped(db, user.id),
        rating_lookup(db, user.id),
    )
    return {"table": table_id, "seat": seat}


@router.post("/tables/{table_id}/stand", response_model=SeatTakenOut)
async def stand(table_id: str, user: CurrentUser, svc: TablesDep) -> dict[str, Any]:
    await lobby.stand(svc, table_id, user.id)
    return {"table": table_id, "seat": None}


@router.post("/tables/{table_id}/leave", response_model=LeftOut)
async def leave(table_id: str, user: CurrentUser, svc: TablesDep) -> dict[str, Any]:
    """Leave a started game: a bot finishes it for you and you forfeit the bet."""
    v = await svc.abandon(table_id, user.id)
    return {"table": table_id, "v": v, "abandoned": True}


@router.post("/tables/{table_id}/bots", response_model=TableOut)
async def fill_bots(
    table_id: str, user: CurrentUser, svc: TablesDep, body: BotsIn | None = None
) -> dict[str, Any]:
    """The host seats bots of the chosen strength (the body is optional: normal)."""
    await svc.fill_with_bots(table_id, user.id, (body or BotsIn()).bot_strength)
    return (await svc.load(table_id))[1].public()


@router.post("/tables/{table_id}/invite", response_model=InvitedOut)
async def invite(
    table_id: str, body: InviteIn, user: CurrentUser, svc: TablesDep, db: DbDep
) -> dict[str, Any]:
    await reach.count_request(svc.redis, svc.settings, user.id)
    ids: list[int] = []
    # Usernames compare case-insensitively: "Ana" and "ana" are one invitation.
    for name in dict.fromkeys(n.lower() for n in body.usernames):
        invitee = await get_user_by_username(db, name)
        if invitee is None:
            raise AppError("user_not_found", f"There is no player called {name}.", 404)
        await reach.check(db, user.id, invitee, "invite")
        if invitee.id not in ids:
            ids.append(invitee.id)
    await lobby.invite(svc, table_id, user.id, display_name(user), ids)
    return {"table": table_id, "invited": ids}


@router.post("/quickplay", response_model=TableOut, dependencies=BUSY)
async def quickplay(
    body: QuickplayIn, user: CurrentUser, svc: TablesDep, db: DbDep, lang: LangDep
) -> dict[str, Any]:
    meta = await lobby.quickplay(
        svc,
        user.id,
        display_name(user),
        body.preset,
        body.players,
        body.bots_after_seconds,
        body.bot_strength,
        equipped=await equipped(db, user.id),
        rate=rating_lookup(db, user.id),
        match=body.match,
    )
    return localized(meta.public(), lang)


@router.post(
    "/challenges", status_code=status.HTTP_201_CREATED, response_model=TableOut, dependencies=BUSY
)
async def challenge(
    body: ChallengeIn,
    user: CurrentUser,
    svc: TablesDep,
    db: DbDep,
    lang: LangDep,
    notifier: NotifierDep,
) -> dict[str, Any]:
    await reach.count_request(svc.redis, svc.settings, user.id)
    target = await get_user_by_username(db, body.username)
    if target is None:
        raise AppError("user_not_found", f"There is no player called {body.username}.", 404)
    await reach.check(db, user.id, target, "challenge")  # what the profile's button shows
    # An ordinary table reserved for the challenged friend: open to every level, no
    # credit (a challenge is never special; lobby.build_meta names it per reader).
    spec = CreateTableIn(
        preset=body.preset,
        players=2,
        bet=body.bet,
        private=True,
        turbo=body.turbo,
        target_score=body.target_score,
    )
    meta = await lobby.create_table(
        svc,
        user.id,
        display_name(user),
        spec,
        kind="challenge",
        invited=[target.id],
        equipped=await equipped(db, user.id),
        rate=rating_lookup(db, user.id),
    )
    await svc.notify_user(
        target.id,
        {
            "type": "challenge",
            "table": meta.summary(),
            "from": {"id": user.id, "name": display_name(user)},
        },
    )
    # And a row in the notifications centre (list and unread badge): the live push above
    # is missed by a player who is not connected.
    outbox = Outbox()
    await notifications.add(
        db,
        outbox,
        target.id,
        "challenge",
        {"table_id": meta.id, "from_user_id": user.id, "from_nickname": display_name(user)},
    )
    await db.commit()
    await outbox.flush(db, notifier)
    return localized(meta.public(), lang)


@router.post("/challenges/{table_id}/accept", response_model=SeatTakenOut, dependencies=BUSY)
async def accept_challenge(
    table_id: str, user: CurrentUser, svc: TablesDep, db: DbDep, notifier: NotifierDep
) -> dict[str, Any]:
    meta = await _challenge_for(svc, table_id, user)
    await reach.check_unblocked(db, user.id, meta.host, "challenge")
    seat = await lobby.sit(
        svc,
        table_id,
        user.id,
        display_name(user),
        None,
        await equipped(db, user.id),
        rating_lookup(db, user.id),
    )
    await _answered(db, notifier, user.id, table_id)
    await svc.notify_user(
        meta.host,
        {
            "type": "challenge_accepted",
            "table": table_id,
            "by": {"id": user.id, "name": display_name(user)},
        },
    )
    return {"table": table_id, "seat": seat}


@router.post("/challenges/{table_id}/decline", response_model=DeclinedOut)
async def decline_challenge(
    table_id: str, user: CurrentUser, svc: TablesDep, db: DbDep, notifier: NotifierDep
) -> dict[str, Any]:
    meta = await _challenge_for(svc, table_id, user)

    def decide(v: int, current: TableMeta, state: Any) -> Change:
        if current.status != "waiting":
            raise AppError("table_not_waiting", "That challenge is no longer open.", 409)
        current = current.model_copy(deep=True)
        current.status = "closed"
        current.close_reason = "declined"
        return Change(meta=current, records=[table_record("closed", current)])

    await svc.mutate(table_id, decide)
    await svc.hooks.release_seat(meta.host, table_id)
    if meta.special:  # a turbo challenge held the host's credit
        await svc.hooks.refund_special_table(meta.host, table_id)
    await svc.store.expire(table_id, 600)
    await _answered(db, notifier, user.id, table_id)
    await svc.notify_user(
        meta.host,
        {
            "type": "challenge_declined",
            "table": table_id,
            "by": {"id": user.id, "name": display_name(user)},
        },
    )
    return {"table": table_id, "declined": True}


async def _answered(db: DbDep, notifier: NotifierDep, user_id: int, table_id: str) -> None:
    """An answered challenge's notification is read (the unread badge follows)."""
    outbox = Outbox()
    await notifications.mark_challenge_read(db, outbox, user_id, table_id)
    await db.commit()
    await outbox.flush(db, notifier)


async def _challenge_for(svc: TableService, table_id: str, user: User) -> TableMeta:
    _, meta, _ = await svc.load(table_id)
    if meta.kind != "challenge" or user.id not in meta.invited:
        raise AppError("not_challenged", "That challenge is not for you.", 403)
    return meta


async def pass_gates(svc: TableService, table_id: str, db: Any) -> None:
    """Every replay gate lets a finished game of ``table_id`` be read, or raises (a
    duplicate tournament's round still dealing the same cards elsewhere: 409 round_live)."""
    for gate in svc.replay_gates:
        await gate(table_id, db)


async def gated_game(db: Any, svc: TableService, game_id: str, user_id: int) -> Any:
    """A finished game ``user_id`` may read, once no gate holds it back."""
    game = await load_game(db, game_id, user_id)
    await pass_gates(svc, game.table_id, db)
    return game


@router.get("/games/{game_id}", response_model=GameOut)
async def get_game(game_id: str, user: CurrentUser, db: DbDep, svc: TablesDep) -> dict[str, Any]:
    """A finished game for replay: players, rules, every deal and event, scores."""
    game = await gated_game(db, svc, game_id, user.id)
    return {
        "id": game.id,
        "table_id": game.table_id,
        "preset": game.preset,
        "rules": game.rules,
        "seats": game.seats,
        "bet": game.bet,
        "hands": game.hands,
        "events": game.events,
        "totals": game.totals,
        "winner_team": game.winner_team,
        "status": game.status,
        "started_at": game.started_at.isoformat(),
        "ended_at": game.ended_at.isoformat(),
    }


@router.get("/games/{game_id}/verify", response_model=VerifyOut)
async def verify_game(game_id: str, user: CurrentUser, db: DbDep, svc: TablesDep) -> dict[str, Any]:
    """Provably fair: recompute each hand's SHA-256 from its revealed deal and salt."""
    return verify(await gated_game(db, svc, game_id, user.id))
