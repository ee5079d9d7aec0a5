"""Typed identifiers shared across packages (DESIGN.md convention 14)."""

from typing import NewType

UserId = NewType("UserId", int)
