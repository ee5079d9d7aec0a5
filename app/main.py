"""Application factory. Run with ``uvicorn app.main:create_app --factory``."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from app import native
from app.api import restart, ws
from app.api.openapi import install_openapi, operation_id
from app.api.routes import admin, health
from app.api.routes import metrics as metrics_routes
from app.api.static import ClientFiles
from app.core import metrics, tracking
from app.core.bodylimit import BodyLimit, BodyTooLarge, body_too_large_handler
from app.core.config import Settings
from app.core.db import create_engine, create_sessionmaker
from app.core.errors import install_error_handlers
from app.core.headers import SecurityHeaders
from app.core.logging import RequestLogMiddleware, configure_logging
from app.core.nul import NulGuard
from app.core.origins import OriginGuard
from app.core.redis import close_redis, create_redis
from app.core.redis_checks import warn_if_redis_volatile
from app.core.tasks import bounded
from app.economy import routes as economy_routes
from app.economy.hooks import EconomyTables
from app.economy.notify import Notifier
from app.economy.reconciler import Reconciler
from app.ratings import routes as ratings_routes
from app.ratings.service import RatedArchive
from app.social import routes as social_routes
from app.social import routes_inbox as social_inbox_routes
from app.social import routes_prefs as social_prefs_routes
from app.social.hidden import HiddenKeeper
from app.tables.live.fanout import Hub
from app.tables.live.overload import Saturation
from app.tables.live.sockets import KeepRawSend
from app.tables.lobby import rematch, routes_replay, testdeals
from app.tables.lobby import routes as tables_routes
from app.tables.lobby import routes_play as tables_play_routes
from app.tables.play.hooks import FreeTables, TableHooks
from app.tables.play.service import TableService
from app.tables.play.timers import TimerLoop
from app.tables.storage.archive import GameArchive
from app.tournaments import money as tournament_money
from app.tournaments import profile_routes as tournament_profile_routes
from app.tournaments import routes as tournament_routes
from app.tournaments.runner import TournamentRunner
from app.users import routes as users_routes
from app.users.passwords import Passwords

VERSION = "0.1.0"
PLACEHOLDER_PAGE = """<!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>Buraco</title></head>
<body><h1>Buraco — servidor en marcha</h1></body></html>
"""


# The collector's thresholds after start-up (gc.set_threshold), also taken by the load
# benchmark's bare baseline. A young generation of 2,000 (older ones every 500 young
# ones) puts more and longer pauses inside the load benchmark's windows: at 1,000 tables
# 8-24 (most over 10 ms) against none, at 2,000 tables 793 (4.4 s in all) against 6
# (0.54 s), so it is 20,000. The middle generation is collected every 5 young
# collections, so each of its collections walks what survived the last 5 (4,000 tables
# seated at once: 8 of at most 97 ms, against one of 402-590 ms every 50); the oldest
# every 1,000 of those, as often as before (every 5,000 young collections).
# (docs/decisions/0007-gc-freeze-and-thresholds.md; buraco_gc_pause_seconds shows the
# pauses.)
GC_THRESHOLDS = (20_000, 5, 1_000)


def _tune_gc() -> None:
    """Once per process, after start-up: move what start-up allocated (modules, the app)
    out of the collector's sight and collect less often. The worst pause with thousands
    of sockets falls from about 24 ms to 6 ms
    (docs/decisions/0007-gc-freeze-and-thresholds.md)."""
    if getattr(_tune_gc, "done", False):
        return
    _tune_gc.done = True  # type: ignore[attr-defined]
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    configure_logging(json=settings.is_production, level=settings.log_level)
    tracking.init(
        settings.sentry_dsn.get_secret_value() if settings.sentry_dsn else None,
        environment=settings.env,
        release=f"buraco@{VERSION}",
        traces_sample_rate=settings.sentry_traces_sample_rate,
    )
    logging.getLogger("app").log(
        logging.WARNING if native.running_stale() else logging.INFO, native.describe()
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = create_engine(
            settings.database_url,
            pool_size=settings.db_pool_size,
            echo=settings.db_echo,
            pool_timeout=settings.db_pool_timeout_seconds,
        )
        redis = create_redis(
            settings.redis_url,
            max_connections=settings.redis_max_connections,
            timeout=settings.redis_pool_timeout_seconds,
        )
        app.state.engine = engine
        app.state.sessionmaker = create_sessionmaker(engine)
        app.state.redis = redis
        app.state.passwords = Passwords(
            time_cost=settings.argon2_time_cost,
            memory_kib=settings.argon2_memory_kib,
            parallelism=settings.argon2_parallelism,
        )
        hooks: TableHooks = (
            EconomyTables(app.state.sessionmaker, settings, Notifier(redis))
            if settings.economy_enabled
            else FreeTables()
        )
        tables = TableService(
            redis,
            settings,
            hooks=hooks,
            archive=RatedArchive(GameArchive(app.state.sessionmaker), app.state.sessionmaker),
            bot_delay=settings.bot_delay_seconds,
        )
        rematch.install(tables)
        hub = Hub(redis, tables)
        timers = TimerLoop(tables)
        app.state.tables, app.state.hub, app.state.timers = tables, hub, timers
        app.state.reconciler = reconciler = (
            Reconciler(tables, hooks) if isinstance(hooks, EconomyTables) else None
        )
        notifier = Notifier(redis)
        app.state.tournaments = tournaments = TournamentRunner(
            app.state.sessionmaker, tables, notifier
        )
        if reconciler is not None:  # a tournament left half-paid is finished there too
            reconciler.extra.append(
                lambda: tournament_money.repair(app.state.sessionmaker, notifier)
            )
        await warn_if_redis_volatile(redis, settings)
        app.state.saturation = saturation = Saturation(settings, hub)
        app.state.hidden_keeper = hidden_keeper = HiddenKeeper(
            app.state.sessionmaker, redis, settings.hidden_check_seconds
        )
        await hidden_keeper.start()
        await hub.start()
        await timers.start()
        await saturation.start()
        await tournaments.start()
        if reconciler is not None:
            await reconciler.start()
        monitor = metrics.Monitor(redis)
        monitor.start()
        uninstall_restart = restart.install(app)  # SIGTERM: not ready, sockets told, then stop
        _tune_gc()
        try:
            yield
        finally:
            uninstall_restart()
            await bounded("tournaments", tournaments.stop())
            if reconciler is not None:
                await bounded("reconciler", reconciler.stop())
            await bounded("monitor", monitor.stop())
            metrics.mark_process_dead()
            await bounded("saturation", saturation.stop())
            await bounded("timers", timers.stop())
            await bounded("hidden keeper", hidden_keeper.stop())
            await bounded("hub", hub.stop())
            await bounded("redis", close_redis(redis))
            await bounded("database", engine.dispose())

    app = ws.BuracoApp(
        title="Buraco",
        version=VERSION,
        lifespan=lifespan,
        docs_url=None if settings.is_production else "/docs",
        redoc_url=None,
        generate_unique_id_function=operation_id,  # readable operation ids: create_table
    )
    app.state.settings = settings
    install_openapi(app)
    install_error_handlers(app)
    app.add_exception_handler(BodyTooLarge, body_too_large_handler)
    # Outermost last: headers on every answer, then the log, then the request guards
    # (the body cap before anything reads a body).
    app.add_middleware(NulGuard)
    app.add_middleware(BodyLimit, max_body_bytes=settings.max_body_bytes)
    app.add_middleware(OriginGuard, settings=settings)
    app.add_middleware(RequestLogMiddleware)
    app.add_middleware(SecurityHeaders, hsts=settings.cookie_secure)
    app.add_middleware(KeepRawSend)
    # WS /ws: the same middlewares but the HTTP-only ones, then its endpoint (app/api/ws.py).
    app.ws_stack = KeepRawSend(RequestLogMiddleware(NulGuard(ws.endpoint_app)))

    app.include_router(health.router)
    app.include_router(metrics_routes.router)
    app.include_router(admin.router)
    app.include_router(users_routes.router)
    app.include_router(tables_routes.router)
    app.include_router(tables_play_routes.router)
    app.include_router(routes_replay.router)
    if settings.env == "test":  # known deals for browser tests, never anywhere else
        app.include_router(testdeals.router)
    app.include_router(economy_routes.router)
    app.include_router(social_routes.router)
    app.include_router(ratings_routes.router)
    app.include_router(social_inbox_routes.router)
    app.include_router(social_prefs_routes.router)
    app.include_router(tournament_routes.router)
    app.include_router(tournament_profile_routes.router)
    _mount_frontend(app, settings)
    return app


def _mount_frontend(app: FastAPI, settings: Settings) -> None:
    if settings.frontend_dir.is_dir():
        # Mounted last so /api, /healthz and /readyz win over static files.
        app.mount("/", ClientFiles(settings.frontend_dir), name="frontend")
        return

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def placeholder() -> str:
        return PLACEHOLDER_PAGE
