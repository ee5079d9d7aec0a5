from datetime import timedelta

import httpx
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.db import utcnow
from app.users.models import Session
from app.users.tokens import SESSION_COOKIE
from tests.users.helpers import PASSWORD, register, session_cookie


def _with_token(token: str) -> dict[str, str]:
    return {"cookie": f"{SESSION_COOKIE}={token}"}


async def test_me_without_a_session_is_401(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/me")
    assert r.status_code == 401
    assert r.json()["error"]["code"] == "not_authenticated"


async def test_me_with_a_made_up_token_is_401(
    make_client: "type[httpx.AsyncClient]",
) -> None:
    anon = make_client()
    for token in ["nonsense", "x" * 43, "y" * 5000]:
        assert (await anon.get("/api/me", headers=_with_token(token))).status_code == 401


async def test_logout_revokes_the_session_for_every_later_request(
    client: httpx.AsyncClient, make_client: "type[httpx.AsyncClient]", db: AsyncSession
) -> None:
    token = session_cookie(await register(client, "Quique"))
    other = make_client()  # a second device, replaying the same cookie
    assert (await other.get("/api/me", headers=_with_token(token))).status_code == 200

    r = await client.post("/api/auth/logout")
    assert r.status_code == 204
    assert (
        f'{SESSION_COOKIE}=""' in r.headers["set-cookie"] or "Max-Age=0" in r.headers["set-cookie"]
    )
    for _ in range(2):
        assert (await other.get("/api/me", headers=_with_token(token))).status_code == 401
        claim = await other.post(
            "/api/auth/claim",
            json={"username": "someone", "password": PASSWORD},
            headers=_with_token(token),
        )
        assert claim.status_code == 401
    revoked = (await db.execute(select(Session.revoked_at))).scalar_one()
    assert revoked is not None


async def test_logout_ends_only_that_session(
    client: httpx.AsyncClient, make_client: "type[httpx.AsyncClient]"
) -> None:
    await register(client, "Rosa")
    laptop = make_client()
    r = await laptop.post("/api/auth/login", json={"username": "Rosa", "password": PASSWORD})
    assert r.status_code == 200
    assert (await client.post("/api/auth/logout")).status_code == 204
    assert (await laptop.get("/api/me")).status_code == 200


async def test_logout_without_a_session_is_harmless(client: httpx.AsyncClient) -> None:
    assert (await client.post("/api/auth/logout")).status_code == 204


async def test_expired_session_is_401(client: httpx.AsyncClient, db: AsyncSession) -> None:
    await register(client, "Sara")
    assert (await client.get("/api/me")).status_code == 200
    await db.execute(update(Session).values(expires_at=utcnow() - timedelta(seconds=1)))
    await db.commit()
    r = await client.get("/api/me")
    assert r.status_code == 401
    assert r.json()["error"]["code"] == "not_authenticated"


async def test_session_lasts_the_configured_days(
    client: httpx.AsyncClient, db: AsyncSession
) -> None:
    await register(client, "Tomas")
    row = (await db.execute(select(Session))).scalar_one()
    lifetime = row.expires_at - row.created_at
    assert timedelta(days=30) - timedelta(seconds=5) <= lifetime <= timedelta(days=30)
