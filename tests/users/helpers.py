"""Helpers for the account tests."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from app.users.tokens import SESSION_COOKIE

PASSWORD = "correct horse battery"

Snapshot = Callable[[], Awaitable[dict[str, Any]]]


async def register(
    client: httpx.AsyncClient, username: str, password: str = PASSWORD
) -> httpx.Response:
    r = await client.post("/api/auth/register", json={"username": username, "password": password})
    assert r.status_code == 201, r.text
    return r


def session_cookie(response: httpx.Response) -> str:
    token = response.cookies.get(SESSION_COOKIE)
    assert token, f"no {SESSION_COOKIE} cookie in {response.headers.get_list('set-cookie')}"
    return token


def cookie_header(response: httpx.Response) -> str:
    """The raw Set-Cookie header of the session cookie."""
    for value in response.headers.get_list("set-cookie"):
        if value.startswith(f"{SESSION_COOKIE}="):
            return value
    raise AssertionError("no session cookie set")
