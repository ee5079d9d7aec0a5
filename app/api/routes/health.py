"""Liveness and readiness probes."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text
from starlette.requests import Request

from app.api.deps import RedisDep
from app.core.errors import ErrorResponse, error_response

router = APIRouter(tags=["health"])

PROBE_TIMEOUT_SECONDS = 2.0


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is alive (it checks nothing else)."""
    return {"status": "ok"}


@router.get(
    "/readyz",
    responses={503: {"model": ErrorResponse, "description": "Database or Redis not answering"}},
)
async def readyz(request: Request, redis: RedisDep) -> JSONResponse:
    """Ready to serve: the database answers SELECT 1 and Redis answers PING, and the
    process is not shutting down (app/api/restart.py)."""
    if getattr(request.app.state, "draining", False):
        return error_response(503, "shutting_down", "This process is restarting.")
    problems: list[str] = []
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_SECONDS), request.app.state.engine.connect() as c:
            await c.execute(text("SELECT 1"))
    except Exception as exc:  # any failure means "not ready"; the message says which
        problems.append(f"database: {type(exc).__name__}")
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_SECONDS):
            await redis.ping()
    except Exception as exc:
        problems.append(f"redis: {type(exc).__name__}")
    saturation = getattr(request.app.state, "saturation", None)
    busy = saturation.reason() if saturation is not None else None
    if busy is not None:  # a balancer sends new players elsewhere (app/tables/live/overload.py)
        problems.append(f"saturated: {busy}")
    if problems:
        return error_response(503, "not_ready", "; ".join(problems))
    return JSONResponse({"status": "ready", "database": "ok", "redis": "ok"})
