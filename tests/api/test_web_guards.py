"""Cross-site requests, security headers and NUL bytes, through the real app on
PostgreSQL and Redis (docs/security.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.config import Settings
from app.core.origins import origin_allowed
from app.economy.models import Entry
from app.users.models import User
from tests.economy.helpers import assert_conserved
from tests.support import LIFESPAN_TIMEOUTS

Make = Callable[[], httpx.AsyncClient]


async def _guest(make_client: Make) -> httpx.AsyncClient:
    c = make_client()
    r = await c.post("/api/auth/guest")
    assert r.status_code == 201, r.text
    return c


async def _ledger_rows(db: AsyncSession) -> int:
    db.expire_all()
    return int((await db.execute(select(func.count()).select_from(Entry))).scalar_one())


# ---------------------------------------------------------------- Origin


def test_origin_rule() -> None:
    s = Settings(env="test", ws_allowed_origins=["https://buraco.example"])
    # The site's own origin on any port, with or without the scheme's default port.
    assert origin_allowed("http://127.0.0.1:18111", "127.0.0.1:18111", s)
    assert origin_allowed("https://game.example", "game.example:443", s)
    assert origin_allowed("https://game.example", "game.example", s)  # TLS proxy in front
    assert origin_allowed("https://buraco.example/", "other.host", s)
    assert origin_allowed(None, "game.example", s)
    assert not origin_allowed("http://127.0.0.1:9999", "127.0.0.1:18111", s)
    assert not origin_allowed("https://evil.example", "game.example", s)
    assert not origin_allowed("https://game.example.evil.example", "game.example", s)
    assert not origin_allowed("null", "game.example", s)


async def test_foreign_origin_post_is_refused_and_changes_nothing(
    app: FastAPI, make_client: Make, db: AsyncSession
) -> None:
    c = await _guest(make_client)
    before = await _ledger_rows(db)
    for headers in (
        {"Origin": "https://evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "http://testserver:8001"},
    ):
        r = await c.post("/api/wallet/daily-bonus", headers=headers)
        assert r.status_code == 403, (headers, r.text)
        assert r.json()["error"]["code"] == "bad_origin"
    assert await _ledger_rows(db) == before
    # The site itself (browsers send its Origin on a POST) still works.
    r = await c.post(
        "/api/wallet/daily-bonus",
        headers={"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"},
    )
    assert r.status_code == 200, r.text
    assert await _ledger_rows(db) > before
    await assert_conserved(app.state.sessionmaker)


async def test_foreign_origin_logout_and_login_are_refused(make_client: Make) -> None:
    c = await _guest(make_client)
    r = await c.post("/api/auth/logout", headers={"Origin": "https://evil.example"})
    assert r.status_code == 403
    assert (await c.get("/api/me")).status_code == 200  # still signed in
    # Reading is not state-changing: a GET with a foreign Origin is answered.
    assert (await c.get("/api/me", headers={"Origin": "https://evil.example"})).status_code == 200


@pytest.mark.parametrize("settings_overrides", [{"ws_allowed_origins": ["https://app.example"]}])
async def test_listed_origin_may_post(make_client: Make) -> None:
    c = await _guest(make_client)
    r = await c.post(
        "/api/wallet/daily-bonus",
        headers={"Origin": "https://app.example", "Sec-Fetch-Site": "cross-site"},
    )
    assert r.status_code == 200, r.text


# ---------------------------------------------------------------- headers


def _assert_security_headers(r: httpx.Response, hsts: bool) -> None:
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp
    assert (
        "script-src 'self'" in csp
        and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    )
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "same-origin"
    assert ("strict-transport-security" in r.headers) is hsts


async def test_security_headers_on_api_page_and_errors(client: httpx.AsyncClient) -> None:
    for r in (
        await client.get("/api/me"),
        await client.get("/"),
        await client.get("/healthz"),
        await client.get("/nowhere"),
        await client.post("/api/auth/login", json={}),
    ):
        _assert_security_headers(r, hsts=False)


async def test_security_headers_on_the_built_client(settings: Settings, tmp_path: Path) -> None:
    from asgi_lifespan import LifespanManager

    from app.main import create_app

    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text(
        "<!doctype html><script type=module src=/assets/a.js></script>"
    )
    (dist / "assets" / "a.js").write_text("console.log(1)")
    app = create_app(settings.model_copy(update={"frontend_dir": dist, "cookie_secure": True}))
    async with LifespanManager(app, **LIFESPAN_TIMEOUTS):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            for path in ("/", "/assets/a.js", "/api/me"):
                r = await c.get(path)
                _assert_security_headers(r, hsts=True)
                assert "ws://t wss://t" in r.headers["content-security-policy"]


async def test_security_headers_on_an_unexpected_500(settings: Settings) -> None:
    from asgi_lifespan import LifespanManager

    from app.main import create_app

    app = create_app(settings)

    async def boom() -> None:
        raise RuntimeError("a bug")

    app.add_api_route("/api/boom", boom)
    async with LifespanManager(app, **LIFESPAN_TIMEOUTS):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            r = await c.get("/api/boom")
    assert r.status_code == 500 and r.json()["error"]["code"] == "internal_error"
    _assert_security_headers(r, hsts=False)


# ---------------------------------------------------------------- NUL


async def _named_nul(r: httpx.Response, field: str) -> None:
    assert r.status_code == 422, r.text
    body = r.json()["error"]
    assert body["code"] == "validation_error"
    assert [f["field"] for f in body["fields"]] == [field]
    assert "NUL" in body["message"]


async def test_nul_in_login_challenge_and_invite_is_a_422(
    make_client: Make, db: AsyncSession
) -> None:
    c = await _guest(make_client)
    users_before = (await db.execute(select(func.count()).select_from(User))).scalar_one()
    await _named_nul(
        await c.post("/api/auth/login", json={"username": "a\u0000b", "password": "x"}), "username"
    )
    await _named_nul(await c.post("/api/challenges", json={"username": "x\u0000"}), "username")
    r = await c.post("/api/tables", json={"name": "mesa"})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    await _named_nul(
        await c.post(f"/api/tables/{tid}/invite", json={"usernames": ["ok", "b\u0000d"]}),
        "usernames.1",
    )
    db.expire_all()
    assert (await db.execute(select(func.count()).select_from(User))).scalar_one() == users_before


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "field"),
    [
        (
            "post",
            "/api/auth/register",
            {"json": {"username": "ab\u0000c", "password": "p" * 9}},
            "username",
        ),
        ("post", "/api/chat/lobby", {"json": {"text": "hola\u0000"}}, "text"),
        ("post", "/api/tables", {"json": {"name": "x", "rules": {"k\u0000": 1}}}, "rules.k"),
        ("get", "/api/players/search", {"params": {"q": "a\u0000"}}, "q"),
        ("get", "/api/tables/ab%00cd", {}, "path"),
    ],
)
async def test_nul_anywhere_is_a_422_naming_the_field(
    make_client: Make, method: str, path: str, kwargs: dict[str, Any], field: str
) -> None:
    c = await _guest(make_client)
    await _named_nul(await getattr(c, method)(path, **kwargs), field)
