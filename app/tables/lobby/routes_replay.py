"""A finished game's replay under /api/games/{game_id} (docs/replay.md): the document,
its frames for the browser's viewer, and a plain-text score sheet."""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict
from starlette.responses import PlainTextResponse, Response

from app.api.deps import CurrentUser, DbDep
from app.core.errors import ERROR_RESPONSES, AppError
from app.rules.replay import Mismatch, frames, score_sheet
from app.tables.lobby.routes import TablesDep, TablesRoute, pass_gates
from app.tables.storage.replays import build_replay, load_for_replay

router = APIRouter(
    prefix="/api", tags=["tables"], responses=ERROR_RESPONSES, route_class=TablesRoute
)
GameId = Annotated[str, Path(pattern=r"^[A-Za-z0-9]{1,64}$")]


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class PlayerOut(_Out):
    seat: int
    team: int
    name: str
    bot: bool
    user_id: int | None


class ReplayOut(_Out):
    """docs/replay.md, "The replay document"."""

    format: str
    version: int
    game_id: str
    rules: dict[str, Any]
    players: list[PlayerOut]
    hands: list[dict[str, Any]]
    totals: list[int]
    winner_team: int | None


class FramesOut(_Out):
    """docs/replay.md, "Frames"."""

    game_id: str
    version: int
    players: list[PlayerOut]
    rules: dict[str, Any]
    totals: list[int]
    winner_team: int | None
    hands: list[dict[str, Any]]


async def _replay(game_id: str, user_id: int, db: Any, svc: Any) -> dict[str, Any]:
    game = await load_for_replay(db, svc.store, game_id, user_id)
    await pass_gates(svc, game.table_id, db)
    return build_replay(game)


def _attachment(name: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{name}"'}


@router.get("/games/{game_id}/replay", response_model=ReplayOut)
async def get_replay(
    game_id: GameId,
    user: CurrentUser,
    db: DbDep,
    svc: TablesDep,
    download: Annotated[bool, Query()] = False,
) -> Response:
    """The replay document ("buraco-replay" version 1); ``?download=1`` as a file."""
    replay = await _replay(game_id, user.id, db, svc)
    headers = _attachment(f"buraco-{game_id}.json") if download else {}
    return Response(orjson.dumps(replay), media_type="application/json", headers=headers)


@router.get("/games/{game_id}/replay/frames", response_model=FramesOut)
async def get_frames(game_id: GameId, user: CurrentUser, db: DbDep, svc: TablesDep) -> Response:
    """Every hand move by move, with the whole table after each move."""
    replay = await _replay(game_id, user.id, db, svc)
    try:
        body = frames(replay)
    except Mismatch as exc:  # an archive the engine disagrees with: never a 500
        raise AppError("replay_mismatch", f"The replay does not check out: {exc}", 409) from None
    return Response(orjson.dumps(body), media_type="application/json")


# A plain-text route's refusals are still JSON in the one error shape: said so in the
# schema (FastAPI would otherwise describe them in the route's own text/plain type).
JSON_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {
        "description": spec["description"],
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}},
    }
    for code, spec in ERROR_RESPONSES.items()
}


@router.get(
    "/games/{game_id}/replay.txt",
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}, **JSON_ERRORS},
)
async def get_score_sheet(
    game_id: GameId, user: CurrentUser, db: DbDep, svc: TablesDep
) -> PlainTextResponse:
    """The score sheet as plain text, to download."""
    replay = await _replay(game_id, user.id, db, svc)
    try:
        text = score_sheet(replay)
    except Mismatch as exc:
        raise AppError("replay_mismatch", f"The replay does not check out: {exc}", 409) from None
    return PlainTextResponse(text, headers=_attachment(f"buraco-{game_id}.txt"))
