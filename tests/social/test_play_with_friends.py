"""No locked door for friends (level 2 after three games against people opens the special
tables) and the server's own strings in each reader's language."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import pytest
from fastapi import FastAPI

from app.economy.hooks import EconomyTables
from app.social import i18n
from app.social.notifications import KINDS
from app.tables.play.hooks import GameResult
from tests.economy.helpers import client_for, new_users, win_at_table
from tests.social.test_profiles import play

Clients = Callable[[], httpx.AsyncClient]


async def test_three_games_against_people_reach_level_two_and_open_a_private_table(
    app: FastAPI, econ: EconomyTables, make_client: Clients
) -> None:
    a, b = await new_users(app.state.sessionmaker, 2)
    ca = await client_for(app, make_client, a)
    before = (await ca.get("/api/lobby/options")).json()
    assert before["level"] == 1 and before["options"]["private"]["locked"] is True
    refused = await ca.post("/api/tables", json={"private": True})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "level_too_low"
    # Games against bots give no XP, however many.
    for i in range(3):
        await econ.settle_game(
            GameResult(
                game_id=f"bots{i}",
                table_id=f"tb{i}",
                preset="cerrado",
                bet=0,
                teams={a: 0},
                abandoned=frozenset(),
                winner_team=0,
                bots=1,
            )
        )
    assert (await ca.get("/api/lobby/options")).json()["xp"] == 0
    for i in range(3):  # a loses all three: 3 x 34 XP
        await play(econ, f"lv2-{i}", a, b, b)
    after = (await ca.get("/api/lobby/options")).json()
    assert (after["level"], after["xp"], after["next_level_xp"]) == (2, 102, 300)
    assert after["options"]["private"] == {
        "locked": False,
        "missing": [],
        "needs": {"level": 2, "credits": 1},
    }
    made = await ca.post("/api/tables", json={"private": True, "name": "amigos"})
    assert made.status_code == 201, made.text
    assert made.json()["private"] is True and made.json()["special"] is True
    assert (await ca.get("/api/wallet")).json()["credits"] == 4


async def test_locked_for_want_of_credits(
    app: FastAPI, econ: EconomyTables, make_client: Clients
) -> None:
    a, b = await new_users(app.state.sessionmaker, 2)
    for i in range(3):
        await play(econ, f"cr-{i}", a, b, a)
    ca = await client_for(app, make_client, a)
    for sku in ("avatar_corona", "back_dorado"):  # 3 + 2 of the 5 starting credits
        assert (await ca.post("/api/shop/buy", json={"sku": sku})).status_code == 200
    options = (await ca.get("/api/lobby/options")).json()
    assert options["credits"] == 0
    assert options["options"]["turbo"] == {
        "locked": True,
        "missing": ["credits"],
        "needs": {"level": 2, "credits": 1},
    }


async def test_language_choice_renders_table_names_and_notifications(
    app: FastAPI, econ: EconomyTables, make_client: Clients
) -> None:
    a, b, c = await new_users(app.state.sessionmaker, 3)
    await win_at_table(econ, a, c, 24_000)  # coins given must be won (giftable.py)
    ca, cb = await client_for(app, make_client, a), await client_for(app, make_client, b)
    # No choice yet: the browser's first language of ours, else Spanish.
    got = await ca.get("/api/me/language", headers={"Accept-Language": "fr-FR,fr;q=0.9"})
    assert got.json()["language"] == "es"
    got = await ca.get("/api/me/language", headers={"Accept-Language": "fr,pt-BR;q=0.8"})
    assert got.json()["language"] == "pt-BR"
    bad = await ca.put("/api/me/language", json={"language": "fr"})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "unknown_language"
    many = await asyncio.gather(
        *(cb.put("/api/me/language", json={"language": "pl"}) for _ in range(20))
    )
    assert all(r.status_code == 200 for r in many), [r.text for r in many]
    assert (await ca.put("/api/me/language", json={"language": "en"})).status_code == 200
    quick = await ca.post("/api/quickplay", json={"preset": "abierto"})
    assert quick.status_code == 200 and quick.json()["name"] == "Play now!"
    listed = (await cb.get("/api/tables", params={"preset": "abierto"})).json()["tables"]
    mine = next(t for t in listed if t["id"] == quick.json()["id"])
    assert mine["name"] == "Zagraj teraz!"
    assert mine["names"] == i18n.all_languages("table.quick")
    sent = await ca.post(
        "/api/gifts", json={"to_user_id": b, "currency": "coins", "amount": 12_000}
    )
    assert sent.status_code == 201, sent.text
    note = (await cb.get("/api/notifications")).json()["items"][0]
    nick = note["payload"]["from_nickname"]
    assert note["text"] == f"Gracz {nick} podarował Ci 12\u00a0000 monet"
    assert (await cb.put("/api/me/language", json={"language": "es"})).status_code == 200
    note = (await cb.get("/api/notifications")).json()["items"][0]
    assert note["text"] == f"{nick} te regaló 12.000 monedas"


@pytest.mark.parametrize(
    ("lang", "one", "many", "fifty_thousand"),
    [
        ("es", "Ana te regaló 1 moneda", "Ana te regaló 5 monedas", "50.000"),
        ("en", "Ana gave you 1 coin", "Ana gave you 5 coins", "50,000"),
        ("pt-BR", "Ana te deu 1 moeda", "Ana te deu 5 moedas", "50.000"),
        ("it", "Ana ti ha regalato 1 moneta", "Ana ti ha regalato 5 monete", "50.000"),
        ("pl", "Gracz Ana podarował Ci 1 monetę", "Gracz Ana podarował Ci 5 monet", "50\u00a0000"),
    ],
)
def test_plurals_and_numbers_per_language(
    lang: str, one: str, many: str, fifty_thousand: str
) -> None:
    def gift(n: int) -> str:
        return i18n.notification_text(
            "gift", {"from_nickname": "Ana", "currency": "coins", "amount": n, "sku": None}, lang
        )

    assert gift(1) == one and gift(5) == many
    assert i18n.number(50_000, lang) == fifty_thousand


def test_polish_few_and_portuguese_zero() -> None:
    assert [i18n.plural(n, "pl") for n in (1, 2, 4, 5, 12, 22, 25, 104)] == [
        "one",
        "few",
        "few",
        "many",
        "many",
        "few",
        "many",
        "few",
    ]
    assert i18n.plural(0, "pt-BR") == "one" and i18n.plural(0, "es") == "other"
    # Four digits are grouped in every language, so 6.000 never stands beside 20.000
    # written differently (CLDR would leave Spanish and Polish ones ungrouped).
    assert [i18n.number(6_000, lang) for lang in i18n.LANGUAGES] == [
        "6.000",
        "6,000",
        "6.000",
        "6.000",
        "6\u00a0000",
    ]
    assert i18n.number(999, "es") == "999" and i18n.number(-6_000, "es") == "-6.000"
    assert i18n.render("table.challenge", "en", {"name": "Ana"}) == "Ana's challenge"
    assert i18n.render("note.level_up", "it", {"level": 2}) == "Hai raggiunto il livello 2!"


def test_every_notification_kind_reads_in_every_language() -> None:
    payload = {
        "from_nickname": "Ana",
        "by_nickname": "Ana",
        "nickname": "Ana",
        "level": 2,
        "amount": 2_000,
        "currency": "coins",
        "game_id": "g",
        "table_id": "t",
    }
    for kind in KINDS:
        texts = {lang: i18n.notification_text(kind, payload, lang) for lang in i18n.LANGUAGES}
        assert all("{" not in t and not t.startswith("note.") for t in texts.values()), texts
        assert len(set(texts.values())) == len(texts), texts
    assert (
        i18n.notification_text("game_voided", payload, "pl")
        == "Partia przepadła i została anulowana: zwróciliśmy Ci 2\u00a0000 monet"
    )


async def test_the_online_list_counts_the_one_asking(app: FastAPI, make_client: Clients) -> None:
    (a,) = await new_users(app.state.sessionmaker, 1)
    ca = await client_for(app, make_client, a)  # no socket yet: not in presence:online
    online = (await ca.get("/api/players/online")).json()
    assert [(p["user_id"], p["online"]) for p in online] == [(a, True)]


async def test_profiles_offer_a_gift_to_anyone_not_blocked(
    app: FastAPI, make_client: Clients
) -> None:
    a, stranger, blocker = await new_users(app.state.sessionmaker, 3)
    ca = await client_for(app, make_client, a)
    cblocker = await client_for(app, make_client, blocker)
    assert (await cblocker.post("/api/blocks", json={"user_id": a})).status_code == 204
    seen = {u: (await ca.get(f"/api/profiles/{u}")).json() for u in (a, stranger, blocker)}
    assert [seen[u]["can_gift"] for u in (a, stranger, blocker)] == [False, True, False]
    assert seen[stranger]["relation"] == "none"
