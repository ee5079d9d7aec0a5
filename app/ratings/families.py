"""Which rating a game counts for: the family of its variant and its format.

Families group the presets whose skills carry over (docs/ratings.md):

- ``abierto``: the open discard pile games: abierto, abierto_sucio and the Italian
  burraco (the same rules as abierto_sucio under its Italian name);
- ``cerrado``: the closed discard pile games: cerrado, cerrado_sucio, cerrado_stcl;
- ``burako``: the Argentine burako (one group per rank, the stock ends at 2 cards);
- ``brasil``: the Brazilian game (no muertos, face-value cards, 3000 points).

A host's overrides keep the preset's family. Formats: ``2p`` (two players), ``pairs``
(four players as two partnerships) and ``multi`` (three or four playing individually).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

Format = Literal["2p", "pairs", "multi"]
FORMATS: tuple[Format, ...] = ("2p", "pairs", "multi")

FAMILY_OF_PRESET: dict[str, str] = {
    "abierto": "abierto",
    "abierto_sucio": "abierto",
    "burraco": "abierto",
    "cerrado": "cerrado",
    "cerrado_sucio": "cerrado",
    "cerrado_stcl": "cerrado",
    "burako": "burako",
    "brasil": "brasil",
}
FAMILIES: tuple[str, ...] = ("abierto", "cerrado", "burako", "brasil")


def family_of(preset: str) -> str | None:
    """The preset's family; None for a preset outside every family (not rated)."""
    return FAMILY_OF_PRESET.get(preset)


def format_of(rules: Mapping[str, Any]) -> Format:
    """The format of a table's rules (``RuleSet.to_dict()``)."""
    players = int(rules.get("players", 2))
    if players == 2:
        return "2p"
    if players == 4 and rules.get("pairs", True):
        return "pairs"
    return "multi"
