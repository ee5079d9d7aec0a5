"""Names and chat cannot carry spoofing characters (a right-to-left override, NUL, zero
width) and are NFKC-normalised before they are stored: the shared validator
(app/core/text.py), through the real app on PostgreSQL and Redis."""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.text import clean_text, schema_pattern
from app.social.models import ChatMessage
from app.users.models import User

Make = Callable[[], httpx.AsyncClient]
RLO = "\u202e"


@pytest.mark.parametrize("bad", [RLO, "\u0000", "\u200b", "\u2066", "\u0007", "\ufeff"])
def test_clean_text_refuses_control_and_format_characters(bad: str) -> None:
    with pytest.raises(ValueError, match="must not contain U\\+"):
        clean_text(f"mesa{bad}gpj.exe")


def test_clean_text_normalises() -> None:
    assert clean_text(" Ｍｅｓａ ﬁnal ") == "Mesa final"  # full-width and ligature fold
    assert clean_text("a\nb\tc", multiline=True) == "a b c"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert clean_text(f"hola {family}", multiline=True) == f"hola {family}"
    with pytest.raises(ValueError):
        clean_text(f"x{family}")  # a joiner in a name: refused


@pytest.mark.parametrize("multiline", [False, True])
def test_the_schema_pattern_admits_only_what_the_check_accepts(multiline: bool) -> None:
    """The pattern the API's schema gives such text, tried on every code point: what it
    admits, ``clean_text`` accepts unchanged in length (so a schema-valid request is never
    refused); what it leaves out is refused, unassigned, or lengthened by NFKC."""
    pattern = re.compile(schema_pattern(multiline))
    admitted = 0
    for cp in range(sys.maxunicode + 1):
        c = chr(cp)
        if pattern.fullmatch(c):
            admitted += 1
            assert len(clean_text(c, multiline=multiline) or " ") == 1, hex(cp)
        elif not (multiline and c in "\n\r\t\u200c\u200d"):
            refused = unicodedata.category(c) in {"Cc", "Cf", "Cs", "Co", "Cn"}
            assert refused or len(unicodedata.normalize("NFKC", c)) != 1, hex(cp)
    assert admitted > 100_000  # every script's letters, not a narrow allow-list
    assert pattern.fullmatch("Mesa de Zoë 🂡 ÿ 麻將") and pattern.fullmatch("")
    for bad in (RLO, "\u0000", "\u200b", "\ue000", "\u0378", "\ufb01", "\ud800"):
        assert not pattern.fullmatch(f"mesa{bad}"), repr(bad)
    if multiline:
        assert pattern.fullmatch("hola\n\U0001f468\u200d\U0001f469")


async def _guest(make_client: Make) -> httpx.AsyncClient:
    c = make_client()
    assert (await c.post("/api/auth/guest")).status_code == 201
    return c


def _refused(r: httpx.Response, field: str) -> None:
    assert r.status_code == 422, r.text
    assert r.json()["error"]["fields"][0]["field"] == field, r.text


async def test_table_names_are_cleaned_or_refused(make_client: Make) -> None:
    c = await _guest(make_client)
    for name in (f"Mesa {RLO}exe.gpj", "Mesa\u0000", "Mesa\u200b1"):
        _refused(await c.post("/api/tables", json={"name": name}), "name")
    assert (await c.get("/api/tables")).json()["tables"] == []
    r = await c.post("/api/tables", json={"name": "  Ｍｅｓａ  "})
    assert r.status_code == 201, r.text
    assert r.json()["name"] == "Mesa"


async def test_chat_and_usernames_refuse_bidi_and_nul(make_client: Make, db: AsyncSession) -> None:
    c = await _guest(make_client)
    for text in (f"hola {RLO}aloh", "hola\u0000"):
        r = await c.post("/api/chat/lobby", json={"text": text})
        _refused(r, "text")
    db.expire_all()
    assert (await db.execute(select(func.count()).select_from(ChatMessage))).scalar_one() == 0
    ok = await c.post("/api/chat/lobby", json={"text": "ｂｕｅｎａ\nmano"})
    assert ok.status_code == 201 and ok.json()["text"] == "buena mano"
    users = (await db.execute(select(func.count()).select_from(User))).scalar_one()
    fresh = make_client()
    for name in (f"ana{RLO}", "ana\u0000x"):
        r = await fresh.post(
            "/api/auth/register", json={"username": name, "password": "long-enough-1"}
        )
        _refused(r, "username")
    db.expire_all()
    assert (await db.execute(select(func.count()).select_from(User))).scalar_one() == users
