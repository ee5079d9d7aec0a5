"""A table's state in Redis is its saved state folded forward: an ordinary move writes
no state, a load folds the game records logged since the state was last saved
(store.LOAD_LUA), and what a load gives equals the engine's state at every version."""

from __future__ import annotations

import random
import secrets
from typing import Any

import orjson
import pytest

from app.core.errors import AppError
from app.rules import commands as C
from app.rules.deal import random_deal
from app.rules.engine import apply
from app.rules.greedy import GreedyBot
from app.rules.ruleset import make_ruleset
from app.rules.serialize import state_to_dict
from app.rules.state import DRAW, PLAY, State, initial_state
from app.tables.play.service import Change, TableService, game_records, table_record
from app.tables.storage.meta import TableMeta
from app.tables.storage.store import STATE_EVERY, TableStore, k_hash, k_log
from tests.tables.test_cache import meta
from tests.tables.test_retries import rename, services

__all__ = ["services"]  # the two services on one Redis, as test_retries has them


def new_table() -> TableMeta:
    rules = make_ruleset("cerrado", 2)
    return meta("saved").model_copy(
        update={"id": f"S{secrets.token_hex(6)}", "rules": rules.to_dict()}
    )


def first_deal(seed: int) -> Any:
    def decide(v: int, current: TableMeta, state: State | None) -> Change:
        rules = make_ruleset("cerrado", 2)
        deal = random_deal(rules, first=0, rng=random.Random(seed))
        events, dealt = apply(initial_state(rules), C.SYSTEM, deal)
        playing = current.edit()
        playing.status = "playing"
        records = [table_record("started", playing), *game_records(events)]
        return Change(meta=playing, state=dealt, records=records)

    return decide


def move(bots: list[GreedyBot]) -> Any:
    def decide(v: int, current: TableMeta, state: State | None) -> Change:
        assert state is not None
        seat = state.turn
        cmd = bots[seat].choose(state, seat)
        events, after = apply(state, seat, cmd)
        return Change(state=after, records=game_records(events, ((0, seat, cmd),)))

    return decide


async def dealt(ours: TableService, seed: int) -> tuple[TableMeta, int, State | None]:
    """A new table, created and dealt by ``ours``: (its meta, version, state)."""
    table = new_table()
    await ours.create(table)
    v, change = await ours.mutate(table.id, first_deal(seed))
    return table, v, change.state


async def saved_at(store: TableStore, table_id: str) -> int | None:
    sv = await store.redis.hget(k_hash(table_id), "sv")
    return int(sv) if sv is not None else None


async def test_a_load_at_every_version_equals_the_engine_and_moves_rarely_save_the_state(
    services: tuple[TableService, TableService],
) -> None:
    ours, fresh = services
    table, v, truth = await dealt(ours, 7)
    assert await saved_at(ours.store, table.id) == v  # a new meta: the state is saved
    bots = [GreedyBot(), GreedyBot()]
    saves = 0
    while truth is not None and truth.phase in (DRAW, PLAY) and v < 200:
        before = await saved_at(ours.store, table.id)
        v, change = await ours.mutate(table.id, move(bots))
        truth = change.state
        assert truth is not None
        sv = await saved_at(ours.store, table.id)
        assert sv is not None
        if sv != before:
            saves += 1
            assert sv == v
        # Another process, with nothing cached, loads the same state.
        fresh.cache.drop(table.id)
        loaded_v, _, loaded = await fresh.load(table.id)
        assert loaded_v == v
        assert loaded is not None and state_to_dict(loaded) == state_to_dict(truth), f"v{v}"
        assert v - sv < STATE_EVERY
    assert v > 2 * STATE_EVERY
    # Saved only where a multiple of STATE_EVERY was crossed (or the hand ended).
    assert saves <= v // STATE_EVERY + 1, (saves, v)


async def test_a_table_saved_before_sv_existed_is_loaded_right_after_a_move(
    services: tuple[TableService, TableService],
) -> None:
    """Every commit used to save the state and knew no ``sv``: the first commit that does
    not save it marks the state as the version before it, so a load folds from there."""
    ours, fresh = services
    table, _, _ = await dealt(ours, 11)
    await ours.redis.hdel(k_hash(table.id), "sv")  # as an older server left it
    bots = [GreedyBot(), GreedyBot()]
    v, change = await ours.mutate(table.id, move(bots))
    assert v % STATE_EVERY != 0 and await saved_at(ours.store, table.id) == v - 1
    loaded_v, _, loaded = await fresh.load(table.id)
    assert loaded_v == v and change.state is not None and loaded is not None
    assert state_to_dict(loaded) == state_to_dict(change.state)


async def test_a_log_that_does_not_follow_the_saved_state_is_refused_not_served(
    services: tuple[TableService, TableService],
) -> None:
    ours, fresh = services
    table, _, _ = await dealt(ours, 3)
    bots = [GreedyBot(), GreedyBot()]
    for _ in range(3):
        v, _ = await ours.mutate(table.id, move(bots))
    sv = await saved_at(ours.store, table.id)
    assert sv is not None and sv < v
    await ours.redis.lset(k_log(table.id), v - 1, orjson.dumps({"k": "g", "v": 999}))
    with pytest.raises(AppError) as refused:
        await fresh.load(table.id)
    assert refused.value.code == "table_unavailable" and refused.value.status == 503


async def test_changes_that_leave_the_state_alone_never_make_a_load_read_far_back(
    services: tuple[TableService, TableService],
) -> None:
    """A table with no state yet reads no records at all; one in play saves its state
    again on crossing a multiple of STATE_EVERY even when no change touched it."""
    ours, fresh = services
    table = new_table()
    await ours.create(table)
    for i in range(2 * STATE_EVERY):
        await ours.mutate(table.id, rename(f"before {i}"))
    loaded = await ours.store.load(table.id)
    assert loaded is not None and loaded.state is None and loaded.after == []
    v, change = await ours.mutate(table.id, first_deal(5))
    truth = change.state
    assert truth is not None and await saved_at(ours.store, table.id) == v
    for i in range(3 * STATE_EVERY):
        v, _ = await ours.mutate(table.id, rename(f"playing {i}"))
        loaded = await ours.store.load(table.id)
        assert loaded is not None and len(loaded.after) < STATE_EVERY
    fresh.cache.drop(table.id)
    loaded_v, current, state = await fresh.load(table.id)
    assert (loaded_v, current.name) == (v, f"playing {3 * STATE_EVERY - 1}")
    assert state is not None and state_to_dict(state) == state_to_dict(truth)
