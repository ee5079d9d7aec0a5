"""The operator's chip-dumping report and release: the JSON admin API behind the
operator token, the ``python -m app.ops integrity`` command, and what signups record."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import httpx
import orjson
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.economy import holds
from app.economy.hooks import EconomyTables
from app.users.models import User
from tests.economy.helpers import balance, coins, new_users
from tests.economy.test_chip_dumping import BET, play
from tests.support import REPO_ROOT

TOKEN = "op-secret-token"
AUTH = {"authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"operator_token": TOKEN, "db_pool_size": 10}


async def flagged_winner(app: FastAPI, econ: EconomyTables) -> tuple[int, int]:
    s = app.state.settings
    (fresh,) = await new_users(app.state.sessionmaker, 1, days_old=0)
    (winner,) = await new_users(app.state.sessionmaker, 1)
    for _ in range(s.integrity_pair_games + 1):
        await play(econ, [winner], [fresh], BET)
    return winner, fresh


async def test_the_admin_api_needs_the_operator_token(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    assert (await client.get("/api/admin/integrity")).status_code == 401
    wrong = await client.get("/api/admin/integrity", headers={"authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "not_operator"
    ok = await client.get("/api/admin/integrity", headers=AUTH)
    assert ok.status_code == 200 and ok.json() == {"pairs": [], "winners": []}
    app.state.settings.operator_token = None
    assert (await client.get("/api/admin/integrity", headers=AUTH)).status_code == 404


async def test_the_report_lists_pairs_and_twenty_racing_releases_pay_once(
    app: FastAPI, econ: EconomyTables, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    maker = app.state.sessionmaker
    winner, fresh = await flagged_winner(app, econ)
    async with make_client() as client:
        got = (await client.get("/api/admin/integrity", headers=AUTH)).json()
    [pair] = got["pairs"]
    assert (pair["winner"]["id"], pair["loser"]["id"], pair["reason"]) == (winner, fresh, "pair")
    assert (pair["games"], pair["coins"], pair["state"]) == (2, 2 * BET, "open")
    [w] = got["winners"]
    assert (w["id"], w["held_coins"], w["held_games"]) == (winner, 2 * BET, 2)
    [action] = w["actions"]
    before = await coins(maker, winner)

    async def release() -> httpx.Response:
        async with make_client() as client:
            return await client.post(action["path"], headers=AUTH)

    answers = await asyncio.gather(*(release() for _ in range(20)))
    assert {a.status_code for a in answers} == {200}
    assert sorted(a.json()["coins"] for a in answers) == [0] * 19 + [2 * BET]
    assert await coins(maker, winner) == before + 2 * BET
    assert await balance(maker, holds.withheld(winner).key) == 0
    async with make_client() as client:
        assert (await client.get("/api/admin/integrity", headers=AUTH)).json()["pairs"] == []
        every = await client.get("/api/admin/integrity?include_released=true", headers=AUTH)
    assert [p["state"] for p in every.json()["pairs"]] == ["released"]


async def test_the_ops_command_prints_the_report_and_releases(
    app: FastAPI, econ: EconomyTables
) -> None:
    winner, _ = await flagged_winner(app, econ)
    env = {
        **os.environ,
        "BURACO_ENV": "test",
        "BURACO_DATABASE_URL": app.state.settings.database_url,
        "BURACO_VAR_DIR": str(app.state.settings.var_dir),
    }

    def run(*args: str) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-m", "app.ops", "integrity", *args],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            timeout=60,
            check=True,
        )
        out: dict[str, Any] = orjson.loads(done.stdout)
        return out

    first = await asyncio.to_thread(run)
    assert [w["held_coins"] for w in first["winners"]] == [2 * BET]
    released = await asyncio.to_thread(run, "--release", str(winner))
    assert released["released"] == {"user_id": winner, "games": 2, "coins": 2 * BET}
    again = await asyncio.to_thread(run, "--release", str(winner), "--all")
    assert again["released"]["coins"] == 0
    assert [p["state"] for p in again["pairs"]] == ["released"]


async def test_signups_record_a_hash_of_their_address_and_the_wallet_shows_the_cap(
    app: FastAPI, make_client: Callable[[], httpx.AsyncClient]
) -> None:
    ids = []
    for _ in range(2):
        async with make_client() as client:
            me = await client.post("/api/auth/guest")
            assert me.status_code == 201
            ids.append(me.json()["id"])
            wallet = (await client.get("/api/wallet")).json()
            assert wallet["max_bet"] == app.state.settings.guest_max_bet
            assert wallet["held"] == 0
    async with app.state.sessionmaker() as db:
        addrs = (await db.execute(select(User.signup_addr).where(User.id.in_(ids)))).scalars()
        got = list(addrs)
    assert got[0] is not None and got[0] == got[1] and "127.0.0.1" not in got[0]
