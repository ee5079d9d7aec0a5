"""Shuffling and dealing (docs/rules-reference.md, "Seats, sides and the deal").

Randomness is data: the shuffle comes from an ``rng`` the caller passes (the table
service passes ``secrets.SystemRandom()``; tests pass a seeded ``random.Random``), and the
result is an explicit ``Deal``."""

from __future__ import annotations

import hashlib
import secrets
from typing import Protocol

from .cards import NAME, full_deck, parse_many
from .commands import Deal
from .ruleset import RuleSet


class Rng(Protocol):
    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int: ...


def shuffled_deck(rules: RuleSet, rng: Rng | None = None) -> list[int]:
    """A uniformly shuffled 108- or 104-card deck (Fisher-Yates)."""
    source: Rng = rng or secrets.SystemRandom()
    deck = list(full_deck(rules.jokers))
    for i in range(len(deck) - 1, 0, -1):
        j = source.randrange(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal_from_deck(rules: RuleSet, deck: list[int], first: int = 0) -> Deal:
    """Cut a shuffled deck into hands, muertos and the stock."""
    n = rules.hand_size
    hands = tuple(tuple(deck[s * n : (s + 1) * n]) for s in range(rules.players))
    pos = rules.players * n
    muertos = []
    for _ in range(rules.muertos):
        muertos.append(tuple(deck[pos : pos + rules.muerto_size]))
        pos += rules.muerto_size
    return Deal(hands=hands, muertos=tuple(muertos), stock=tuple(deck[pos:]), first=first)


def random_deal(rules: RuleSet, first: int = 0, rng: Rng | None = None) -> Deal:
    return deal_from_deck(rules, shuffled_deck(rules, rng), first)


def deal_to_dict(deal: Deal) -> dict[str, object]:
    return {
        "hands": [[NAME[c] for c in h] for h in deal.hands],
        "muertos": [[NAME[c] for c in m] for m in deal.muertos],
        "stock": [NAME[c] for c in deal.stock],
        "discard": [NAME[c] for c in deal.discard],
        "first": deal.first,
    }


def deal_from_dict(data: dict[str, object]) -> Deal:
    return Deal(
        hands=tuple(parse_many(h) for h in data["hands"]),  # type: ignore[attr-defined]
        muertos=tuple(parse_many(m) for m in data["muertos"]),  # type: ignore[attr-defined]
        stock=parse_many(data["stock"]),  # type: ignore[arg-type]
        discard=parse_many(data.get("discard") or []),  # type: ignore[arg-type]
        first=int(data.get("first") or 0),  # type: ignore[call-overload]
    )


def deal_commitment(deal: Deal, salt: str) -> str:
    """SHA-256 of the deal with a secret salt: published when the hand starts, verifiable
    once the deal and the salt are revealed at its end (provably fair)."""
    body = "|".join(
        [
            "hands:" + ";".join(",".join(NAME[c] for c in h) for h in deal.hands),
            "muertos:" + ";".join(",".join(NAME[c] for c in m) for m in deal.muertos),
            "stock:" + ",".join(NAME[c] for c in deal.stock),
            "discard:" + ",".join(NAME[c] for c in deal.discard),
            f"first:{deal.first}",
            f"salt:{salt}",
        ]
    )
    return hashlib.sha256(body.encode()).hexdigest()
