"""The social tests share the economy tests' fixtures: the hooks, and a conservation check
after each test (gifts, blocks and chat touch money and the ledger too)."""

from tests.economy.conftest import app, econ

__all__ = ["app", "econ"]
