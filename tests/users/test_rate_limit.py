import httpx
import pytest

from tests.users.helpers import PASSWORD, Snapshot, register

LIMITS = {"login_limit_per_username": 3, "login_limit_per_ip": 5, "login_window_seconds": 120}


def _assert_429(r: httpx.Response) -> None:
    assert r.status_code == 429
    assert r.json()["error"]["code"] == "rate_limited"
    retry_after = int(r.headers["retry-after"])
    assert 1 <= retry_after <= LIMITS["login_window_seconds"]


@pytest.mark.parametrize("settings_overrides", [LIMITS])
async def test_too_many_logins_for_one_username_get_429(
    client: httpx.AsyncClient, snapshot: Snapshot
) -> None:
    await register(client, "Olga")
    client.cookies.clear()
    for _ in range(3):
        r = await client.post("/api/auth/login", json={"username": "Olga", "password": "bad" * 4})
        assert r.status_code == 401
    before = await snapshot()
    # Even the right password is refused now, and the refusal stores nothing.
    r = await client.post("/api/auth/login", json={"username": "olga", "password": PASSWORD})
    _assert_429(r)
    assert "set-cookie" not in r.headers
    assert await snapshot() == before
    # Another account from the same address is not locked out by Olga's counter.
    await register(client, "Pablo")
    client.cookies.clear()
    ok = await client.post("/api/auth/login", json={"username": "Pablo", "password": PASSWORD})
    assert ok.status_code == 200


@pytest.mark.parametrize("settings_overrides", [LIMITS])
async def test_too_many_logins_from_one_address_get_429(client: httpx.AsyncClient) -> None:
    for i in range(5):
        r = await client.post(
            "/api/auth/login", json={"username": f"ghost{i}", "password": PASSWORD}
        )
        assert r.status_code == 401
    _assert_429(
        await client.post("/api/auth/login", json={"username": "ghost_new", "password": PASSWORD})
    )


SIGNUP_LIMITS = {"signup_limit_per_ip": 3, "signup_window_seconds": 600}


@pytest.mark.parametrize("settings_overrides", [SIGNUP_LIMITS])
async def test_new_accounts_per_address_are_limited(
    client: httpx.AsyncClient, snapshot: Snapshot
) -> None:
    await register(client, "Quino")
    assert (await client.post("/api/auth/guest")).status_code == 201
    assert (await client.post("/api/auth/guest")).status_code == 201
    before = await snapshot()
    for r in (
        await client.post("/api/auth/guest"),
        await client.post("/api/auth/register", json={"username": "Zoe", "password": PASSWORD}),
    ):
        assert r.status_code == 429
        assert r.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(r.headers["retry-after"]) <= 600
    assert await snapshot() == before
