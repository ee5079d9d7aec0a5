"""A database connection lost in the middle of a request (a restart, a failover, an
administrator ending it) is answered 503 ``server_busy`` with Retry-After, as an
exhausted pool is, and changes nothing; the next request gets a fresh connection."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import event, func, select
from sqlalchemy.exc import DBAPIError, ProgrammingError

from app.users.models import User
from app.users.tokens import SESSION_COOKIE
from tests.api.test_ws_busy import (
    assert_refused_busy,
    frames,
    handshake,
    handshake_until_hello,
)
from tests.economy.helpers import client_for, new_users

# The statement a connection runs instead of the request's own, once armed: Postgres
# ends that very connection, as a restart or pg_terminate_backend from outside would.
SUICIDE = "SELECT pg_terminate_backend(pg_backend_pid())"


class Cut:
    """Armed, the next statement on the app's engine ends its own connection."""

    def __init__(self) -> None:
        self.armed = 0
        self.fired = 0
        self.instead = SUICIDE

    def __call__(
        self, conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool
    ) -> tuple[str, Any]:
        if self.armed and statement.lstrip().upper().startswith(("INSERT", "SELECT", "UPDATE")):
            self.armed -= 1
            self.fired += 1
            return self.instead, ()
        return statement, params


@pytest.fixture
def cut(app: FastAPI) -> Iterator[Cut]:
    engine = app.state.engine.sync_engine
    if engine.dialect.name != "postgresql":
        pytest.skip("needs PostgreSQL")
    hook = Cut()
    event.listen(engine, "before_cursor_execute", hook, retval=True)
    yield hook
    event.remove(engine, "before_cursor_execute", hook)


async def _users(app: FastAPI) -> int:
    async with app.state.sessionmaker() as session:
        return int((await session.execute(select(func.count()).select_from(User))).scalar_one())


async def test_a_connection_lost_mid_request_is_503_server_busy_and_changes_nothing(
    app: FastAPI, client: httpx.AsyncClient, cut: Cut
) -> None:
    before = await _users(app)
    cut.armed = 1
    r = await client.post("/api/auth/guest")
    assert cut.fired == 1
    assert r.status_code == 503, r.text
    assert r.json()["error"]["code"] == "server_busy"
    assert r.headers.get("retry-after") == "1"
    assert await _users(app) == before  # nothing was written

    # The pool gives the next request a working connection.
    r = await client.post("/api/auth/guest")
    assert r.status_code == 201, r.text
    assert await _users(app) == before + 1


async def test_a_query_that_fails_on_a_live_connection_is_still_a_500(
    app: FastAPI, client: httpx.AsyncClient, cut: Cut
) -> None:
    """Only a lost database is "busy": a statement Postgres refuses (a fault of ours) is
    logged and answered 500, never passed off as a reason to retry."""
    cut.instead = "SELECT * FROM no_such_table_here"
    cut.armed = 1
    r = await client.post("/api/auth/guest")
    assert cut.fired == 1
    assert r.status_code == 500, r.text
    assert r.json()["error"]["code"] == "internal_error"


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (
            DBAPIError("SELECT 1", {}, Exception("terminated"), connection_invalidated=True),
            "server_busy",
        ),
        (ConnectionRefusedError(111, "Connect call failed"), "server_busy"),
        (ProgrammingError("SELECT nothing", {}, Exception("no such table")), "internal_error"),
    ],
)
def test_a_socket_message_that_loses_the_database_is_answered_server_busy(
    error: Exception, code: str
) -> None:
    """On a socket too: a message whose work lost the database (an emote checked against
    the inventory, a move whose game end settles) gets the retryable ``server_busy``;
    any other failure is still ``internal_error``."""
    from types import SimpleNamespace

    from starlette.websockets import WebSocketState

    from app.tables.live.connection import Connection

    async def check() -> list[dict[str, Any]]:
        hub = SimpleNamespace(table_cache=object())
        ws = SimpleNamespace(application_state=WebSocketState.CONNECTED)
        conn = Connection(ws, 7, "x", hub, SimpleNamespace(cache=None))  # type: ignore[arg-type]
        written: list[dict[str, Any]] = []

        async def handle(text: str) -> None:
            raise error

        async def write(frame: dict[str, Any]) -> None:
            written.append(frame)

        conn._handle_text = handle  # type: ignore[method-assign]
        conn._write = write  # type: ignore[method-assign]
        pump = asyncio.ensure_future(conn._pump())
        conn.push(("msg", '{"type": "emote"}'))
        for _ in range(5):
            await asyncio.sleep(0)
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pump
        return written

    written = asyncio.run(check())
    assert [(f["type"], f["code"]) for f in written] == [("error", code)]


async def test_a_socket_handshake_that_loses_the_database_is_refused_as_busy(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient], cut: Cut
) -> None:
    """The handshake reads the session from the database: lost there, the socket is
    accepted, told ``server_busy`` and closed 1013 (try again later), never a 500; the
    same cookie is served on the next try."""
    (me,) = await new_users(app.state.sessionmaker, 1)
    cookie = (await client_for(app, make_client, me)).cookies[SESSION_COOKIE]
    cut.armed = 1
    sent = await handshake(app, cookie)
    assert cut.fired == 1
    assert_refused_busy(sent)
    sent = await handshake_until_hello(app, cookie)
    assert frames(sent)[0]["type"] == "hello"


async def test_a_socket_handshake_whose_query_fails_is_still_an_error_of_ours(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient], cut: Cut
) -> None:
    """Only a lost database is "busy" on the handshake too: a statement Postgres refuses
    is not passed off as a reason to retry."""
    (me,) = await new_users(app.state.sessionmaker, 1)
    cookie = (await client_for(app, make_client, me)).cookies[SESSION_COOKIE]
    cut.instead = "SELECT * FROM no_such_table_here"
    cut.armed = 1
    with pytest.raises(ProgrammingError):
        await handshake(app, cookie)
    assert cut.fired == 1
