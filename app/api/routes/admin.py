"""The operator's API: ``/api/admin/...`` behind ``Authorization: Bearer
<BURACO_OPERATOR_TOKEN>`` (compared in constant time). With no token set the routes are
not there at all (404); a missing or wrong token is 401 (docs/operations.md)."""

from __future__ import annotations

import hmac
import logging
from typing import Any

from fastapi import APIRouter, Depends, Request

from app.api.deps import DbDep
from app.core.errors import AppError
from app.economy import holds
from app.economy.deps import NotifierDep
from app.economy.integrity_report import report
from app.economy.notify import Outbox
from app.tournaments import money as tournament_money
from app.tournaments import service as tournaments
from app.tournaments.schemas import ScheduledIn, TournamentOut

log = logging.getLogger("app.economy")


def require_operator(request: Request) -> None:
    token = request.app.state.settings.operator_token
    if token is None or not token.get_secret_value():
        raise AppError("not_found", "Not Found", 404)
    expected = f"Bearer {token.get_secret_value()}".encode()
    given = request.headers.get("authorization", "").encode()
    if not hmac.compare_digest(given, expected):
        raise AppError(
            "not_operator",
            "This needs the operator token (Authorization: Bearer ...).",
            401,
            {"WWW-Authenticate": "Bearer"},
        )


router = APIRouter(
    prefix="/api/admin",
    tags=["operations"],
    include_in_schema=False,
    dependencies=[Depends(require_operator)],
)


@router.get("/integrity")
async def integrity_report(db: DbDep, include_released: bool = False) -> dict[str, Any]:
    return await report(db, include_released=include_released)


@router.post("/integrity/winners/{user_id}/release")
async def release_winnings(user_id: int, db: DbDep, notifier: NotifierDep) -> dict[str, int]:
    """Every held winnings of ``user_id`` to their wallet, once (holds.py)."""
    outbox = Outbox()
    done = await holds.release(db, outbox, user_id)
    await db.commit()
    try:
        await outbox.flush(db, notifier)
    except Exception:  # Redis away: the release is done; the wallet is re-read later
        log.warning("wallet push after a release failed", exc_info=True)
    return {"user_id": done.user_id, "games": done.games, "coins": done.coins}


@router.post("/tournaments", response_model=TournamentOut)
async def create_tournament(body: ScheduledIn, request: Request, db: DbDep) -> TournamentOut:
    """A scheduled tournament (docs/tournaments.md)."""
    t = await tournaments.create_scheduled(db, request.app.state.settings, body)
    await db.commit()
    return await tournaments.one(db, t.id, None)


@router.post("/tournaments/{tournament_id}/cancel", response_model=TournamentOut)
async def cancel_tournament(
    tournament_id: int, request: Request, db: DbDep, notifier: NotifierDep
) -> TournamentOut:
    """Cancelled before its start, every entrant refunded once."""
    outbox = Outbox()
    await tournament_money.cancel(db, outbox, tournament_id)
    await db.commit()
    try:
        await outbox.flush(db, notifier)
    except Exception:  # Redis away: the refunds are done; wallets are re-read later
        log.warning("wallet push after a cancellation failed", exc_info=True)
    runner = getattr(request.app.state, "tournaments", None)
    if runner is not None:
        runner.kick(tournament_id)
    return await tournaments.one(db, tournament_id, None)
