"""A special table's credit raced on real Postgres: charged once per table however many
times the same charge arrives at once, with the Redis flushed in the middle (the credit
lives in Postgres only), and given back once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi import FastAPI

from app.economy.hooks import EconomyTables
from tests.economy.helpers import balance, credits, new_users


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"special_table_level": 1, "db_pool_size": 10}


async def _flush_soon(app: FastAPI) -> None:
    await asyncio.sleep(0.01)
    await app.state.redis.flushdb()


async def test_twenty_charges_of_one_table_at_once_hold_one_credit(
    app: FastAPI, econ: EconomyTables
) -> None:
    maker = app.state.sessionmaker
    (a,) = await new_users(maker, 1)
    await econ.charge_special_table(a, "warm")  # the wallet exists, with its credits
    start = await credits(maker, a)
    charges = [econ.charge_special_table(a, "pairs1") for _ in range(20)]
    await asyncio.gather(*charges[:10], _flush_soon(app), *charges[10:])
    assert await credits(maker, a) == start - 1
    assert await balance(maker, "special:pairs1") == 1
    await asyncio.gather(*(econ.refund_special_table(a, "pairs1") for _ in range(20)))
    assert await credits(maker, a) == start
    assert await balance(maker, "special:pairs1") == 0
