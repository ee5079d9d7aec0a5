import asyncio
from datetime import timedelta

import httpx
import pytest
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


# Room for forty changes from one address (the login limits count each change's check
# of the current password: five per username and address by default).
ROOM = {
    "login_limit_per_user_ip": 100,
    "login_limit_per_ip": 100,
    "login_limit_per_username": 100,
}


@pytest.mark.parametrize("settings_overrides", [ROOM])
async def test_password_changes_sent_at_once_each_check_the_last_one(
    make_client: "type[httpx.AsyncClient]",
) -> None:
    """The same change sent twenty times at once: all answer 204 and the new password
    is the one set. Twenty different changes at once from the same "current" password:
    one is made, the other nineteen find it no longer current (401), and only the
    winner's password logs in."""
    owner = make_client()
    await register(owner, "pw_racer")
    tabs = [make_client() for _ in range(20)]
    for tab in tabs:
        tab.cookies = owner.cookies

    def change(tab: httpx.AsyncClient, current: str, new: str) -> object:
        body = {"current_password": current, "new_password": new}
        return tab.post("/api/auth/password", json=body)

    same = await asyncio.gather(*(change(t, PASSWORD, "nueva clave uno") for t in tabs))
    assert [r.status_code for r in same] == [204] * 20, [r.text for r in same]

    async def logs_in(password: str) -> bool:
        body = {"username": "pw_racer", "password": password}
        return (await make_client().post("/api/auth/login", json=body)).status_code == 200

    assert await logs_in("nueva clave uno")

    others = await asyncio.gather(
        *(change(t, "nueva clave uno", f"clave distinta {i}") for i, t in enumerate(tabs))
    )
    won = [i for i, r in enumerate(others) if r.status_code == 204]
    assert len(won) == 1, sorted(r.status_code for r in others)
    assert {r.json()["error"]["code"] for r in others if r.status_code != 204} == {
        "invalid_credentials"
    }
    assert await logs_in(f"clave distinta {won[0]}")
    assert not await logs_in(f"clave distinta {(won[0] + 1) % 20}")
