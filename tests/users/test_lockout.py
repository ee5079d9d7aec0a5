"""A stranger guessing someone's password is slowed down; the owner still gets in.

Each client is a distinct client address (httpx's ASGI transport sets it), through the
real app on PostgreSQL and Redis."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.users.helpers import PASSWORD, register

WRONG = {"username": "Olivia", "password": "not-her-password"}
RIGHT = {"username": "Olivia", "password": PASSWORD}


def _from(app: FastAPI, ip: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(ip, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


async def test_a_stranger_cannot_lock_the_owner_out(app: FastAPI) -> None:
    async with _from(app, "10.0.0.1") as owner, _from(app, "10.6.6.6") as stranger:
        await register(owner, "Olivia")
        owner.cookies.clear()
        codes = [
            (await stranger.post("/api/auth/login", json=WRONG)).status_code for _ in range(10)
        ]
        # Tight per (username, address): 5 wrong guesses, then that address waits.
        assert codes == [401] * 5 + [429] * 5, codes
        r = await stranger.post("/api/auth/login", json=RIGHT)
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        # The owner, from her own address, signs in at once.
        r = await owner.post("/api/auth/login", json=RIGHT)
        assert r.status_code == 200, r.text
        # Another address that never signed in is not blocked either.
        async with _from(app, "10.0.0.2") as phone:
            assert (await phone.post("/api/auth/login", json=RIGHT)).status_code == 200


@pytest.mark.parametrize("settings_overrides", [{"login_limit_per_username": 20}])
async def test_guessing_from_many_addresses_backs_off_but_not_for_the_owner(app: FastAPI) -> None:
    async with _from(app, "10.0.0.1") as owner:
        await register(owner, "Olivia")
        owner.cookies.clear()
        assert (await owner.post("/api/auth/login", json=RIGHT)).status_code == 200
        owner.cookies.clear()
        codes = []
        for i in range(30):  # a botnet: one guess from each of 30 addresses
            async with _from(app, f"10.9.0.{i}") as bot:
                codes.append((await bot.post("/api/auth/login", json=WRONG)).status_code)
        assert codes[:20] == [401] * 20 and set(codes[20:]) == {429}, codes
        async with _from(app, "10.9.1.1") as late:
            r = await late.post("/api/auth/login", json=RIGHT)
            assert r.status_code == 429  # unknown addresses wait out the backoff
            first_block = int(r.headers["retry-after"])
        # The owner's known address is never held by the per-username limit.
        assert (await owner.post("/api/auth/login", json=RIGHT)).status_code == 200
        assert 1 <= first_block <= 900
