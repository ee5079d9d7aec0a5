"""Which bot plays a live table's bot seat, by the seat's strength (docs/bots.md)."""

from __future__ import annotations

from app.rules.bots import Bot, GreedyBot
from app.tables.meta import BotStrength


def bot_for(strength: BotStrength) -> Bot:
    """The bot of that strength. Until easy and strong exist every strength plays
    GreedyBot (normal)."""
    del strength
    return GreedyBot()
