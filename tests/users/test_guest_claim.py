import asyncio
import re

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.users import service
from app.users.models import Session, User
from tests.users.helpers import PASSWORD, Snapshot, register, session_cookie


async def test_guest_gets_an_account_and_a_session_at_once(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/auth/guest")
    assert r.status_code == 201
    body = r.json()
    assert body["is_guest"] is True
    assert body["username"] is None
    assert re.fullmatch(r"Invitado\d{4}", body["nickname"])
    me = await client.get("/api/me")
    assert me.status_code == 200
    assert me.json() == body


async def test_guests_get_distinct_ids_and_nicknames(
    make_client: "type[httpx.AsyncClient]",
) -> None:
    bodies = [(await make_client().post("/api/auth/guest")).json() for _ in range(5)]
    assert len({b["id"] for b in bodies}) == 5
    assert len({b["nickname"] for b in bodies}) == 5


async def test_guest_nickname_skips_taken_ones(
    client: httpx.AsyncClient, db: AsyncSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = (await client.post("/api/auth/guest")).json()["nickname"]
    taken_number = int(first.removeprefix("Invitado"))
    draws = iter([taken_number, taken_number, 42])
    monkeypatch.setattr(service.secrets, "randbelow", lambda _n: next(draws))
    assert await service._free_guest_nickname(db) == "Invitado0042"


async def test_claim_keeps_the_same_account(
    client: httpx.AsyncClient, make_client: "type[httpx.AsyncClient]", db: AsyncSession
) -> None:
    guest = await client.post("/api/auth/guest")
    guest_id = guest.json()["id"]
    guest_token = session_cookie(guest)

    r = await client.post("/api/auth/claim", json={"username": "Ulises", "password": PASSWORD})
    assert r.status_code == 200
    body = r.json()
    assert body["id"] == guest_id
    assert body["is_guest"] is False
    assert body["username"] == "Ulises"
    assert body["created_at"] == guest.json()["created_at"]
    new_token = session_cookie(r)
    assert new_token != guest_token

    # The new session works, the guest's token does not (privilege changed).
    me = await client.get("/api/me")
    assert me.json()["id"] == guest_id
    stale = make_client()
    assert (
        await stale.get("/api/me", headers={"cookie": f"buraco_session={guest_token}"})
    ).status_code == 401
    # And the account now logs in with its new name.
    fresh = make_client()
    login = await fresh.post("/api/auth/login", json={"username": "ulises", "password": PASSWORD})
    assert login.status_code == 200
    assert login.json()["id"] == guest_id
    assert (await db.execute(select(User.id))).scalars().all() == [guest_id]


async def test_claim_needs_a_session(client: httpx.AsyncClient, snapshot: Snapshot) -> None:
    before = await snapshot()
    r = await client.post("/api/auth/claim", json={"username": "Vera", "password": PASSWORD})
    assert r.status_code == 401
    assert await snapshot() == before


async def test_claim_by_a_full_account_is_refused(
    client: httpx.AsyncClient, snapshot: Snapshot
) -> None:
    await register(client, "Wanda")
    before = await snapshot()
    r = await client.post("/api/auth/claim", json={"username": "Wanda2", "password": PASSWORD})
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "not_guest"
    assert await snapshot() == before


async def test_claim_with_a_taken_username_changes_nothing(
    client: httpx.AsyncClient, make_client: "type[httpx.AsyncClient]", snapshot: Snapshot
) -> None:
    await register(make_client(), "Ximena")
    await client.post("/api/auth/guest")
    before = await snapshot()
    r = await client.post("/api/auth/claim", json={"username": "XIMENA", "password": PASSWORD})
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "username_taken"
    assert await snapshot() == before
    assert (await client.get("/api/me")).json()["is_guest"] is True


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"username": "ok_name", "password": "short"}, "password"),
        ({"username": "no!", "password": PASSWORD}, "username"),
        ({"username": "Invitado77", "password": PASSWORD}, "username"),
    ],
)
async def test_claim_with_bad_input_is_422_and_changes_nothing(
    client: httpx.AsyncClient, snapshot: Snapshot, body: dict[str, str], field: str
) -> None:
    await client.post("/api/auth/guest")
    before = await snapshot()
    r = await client.post("/api/auth/claim", json=body)
    assert r.status_code == 422
    assert field in {f["field"] for f in r.json()["error"]["fields"]}
    assert await snapshot() == before


async def test_guest_losing_a_name_race_gets_another_name(
    make_client: "type[httpx.AsyncClient]", monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two guests arriving together both find Invitado0042 free; the second insert hits the
    # unique nickname and must retry with another name instead of failing with 409.
    draws = iter([42, 42, 43])
    monkeypatch.setattr(service.secrets, "randbelow", lambda _n: next(draws))

    async def never_taken(_db: object, _name: str) -> bool:
        return False

    monkeypatch.setattr(service.repo, "nickname_taken", never_taken)
    first = await make_client().post("/api/auth/guest")
    second = await make_client().post("/api/auth/guest")
    assert (first.status_code, second.status_code) == (201, 201)
    assert first.json()["nickname"] == "Invitado0042"
    assert second.json()["nickname"] == "Invitado0043"


async def test_twenty_claims_of_one_guest_at_once_make_one_account(
    make_client: "type[httpx.AsyncClient]", db: AsyncSession
) -> None:
    """The same guest claimed twenty times at once, each with a name of its own: one
    claim makes the account, the other nineteen answer not_guest and leave their names
    free; the account has the winner's name and one live session."""
    guest = make_client()
    made = await guest.post("/api/auth/guest")
    guest_id = made.json()["id"]
    tabs = [make_client() for _ in range(20)]
    for tab in tabs:
        tab.cookies = guest.cookies
    answers = await asyncio.gather(
        *(
            tab.post("/api/auth/claim", json={"username": f"tab{i}_claim", "password": PASSWORD})
            for i, tab in enumerate(tabs)
        )
    )
    won = [r for r in answers if r.status_code == 200]
    assert len(won) == 1, sorted(r.status_code for r in answers)
    assert {r.json()["error"]["code"] for r in answers if r.status_code != 200} == {"not_guest"}
    winner = won[0].json()["username"]
    db.expire_all()
    user = await db.get(User, guest_id)
    assert user is not None and not user.is_guest
    assert (user.username, user.nickname) == (winner, winner)
    live = (
        (
            await db.execute(
                select(Session).where(Session.user_id == guest_id, Session.revoked_at.is_(None))
            )
        )
        .scalars()
        .all()
    )
    assert len(live) == 1
    # A losing name was never taken: another player registers it.
    loser = next(f"tab{i}_claim" for i in range(20) if f"tab{i}_claim" != winner)
    assert (await register(make_client(), loser)).status_code == 201
