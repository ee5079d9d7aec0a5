"""A start made to fail at each of its steps (issue 11, item 2): whatever failed, the
table ends closed (or, when nothing was claimed, waiting as before) and no hold or stake
is left behind: everything comes back to the wallets, through the ledger."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from fastapi import FastAPI
from redis.exceptions import ConnectionError as RedisConnectionError
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.economy import bets, ledger
from app.economy.models import Account, GameBet
from app.tables.lobby import lobby
from app.tables.lobby.schemas import CreateTableIn
from app.tables.play.service import TableService
from app.tables.storage.meta import MIN_BET
from tests.economy.helpers import coins, credits, new_users

START = 50_000


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"special_table_level": 1, "start_recovery_seconds": 1.0}


class Boom(Exception):
    """The injected fault."""


def fail_once(
    original: Callable[..., Awaitable[Any]], when: Callable[..., bool] = lambda *a, **k: True
) -> Callable[..., Awaitable[Any]]:
    state = {"fired": False}

    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not state["fired"] and when(*args, **kwargs):
            state["fired"] = True
            raise Boom("injected")
        return await original(*args, **kwargs)

    return wrapper


def _patch_ledger_post(mp: pytest.MonkeyPatch, svc: TableService) -> None:
    mp.setattr(
        ledger,
        "post",
        fail_once(ledger.post, lambda *a, **k: str(k.get("key", "")).startswith("start:")),
    )


def _patch_special_spend(mp: pytest.MonkeyPatch, svc: TableService) -> None:
    mp.setattr(bets, "_consume_special", fail_once(bets._consume_special))


def _patch_escrow_hook(mp: pytest.MonkeyPatch, svc: TableService) -> None:
    mp.setattr(svc.hooks, "start_game", fail_once(svc.hooks.start_game))


def _patch_escrow_commit(mp: pytest.MonkeyPatch, svc: TableService) -> None:
    """The escrow's COMMIT itself fails (the database went away at that moment)."""
    escrowing = {"on": False}
    original_start = bets.start_game

    async def start_game(*args: Any, **kwargs: Any) -> list[int]:
        escrowing["on"] = True
        return await original_start(*args, **kwargs)

    mp.setattr(bets, "start_game", start_game)
    mp.setattr(AsyncSession, "commit", fail_once(AsyncSession.commit, lambda *a: escrowing["on"]))


def _patch_deal_commit(mp: pytest.MonkeyPatch, svc: TableService) -> None:
    """Redis refuses the commit that deals the first hand, after the escrow."""

    def dealing(table_id: str, v: int, records: list[dict[str, Any]], **kw: Any) -> bool:
        return any(r.get("change") == "game_started" for r in records)

    async def commit(table_id: str, v: int, records: list[dict[str, Any]], **kw: Any) -> int:
        if dealing(table_id, v, records, **kw):
            raise RedisConnectionError("injected")
        return await original(table_id, v, records, **kw)

    original = svc.store.commit
    mp.setattr(svc.store, "commit", commit)


def _patch_deal_and_abort(mp: pytest.MonkeyPatch, svc: TableService) -> None:
    """The deal fails and so does the first clean-up: the recovery timer finishes it."""
    _patch_deal_commit(mp, svc)
    mp.setattr(svc.hooks, "abort_start", fail_once(svc.hooks.abort_start))


STEPS = {
    "escrow hook raises": _patch_escrow_hook,
    "stake transfer raises": _patch_ledger_post,
    "special credit spend raises": _patch_special_spend,
    "escrow commit fails": _patch_escrow_commit,
    "deal commit fails": _patch_deal_commit,
    "deal and first clean-up fail": _patch_deal_and_abort,
}


async def _money_left(app: FastAPI, table_id: str) -> tuple[int, int]:
    async with app.state.sessionmaker() as db:
        held = (
            await db.execute(
                select(func.coalesce(func.sum(Account.balance), 0)).where(
                    Account.kind.in_(("hold", "escrow")),
                    Account.balance > 0,
                    Account.key.like(f"%{table_id}%") | Account.key.like("game:%"),
                )
            )
        ).scalar_one()
        escrowed = (
            await db.execute(
                select(func.count())
                .select_from(GameBet)
                .where(GameBet.table_id == table_id, GameBet.state == "escrowed")
            )
        ).scalar_one()
    return int(held), int(escrowed)


@pytest.mark.parametrize("step", sorted(STEPS))
async def test_a_failed_start_leaves_no_hold(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    svc: TableService = app.state.tables
    maker = app.state.sessionmaker
    host, guest = await new_users(maker, 2)
    body = CreateTableIn(players=2, bet=MIN_BET, private=True)
    meta = await lobby.create_table(svc, host, "Host", body, invited=[guest])
    assert await credits(maker, host) == 4
    STEPS[step](monkeypatch, svc)
    with pytest.raises((Boom, RedisConnectionError)):
        await lobby.sit(svc, meta.id, guest, "Guest", None)
    monkeypatch.undo()
    deadline = time.monotonic() + 8.0  # the recovery timer fires after 1 s
    while time.monotonic() < deadline:
        status = (await svc.load(meta.id))[1].status
        if status == "closed" and await _money_left(app, meta.id) == (0, 0):
            break
        await asyncio.sleep(0.2)
    _, after, _ = await svc.load(meta.id)
    assert (after.status, after.close_reason) == ("closed", "start_failed"), step
    assert await _money_left(app, meta.id) == (0, 0), step
    assert await coins(maker, host) == START and await coins(maker, guest) == START, step
    assert await credits(maker, host) in (4, 5), step  # spent only if the game escrowed
    async with maker() as db:
        bet = await db.get(GameBet, after.game_id or "")
    assert bet is None or bet.state == "void", step


async def test_a_failed_claim_changes_nothing(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis refuses the claim itself: the table still waits with both seated, each
    holding exactly the bet, and the next attempt starts it."""
    svc: TableService = app.state.tables
    maker = app.state.sessionmaker
    host, guest = await new_users(maker, 2)
    meta = await lobby.create_table(svc, host, "Host", CreateTableIn(players=2, bet=MIN_BET))
    original = svc.store.commit

    async def commit(table_id: str, v: int, records: list[dict[str, Any]], **kw: Any) -> int:
        if any(r.get("change") == "starting" for r in records):
            raise RedisConnectionError("injected")
        return await original(table_id, v, records, **kw)

    monkeypatch.setattr(svc.store, "commit", commit)
    with pytest.raises(RedisConnectionError):
        await lobby.sit(svc, meta.id, guest, "Guest", None)
    monkeypatch.undo()
    _, after, _ = await svc.load(meta.id)
    assert after.status == "waiting" and set(after.humans()) == {host, guest}
    for u in (host, guest):
        assert await coins(maker, u) == START - MIN_BET
    await svc.maybe_start(meta.id)
    assert (await svc.load(meta.id))[1].status == "playing"
