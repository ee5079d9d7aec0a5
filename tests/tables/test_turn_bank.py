"""The turn clock fair on a phone (app/tables/play/clock.py), on real Redis and the real
timer loop: the first-turn bonus, a time bank that drains and is kept per seat for the
hand, a time-out named to every seat, stale timers ignored, and a bank opened by one
process and run dry by another."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.core.config import Settings
from app.core.redis import create_redis
from app.rules import commands as C
from app.rules.ruleset import make_ruleset
from app.rules.state import State
from app.tables.play import deadlines
from app.tables.play.service import Change, TableService
from app.tables.play.timers import TimerLoop
from app.tables.storage.meta import Seat, TableMeta
from tests.tables.conftest import _fresh, tables_redis_url


@pytest.fixture
async def redis_db(redis_url: str) -> AsyncIterator[str]:
    """A Redis database of its own: no other test's timers in its timers set."""
    yield _fresh(tables_redis_url(redis_url, 6))


def settings(url: str, **clock: Any) -> Settings:
    return Settings(env="test", redis_url=url, **clock)


def new_table() -> TableMeta:
    return TableMeta(
        id=f"K{secrets.token_hex(6)}",
        name="clock",
        host=1,
        preset="cerrado",
        rules=make_ruleset("cerrado", 2, {}).to_dict(),
        players=2,
        bet=0,
        seats=[Seat(user_id=1, name="Ana"), Seat(user_id=2, name="Bruno")],
        created_at=time.time(),
    )


async def start(svc: TableService) -> tuple[str, float]:
    meta = new_table()
    await svc.create(meta)

    def begin(v: int, current: TableMeta, state: State | None) -> Change:
        return svc.start_game_change(current, "g" + secrets.token_hex(8))

    await svc.mutate(meta.id, begin)
    return meta.id, time.time()


async def records(svc: TableService, table_id: str, k: str) -> list[dict[str, Any]]:
    return [r for r in await svc.store.full_log(table_id) if r.get("k") == k]


async def wait_for(svc: TableService, table_id: str, k: str, count: int, within: float) -> None:
    give_up = time.monotonic() + within
    while len(await records(svc, table_id, k)) < count:
        assert time.monotonic() < give_up, f"no {count} records {k!r} within {within} s"
        await asyncio.sleep(0.05)


async def play_turn(svc: TableService, table_id: str, user_id: int) -> None:
    """Draw, then discard the card drawn (or the first one that may be discarded)."""
    await svc.command(table_id, user_id, secrets.token_hex(4), C.Draw())
    _, _, state = await svc.load(table_id)
    assert state is not None
    seat = state.turn
    for card in sorted(set(state.hands[seat]), reverse=True):
        try:
            await svc.command(table_id, user_id, secrets.token_hex(4), C.Discard(card))
            return
        except Exception:
            continue
    raise AssertionError("no card could be discarded")


@pytest.fixture
async def service(redis_db: str) -> AsyncIterator[TableService]:
    client = create_redis(redis_db)
    svc = TableService(
        client,
        settings(redis_db, turn_seconds=1, first_turn_bonus_seconds=1, time_bank_seconds=1.5),
    )
    loop = TimerLoop(svc, poll=0.05)
    await loop.start()
    try:
        yield svc
    finally:
        await loop.stop()
        await client.aclose()


async def test_first_turn_bonus_then_the_bank_then_a_timeout_named_to_all(
    service: TableService,
) -> None:
    svc = service
    table_id, t0 = await start(svc)
    first = (await records(svc, table_id, "c"))[0]
    a = first["seat"]  # who deals first is random: seat a (user a + 1), then seat b
    b = 1 - a
    # The first turn of the hand: the turn's second plus the first-turn bonus's.
    assert first["bank"] == 1.5
    assert 1.9 < first["deadline"] - t0 < 2.1
    await wait_for(svc, table_id, "c", 2, within=4)
    opened = (await records(svc, table_id, "c"))[1]
    # The turn's own time is gone: the bank drains, from that deadline, for 1.5 s.
    assert opened["seat"] == a and opened.get("banking") is True
    assert opened["deadline"] == pytest.approx(first["deadline"] + 1.5)
    assert await records(svc, table_id, "o") == [], "no move while the bank lasts"
    _, meta, _ = await svc.load(table_id)
    assert meta.bank is not None and meta.bank.seat == a and meta.bank.turn == 0

    await wait_for(svc, table_id, "o", 1, within=4)
    timed_out = (await records(svc, table_id, "o"))[0]
    # Every viewer gets the seat and the player's name (fanout.py sends seat facts whole).
    assert timed_out["seat"] == a and timed_out["name"] == ["Ana", "Bruno"][a]
    assert time.time() - t0 >= 3.4, "not before the bank ran dry"
    _, meta, state = await svc.load(table_id)
    assert state is not None and state.turn == b and state.turns == 1
    assert meta.bank is not None and meta.bank.turn is None and meta.bank.left[a] == 0
    second = (await records(svc, table_id, "c"))[2]
    # The other seat's first turn: a bonus too, and its bank whole.
    assert second["seat"] == b and second["bank"] == 1.5
    assert second["deadline"] - timed_out_at(await svc.store.full_log(table_id)) > 1.9

    # Seat b plays; seat a's second turn has no bonus and no bank left: the server moves
    # for it when the turn's one second is gone.
    await play_turn(svc, table_id, b + 1)
    again = (await records(svc, table_id, "c"))[-1]
    assert again["seat"] == a and again["bank"] == 0 and "banking" not in again
    await wait_for(svc, table_id, "o", 2, within=3)
    assert time.time() - again["deadline"] < 1.0
    assert [r.get("banking") for r in await records(svc, table_id, "c")].count(True) == 1


def timed_out_at(log: list[dict[str, Any]]) -> float:
    """The clock record's deadline the time-out followed (the bank's end)."""
    deadline = 0.0
    for r in log:
        if r.get("k") == "c":
            deadline = r["deadline"]
        if r.get("k") == "o":
            return deadline
    raise AssertionError("no time-out")


async def test_a_move_during_the_bank_keeps_what_is_left_for_the_hand(redis_db: str) -> None:
    client = create_redis(redis_db)
    svc = TableService(
        client, settings(redis_db, turn_seconds=1, first_turn_bonus_seconds=0, time_bank_seconds=3)
    )
    loop = TimerLoop(svc, poll=0.05)
    await loop.start()
    try:
        table_id, _ = await start(svc)
        await wait_for(svc, table_id, "c", 2, within=3)  # the bank opened
        opened = (await records(svc, table_id, "c"))[1]
        a = opened["seat"]
        assert opened["banking"] is True
        await asyncio.sleep(max(0.0, opened["deadline"] - 2 - time.time()))  # 1 s of bank
        await play_turn(svc, table_id, a + 1)
        _, meta, _ = await svc.load(table_id)
        assert meta.bank is not None and meta.bank.turn is None
        assert 1.7 < meta.bank.left[a] < 2.05 and meta.bank.left[1 - a] == 3
        assert (await records(svc, table_id, "c"))[-1]["bank"] == 3  # the other's, whole
        await play_turn(svc, table_id, 2 - a)
        mine = (await records(svc, table_id, "c"))[-1]
        assert mine["seat"] == a and mine["bank"] == meta.bank.left[a]
        assert await records(svc, table_id, "o") == []
    finally:
        await loop.stop()
        await client.aclose()


async def test_a_stale_turn_timer_changes_nothing(redis_db: str) -> None:
    client = create_redis(redis_db)
    svc = TableService(
        client, settings(redis_db, turn_seconds=1, first_turn_bonus_seconds=0, time_bank_seconds=5)
    )
    try:
        table_id, _ = await start(svc)
        due = [m for m, _ in await svc.store.due_timers_at(time.time() + 2) if table_id in m]
        assert len(due) == 1 and due[0].startswith(f"turn|{table_id}|1:0:")
        own = due[0]
        await asyncio.sleep(1.05)
        await deadlines.fire(svc, own)  # the turn's own time is gone: the bank opens
        v, meta, _ = await svc.load(table_id)
        assert meta.bank is not None and meta.bank.turn == 0
        # The same timer again (a process that set it once more, a retry): stale.
        await deadlines.fire(svc, own)
        # One of a turn that is over, and one of this turn with a deadline nobody set.
        await deadlines.fire(svc, f"turn|{table_id}|1:7:{time.time()!r}")
        await deadlines.fire(svc, f"turn|{table_id}|1:0:{meta.bank.until + 9!r}")
        v2, meta2, _ = await svc.load(table_id)
        assert v2 == v and meta2.bank == meta.bank
        assert await records(svc, table_id, "o") == []
        # The bank's own timer is the one that moves.
        await deadlines.fire(svc, f"turn|{table_id}|1:0:{meta.bank.until!r}")
        assert len(await records(svc, table_id, "o")) == 1
    finally:
        await client.aclose()


async def test_another_process_runs_the_bank_dry_after_a_restart(redis_db: str) -> None:
    clock = {"turn_seconds": 1, "first_turn_bonus_seconds": 0, "time_bank_seconds": 2}
    first_client = create_redis(redis_db)
    first = TableService(first_client, settings(redis_db, **clock))
    first_loop = TimerLoop(first, poll=0.05)
    await first_loop.start()
    table_id, _ = await start(first)
    await wait_for(first, table_id, "c", 2, within=3)  # this process opened the bank
    until = (await records(first, table_id, "c"))[1]["deadline"]
    await first_loop.stop()  # ... and dies
    await first_client.aclose()

    client = create_redis(redis_db)
    other = TableService(client, settings(redis_db, **clock))
    loop = TimerLoop(other, poll=0.05)
    await loop.start()
    try:
        await wait_for(other, table_id, "o", 1, within=4)
        assert time.time() >= until - 0.01, "the bank ran its whole course"
        _, meta, state = await other.load(table_id)
        assert state is not None and state.turns == 1
        assert meta.bank is not None and sorted(meta.bank.left) == [0, 2]
    finally:
        await loop.stop()
        await client.aclose()


async def test_a_seat_a_bot_plays_has_no_bank(redis_db: str) -> None:
    """A bot that has not moved by the turn's end (a slow worker) is moved for at once."""
    client = create_redis(redis_db)
    svc = TableService(
        client, settings(redis_db, turn_seconds=1, first_turn_bonus_seconds=0, time_bank_seconds=5)
    )
    try:
        table_id, _ = await start(svc)
        _, _, state = await svc.load(table_id)
        assert state is not None
        await svc.abandon(table_id, state.turn + 1)  # a bot plays the seat on turn
        own = next(m for m, _ in await svc.store.due_timers_at(time.time() + 2) if "turn|" in m)
        await asyncio.sleep(1.05)
        await deadlines.fire(svc, own)
        assert [r["seat"] for r in await records(svc, table_id, "o")] == [state.turn]
        assert not any(r.get("banking") for r in await records(svc, table_id, "c"))
    finally:
        await client.aclose()
