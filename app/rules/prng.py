"""A small seeded generator for the bots (the engine may not use ``random``: it is
pure, and a bot's choices must replay exactly from its seed).

SplitMix64: each call moves a 64-bit counter on by a constant and mixes it; good enough
to shuffle a pool of hidden cards or roll a bot's mistakes, and the same on every
platform and Python version."""

from __future__ import annotations

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


class SplitMix:
    __slots__ = ("x",)

    def __init__(self, seed: int) -> None:
        self.x = seed & MASK

    def next64(self) -> int:
        self.x = (self.x + GOLDEN) & MASK
        z = self.x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """An int in [0, n) (n < 2**32: the bias is far below anything a bot notices)."""
        return (self.next64() >> 32) % n

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        return start + step * self.below((stop - start + step - 1) // step)

    def chance(self, p: float) -> bool:
        """True with probability ``p``."""
        return (self.next64() >> 11) * (1.0 / (1 << 53)) < p

    def shuffle(self, items: list[int]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def mix(*parts: int) -> int:
    """A seed made of several ints (a bot's seed and what its seat sees), the same in
    every process (ints hash alike everywhere; no string is hashed)."""
    h = SplitMix(0x5EED)
    for p in parts:
        h.x = (h.x ^ (p & MASK)) & MASK
        h.next64()
    return h.next64()
