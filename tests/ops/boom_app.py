"""The real app plus one route that fails, for the production log test: uvicorn runs it
as ``tests.ops.boom_app:create_app --factory``."""

from __future__ import annotations

from fastapi import FastAPI

from app import main


def create_app() -> FastAPI:
    app = main.create_app()

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("boom for the log test")

    return app
