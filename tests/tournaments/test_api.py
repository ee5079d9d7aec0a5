"""The tournament endpoints: clear refusals that change nothing, 20 registrations at
once over HTTP, the operator's endpoints behind the token."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.db import utcnow
from app.tournaments import money
from tests.economy.helpers import balance, client_for, coins, new_users

TOKEN = "op-secret-token"
BUY_IN = 10_000


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"operator_token": TOKEN, "db_pool_size": 10, "tournament_fee_bps": 1_000}


Make = Callable[[], httpx.AsyncClient]


async def _people(app: FastAPI, make_client: Make, n: int) -> list[tuple[int, httpx.AsyncClient]]:
    users = await new_users(app.state.sessionmaker, n)
    return [(u, await client_for(app, make_client, u)) for u in users]


async def test_a_sitgo_opened_by_a_player_registers_its_creator(
    app: FastAPI, make_client: Make
) -> None:
    ((u, c),) = await _people(app, make_client, 1)
    r = await c.post("/api/tournaments", json={"entrants": 4, "buy_in": BUY_IN})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["registered"] and body["entrants"] == 1 and body["state"] == "registering"
    # the published table of a 4-entrant field (70/30) over the pool paid in so far
    assert body["prizes"] == [6_300, 2_700]
    assert await coins(app.state.sessionmaker, u) == app.state.settings.starting_coins - BUY_IN
    listed = (await c.get("/api/tournaments", params={"status": "upcoming"})).json()
    assert [t["id"] for t in listed] == [body["id"]] and listed[0]["registered"]
    assert (await c.get("/api/tournaments", params={"status": "finished"})).json() == []
    detail = (await c.get(f"/api/tournaments/{body['id']}")).json()
    assert [e["user_id"] for e in detail["entrants_list"]] == [u]
    assert detail["standings"] == [] and detail["rounds_list"] == []


@pytest.mark.parametrize(
    "body",
    [
        {"entrants": 5},
        {"entrants": 4, "buy_in": -1},
        {"entrants": 4, "players": 3},
        {"entrants": 4, "format": "round_robin"},
        {"entrants": 4, "hands": 0},
        {"entrants": 4, "unknown": 1},
        {"entrants": 4, "name": ""},
    ],
)
async def test_bad_input_is_a_clear_422_and_nothing_is_made(
    app: FastAPI, make_client: Make, body: dict[str, Any]
) -> None:
    ((_, c),) = await _people(app, make_client, 1)
    r = await c.post("/api/tournaments", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"]
    assert (await c.get("/api/tournaments")).json() == []


async def test_refusals_have_stable_codes(app: FastAPI, make_client: Make) -> None:
    (a, ca), (b, cb) = await _people(app, make_client, 2)
    assert (await ca.get("/api/tournaments/999")).json()["error"]["code"] == "tournament_not_found"
    assert (await ca.post("/api/tournaments/999/register")).status_code == 404
    bad = await ca.get("/api/tournaments", params={"status": "someday"})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_status"
    tid = (await ca.post("/api/tournaments", json={"entrants": 4})).json()["id"]
    again = await ca.post(f"/api/tournaments/{tid}/register")
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_registered"
    gone = await cb.post(f"/api/tournaments/{tid}/unregister")
    assert gone.status_code == 409 and gone.json()["error"]["code"] == "not_registered"
    anon = make_client()
    assert (await anon.post(f"/api/tournaments/{tid}/register")).status_code == 401
    assert (await anon.get(f"/api/tournaments/{tid}")).status_code == 200


async def test_twenty_registrations_at_once_over_http(app: FastAPI, make_client: Make) -> None:
    maker = app.state.sessionmaker
    people = await _people(app, make_client, 20)
    (_, host), rest = people[0], people[1:]
    tid = (
        await host.post(
            "/api/tournaments", json={"entrants": 16, "buy_in": BUY_IN, "format": "swiss"}
        )
    ).json()["id"]
    # the same person 20 times at once: one place, one buy-in
    (first, same), others = rest[0], rest[1:]
    again = await asyncio.gather(
        *(same.post(f"/api/tournaments/{tid}/register") for _ in range(20))
    )
    assert sum(r.status_code == 200 for r in again) == 1
    assert {r.json()["error"]["code"] for r in again if r.status_code != 200} == {
        "already_registered"
    }
    assert await coins(maker, first) == app.state.settings.starting_coins - BUY_IN
    # 18 people for the last 14 places (the tournament starts when full)
    answers = await asyncio.gather(*(c.post(f"/api/tournaments/{tid}/register") for _, c in others))
    codes = [r.json()["error"]["code"] if r.status_code != 200 else "ok" for r in answers]
    assert codes.count("ok") == 14, codes
    assert set(codes) - {"ok"} <= {"tournament_full", "registration_closed"}
    assert await balance(maker, money.escrow(tid).key) == 16 * BUY_IN


async def test_the_operator_creates_and_cancels_with_refunds(
    app: FastAPI, make_client: Make
) -> None:
    maker = app.state.sessionmaker
    op = make_client()
    starts = (utcnow() + timedelta(hours=2)).isoformat()
    body = {"name": "Copa del sábado", "starts_at": starts, "buy_in": BUY_IN, "min_entrants": 4}
    assert (await op.post("/api/admin/tournaments", json=body)).status_code == 401
    auth = {"Authorization": f"Bearer {TOKEN}"}
    past = {**body, "starts_at": (utcnow() - timedelta(hours=1)).isoformat()}
    r = await op.post("/api/admin/tournaments", json=past, headers=auth)
    assert r.status_code == 422 and r.json()["error"]["code"] == "starts_in_past"
    bad = {**body, "prize_table": [5000, 4000]}
    assert (await op.post("/api/admin/tournaments", json=bad, headers=auth)).status_code == 422
    r = await op.post("/api/admin/tournaments", json=body, headers=auth)
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    assert r.json()["kind"] == "scheduled" and r.json()["registration_open"]
    people = await _people(app, make_client, 3)
    for _, c in people:
        assert (await c.post(f"/api/tournaments/{tid}/register")).status_code == 200
    paid = await coins(maker, people[0][0])
    cancels = await asyncio.gather(
        *(op.post(f"/api/admin/tournaments/{tid}/cancel", headers=auth) for _ in range(20))
    )
    assert all(c.status_code == 200 for c in cancels)
    assert cancels[0].json()["state"] == "cancelled"
    for u, _ in people:
        assert await coins(maker, u) == paid + BUY_IN
    assert await balance(maker, money.escrow(tid).key) == 0
