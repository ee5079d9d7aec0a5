"""Fixtures for the tournament tests: the economy's conservation check after each."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fastapi import FastAPI

from tests.economy.helpers import assert_conserved


@pytest.fixture
async def app(app: FastAPI) -> AsyncIterator[FastAPI]:
    yield app
    await assert_conserved(app.state.sessionmaker)
