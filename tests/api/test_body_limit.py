"""Request bodies are capped before they are read (app/core/bodylimit.py), through the
real app on PostgreSQL and Redis: a declared length past the cap is refused without a
byte read, a streamed body stops being read at the first chunk past it, and either
way the answer is 413 body_too_large and nothing is stored."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.types import Message

from app.users.models import User

CAP = 64 * 1024
CHUNK = 16 * 1024
JSON = {"Content-Type": "application/json"}

Make = Callable[[], httpx.AsyncClient]


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"max_body_bytes": CAP}


def _refused(r: httpx.Response) -> None:
    assert r.status_code == 413, r.text
    error = r.json()["error"]
    assert error["code"] == "body_too_large"
    assert error["message"] == "The request body is larger than the 64 KiB this server accepts."


async def _users(db: AsyncSession) -> int:
    db.expire_all()
    return int((await db.execute(select(func.count()).select_from(User))).scalar_one())


def _register_body(size: int) -> bytes:
    """A valid registration padded with spaces to ``size`` bytes."""
    body = b'{"username": "grande", "password": "secreto123"}'
    return body + b" " * (size - len(body))


async def test_declared_length_past_the_cap_is_refused_and_stores_nothing(
    make_client: Make, db: AsyncSession
) -> None:
    c = make_client()
    before = await _users(db)
    _refused(await c.post("/api/auth/register", content=_register_body(CAP + 1), headers=JSON))
    assert await _users(db) == before
    # The same request at the cap goes through.
    r = await c.post("/api/auth/register", content=_register_body(CAP), headers=JSON)
    assert r.status_code == 201, r.text
    assert await _users(db) == before + 1


async def test_streamed_body_past_the_cap_is_refused(make_client: Make, db: AsyncSession) -> None:
    async def chunks(total: int) -> AsyncIterator[bytes]:
        body = _register_body(total)
        for i in range(0, total, CHUNK):
            yield body[i : i + CHUNK]

    c = make_client()
    before = await _users(db)
    # An async iterator is sent chunked: no Content-Length for the app to check.
    r = await c.post("/api/auth/register", content=chunks(CAP * 4), headers=JSON)
    assert "content-length" not in r.request.headers
    _refused(r)
    assert await _users(db) == before
    r = await c.post("/api/auth/register", content=chunks(CAP), headers=JSON)
    assert r.status_code == 201, r.text


async def _call(app: FastAPI, headers: list[tuple[bytes, bytes]], receive: Any) -> list[Message]:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/auth/login",
        "raw_path": b"/api/auth/login",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    await app(scope, receive, send)
    return sent


def _status(sent: list[Message]) -> int:
    return int(next(m["status"] for m in sent if m["type"] == "http.response.start"))


async def test_a_declared_200_mb_body_is_never_read(app: FastAPI) -> None:
    reads = 0

    async def receive() -> Message:
        nonlocal reads
        reads += 1
        return {"type": "http.request", "body": b"x" * CHUNK, "more_body": True}

    sent = await _call(app, [(b"content-length", str(200 * 1024 * 1024).encode())], receive)
    assert _status(sent) == 413
    assert reads == 0


async def test_an_endless_chunked_body_stops_being_read_at_the_cap(app: FastAPI) -> None:
    reads = 0

    async def receive() -> Message:
        nonlocal reads
        reads += 1
        assert reads < 1000, "the app kept reading an endless body"
        return {"type": "http.request", "body": b" " * CHUNK, "more_body": True}

    sent = await _call(app, [(b"transfer-encoding", b"chunked")], receive)
    assert _status(sent) == 413
    # The chunk that crosses the cap is the last one read.
    assert reads == CAP // CHUNK + 1
