"""Fixtures for the social tests: the hooks, and a conservation check after each test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fastapi import FastAPI

from app.economy.hooks import EconomyTables
from app.economy.notify import Notifier
from tests.economy.helpers import assert_conserved, seed_shop


@pytest.fixture
def econ(app: FastAPI) -> EconomyTables:
    return EconomyTables(app.state.sessionmaker, app.state.settings, Notifier(app.state.redis))


@pytest.fixture
async def app(app: FastAPI) -> AsyncIterator[FastAPI]:
    """The shared app, plus a check when the test is done: cached balances, ledger and
    conservation (holdings == granted - taken by the house) all agree."""
    await seed_shop(app.state.sessionmaker)
    yield app
    await assert_conserved(app.state.sessionmaker)
