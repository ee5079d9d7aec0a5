import httpx
import pytest

from app.users.passwords import Passwords
from tests.users.helpers import PASSWORD, Snapshot, register, session_cookie


async def test_login_gives_a_new_working_session(client: httpx.AsyncClient) -> None:
    first = session_cookie(await register(client, "Luis"))
    client.cookies.clear()
    r = await client.post("/api/auth/login", json={"username": "Luis", "password": PASSWORD})
    assert r.status_code == 200
    assert r.json()["username"] == "Luis"
    second = session_cookie(r)
    assert second != first
    assert (await client.get("/api/me")).json()["username"] == "Luis"


async def test_login_username_is_case_insensitive(client: httpx.AsyncClient) -> None:
    await register(client, "Marta")
    r = await client.post("/api/auth/login", json={"username": "mARTA", "password": PASSWORD})
    assert r.status_code == 200
    assert r.json()["username"] == "Marta"


async def test_wrong_password_and_unknown_user_get_the_same_401(
    client: httpx.AsyncClient, snapshot: Snapshot
) -> None:
    await register(client, "Nora")
    client.cookies.clear()
    before = await snapshot()
    wrong = await client.post("/api/auth/login", json={"username": "Nora", "password": "nope" * 3})
    unknown = await client.post(
        "/api/auth/login", json={"username": "Nobody", "password": PASSWORD}
    )
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert wrong.json()["error"]["code"] == "invalid_credentials"
    assert "set-cookie" not in wrong.headers and "set-cookie" not in unknown.headers
    assert await snapshot() == before


async def test_guest_accounts_cannot_log_in_by_nickname(client: httpx.AsyncClient) -> None:
    nickname = (await client.post("/api/auth/guest")).json()["nickname"]
    client.cookies.clear()
    r = await client.post("/api/auth/login", json={"username": nickname, "password": PASSWORD})
    assert r.status_code == 401


@pytest.mark.parametrize(
    "body",
    [{}, {"username": "x"}, {"password": PASSWORD}, {"username": "", "password": PASSWORD}],
)
async def test_malformed_login_is_422(
    client: httpx.AsyncClient, snapshot: Snapshot, body: dict[str, str]
) -> None:
    before = await snapshot()
    r = await client.post("/api/auth/login", json=body)
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "validation_error"
    assert await snapshot() == before


def test_unknown_user_still_runs_a_full_hash_verification(monkeypatch: pytest.MonkeyPatch) -> None:
    passwords = Passwords(time_cost=2, memory_kib=19456, parallelism=1)
    seen: list[str] = []
    real = passwords._hasher

    class Spy:
        def verify(self, hash_: str, password: str) -> bool:
            seen.append(hash_)
            return real.verify(hash_, password)

    monkeypatch.setattr(passwords, "_hasher", Spy())
    assert passwords.verify_sync(None, PASSWORD) is False
    assert len(seen) == 1 and seen[0].startswith("$argon2id$")

    monkeypatch.undo()
    stored = passwords.hash_sync(PASSWORD)
    assert passwords.verify_sync(stored, PASSWORD) is True
    assert passwords.verify_sync(stored, PASSWORD + "x") is False
    assert passwords.verify_sync("not-a-hash", PASSWORD) is False
