import hashlib
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.users.models import Session, User
from tests.users.helpers import PASSWORD, Snapshot, cookie_header, register, session_cookie


async def test_register_creates_account_and_logs_in(
    client: httpx.AsyncClient, db: AsyncSession
) -> None:
    r = await client.post("/api/auth/register", json={"username": "Ana_1", "password": PASSWORD})
    assert r.status_code == 201
    body = r.json()
    assert body["username"] == "Ana_1"
    assert body["nickname"] == "Ana_1"
    assert body["is_guest"] is False
    assert isinstance(body["id"], int)
    assert body["created_at"].endswith("Z") or "+00:00" in body["created_at"]

    me = await client.get("/api/me")
    assert me.status_code == 200
    assert me.json() == body

    user = (await db.execute(select(User))).scalar_one()
    assert user.username_lower == "ana_1"
    assert user.password_hash is not None and PASSWORD not in user.password_hash


async def test_session_cookie_flags(client: httpx.AsyncClient) -> None:
    header = cookie_header(await register(client, "cookie_user")).lower()
    assert "httponly" in header
    assert "samesite=lax" in header
    assert "path=/" in header
    assert "max-age=" in header
    assert "secure" not in header.replace("httponly", "")


@pytest.mark.parametrize("settings_overrides", [{"cookie_secure": True}])
async def test_session_cookie_is_secure_when_configured(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/api/auth/register", json={"username": "secure_user", "password": PASSWORD}
    )
    assert r.status_code == 201
    assert "; secure" in cookie_header(r).lower()


async def test_password_is_hashed_with_argon2id_at_owasp_parameters(
    client: httpx.AsyncClient, db: AsyncSession
) -> None:
    await register(client, "hash_user")
    stored = (await db.execute(select(User.password_hash))).scalar_one()
    assert stored is not None
    assert stored.startswith("$argon2id$v=19$m=19456,t=2,p=1$")


async def test_only_a_hash_of_the_token_is_stored(
    client: httpx.AsyncClient, db: AsyncSession
) -> None:
    token = session_cookie(await register(client, "token_user"))
    stored = (await db.execute(select(Session.token_hash))).scalar_one()
    assert stored == hashlib.sha256(token.encode()).hexdigest()
    assert token not in stored


@pytest.mark.parametrize("taken", ["Carla", "carla", "CARLA", "cArLa"])
async def test_duplicate_username_is_409_case_insensitively(
    client: httpx.AsyncClient, snapshot: Snapshot, taken: str
) -> None:
    await register(client, "Carla")
    before = await snapshot()
    r = await client.post("/api/auth/register", json={"username": taken, "password": PASSWORD})
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "username_taken"
    assert await snapshot() == before


BAD_BODIES: list[tuple[str, Any, str]] = [
    ("short username", {"username": "ab", "password": PASSWORD}, "username"),
    ("long username", {"username": "a" * 21, "password": PASSWORD}, "username"),
    ("space in username", {"username": "ana maria", "password": PASSWORD}, "username"),
    ("accent in username", {"username": "añoranza", "password": PASSWORD}, "username"),
    ("dash in username", {"username": "ana-maria", "password": PASSWORD}, "username"),
    ("reserved guest name", {"username": "Invitado1234", "password": PASSWORD}, "username"),
    ("short password", {"username": "valid_name", "password": "1234567"}, "password"),
    ("huge password", {"username": "valid_name", "password": "x" * 129}, "password"),
    ("missing password", {"username": "valid_name"}, "password"),
    ("missing username", {"password": PASSWORD}, "username"),
    ("number username", {"username": 12345, "password": PASSWORD}, "username"),
    ("extra field", {"username": "valid_name", "password": PASSWORD, "admin": True}, "admin"),
    ("not an object", ["valid_name", PASSWORD], "body"),
]


@pytest.mark.parametrize(("case", "body", "field"), BAD_BODIES, ids=[c[0] for c in BAD_BODIES])
async def test_bad_signup_input_is_422_naming_the_field(
    client: httpx.AsyncClient, snapshot: Snapshot, case: str, body: Any, field: str
) -> None:
    before = await snapshot()
    r = await client.post("/api/auth/register", json=body)
    assert r.status_code == 422, case
    error = r.json()["error"]
    assert error["code"] == "validation_error"
    assert error["message"].startswith(f"{field}: ") or f"; {field}: " in error["message"]
    assert field in {f["field"] for f in error["fields"]}
    assert "set-cookie" not in r.headers
    assert await snapshot() == before


async def test_username_length_bounds_are_inclusive(client: httpx.AsyncClient) -> None:
    await register(client, "abc")
    await register(client, "a" * 20)


async def test_validation_message_is_readable(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/auth/register", json={"username": "ab", "password": PASSWORD})
    assert r.json()["error"]["message"] == "username: String should have at least 3 characters"


async def test_malformed_json_is_422(client: httpx.AsyncClient, snapshot: Snapshot) -> None:
    before = await snapshot()
    r = await client.post(
        "/api/auth/register",
        content=b'{"username": "x", ',
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "validation_error"
    assert await snapshot() == before
