"""The clock's and quick play's options over HTTP (in-process app, real Postgres and
Redis): a table's ``time_bank``, refused out of range with nothing created; the options
"Crear partida" and "¡Juega ya!" read; quick play's ``match``."""

from __future__ import annotations

from collections.abc import Callable

import httpx

Make = Callable[[], httpx.AsyncClient]


async def _guest(make_client: Make) -> httpx.AsyncClient:
    c = make_client()
    r = await c.post("/api/auth/guest")
    assert r.status_code == 201, r.text
    return c


async def test_a_table_keeps_its_time_bank_and_a_bad_one_is_refused(make_client: Make) -> None:
    c = await _guest(make_client)
    before = (await c.get("/api/tables")).json()["tables"]
    for bad in (-1, 301, 2.5, "sixty"):
        r = await c.post("/api/tables", json={"name": "reloj", "bet": 0, "time_bank": bad})
        assert r.status_code == 422, (bad, r.text)
        error = r.json()["error"]
        assert error["code"] == "validation_error" and "time_bank" in error["message"]
    assert (await c.get("/api/tables")).json()["tables"] == before, "nothing was created"
    r = await c.post("/api/tables", json={"name": "reloj", "bet": 0, "time_bank": 90})
    assert r.status_code == 201, r.text
    assert r.json()["time_bank"] == 90
    r = await c.get(f"/api/tables/{r.json()['id']}")
    assert r.json()["time_bank"] == 90 and r.json()["bank"] is None


async def test_options_say_the_match_targets_and_the_default_bank(make_client: Make) -> None:
    c = await _guest(make_client)
    r = await c.get("/api/lobby/options")
    assert r.status_code == 200, r.text
    options = r.json()
    assert options["match_targets"]["brasil"] == 3000
    assert options["match_targets"]["cerrado"] == 2000
    assert options["time_bank"] == {"normal": 60, "turbo": 20}


async def test_quick_play_opens_a_match_or_a_single_hand(make_client: Make) -> None:
    c = await _guest(make_client)
    r = await c.post("/api/quickplay", json={"preset": "abierto", "players": 2, "match": True})
    assert r.status_code == 200, r.text
    assert r.json()["target_score"] == 2000 and r.json()["rules"]["target_score"] == 2000
    other = await _guest(make_client)
    r = await other.post("/api/quickplay", json={"preset": "abierto", "players": 2})
    assert r.status_code == 200, r.text
    assert r.json()["target_score"] == 0 and r.json()["status"] == "waiting"
    r = await other.post("/api/quickplay", json={"preset": "abierto", "match": "yes"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "validation_error"
