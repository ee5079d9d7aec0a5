"""The seeded, verifiable deal (docs/fairness.md gives the same steps byte by byte).

1. The server draws a seed of 32 random bytes and publishes ``commitment = SHA-256(seed)``
   (hex) before anything else happens in the hand.
2. Each player may add a client seed (1 to 64 characters ``A-Z a-z 0-9 _ -``) while the
   cut is awaited; absent seeds are empty strings.
3. The deck in canonical order (``cards.full_deck``: both decks sorted by card number,
   the jokers last) is shuffled by Fisher-Yates driven by a byte stream: block ``i`` of
   the stream is ``HMAC-SHA256(key=seed, msg=ASCII("buraco-deal-v1|" + ",".join(client
   seeds by seat) + "|" + decimal(i)))``; integers below ``n`` are read as 4-byte
   big-endian words with rejection sampling (no modulo bias).
4. The player to the dealer's right cuts at position ``p`` (``CUT_MARGIN`` to
   ``len - CUT_MARGIN``): the top ``p`` cards go under the rest.
5. ``deal.deal_from_deck`` deals the cut deck from the top.

Pure and dependency-free (hashlib, hmac): the offline verifier (``replay.py``) uses it.
"""

from __future__ import annotations

import hashlib
import hmac
import re

from .cards import full_deck
from .commands import Deal
from .deal import deal_from_deck
from .ruleset import RuleSet

SCHEME = "buraco-deal-v1"
SEED_BYTES = 32
CUT_MARGIN = 4  # at least this many cards on each side of a cut
CLIENT_SEED = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_LIMIT = 1 << 32


def commitment(server_seed: str) -> str:
    """SHA-256 of the seed's 32 bytes (given as 64 hex digits), as 64 hex digits."""
    return hashlib.sha256(seed_bytes(server_seed)).hexdigest()


def seed_bytes(server_seed: str) -> bytes:
    raw = bytes.fromhex(server_seed)
    if len(raw) != SEED_BYTES:
        raise ValueError("a server seed is 32 bytes (64 hex digits)")
    return raw


def valid_client_seed(seed: str) -> bool:
    return bool(CLIENT_SEED.match(seed))


def client_part(client_seeds: list[str | None] | tuple[str | None, ...]) -> str:
    """The client seeds by seat, comma-separated ('' for a seat that gave none)."""
    return ",".join(s or "" for s in client_seeds)


class Stream:
    """The byte stream of step 3, read as unbiased integers."""

    __slots__ = ("key", "prefix", "counter", "buf", "pos")

    def __init__(self, server_seed: str, client_seeds: list[str | None] | tuple[str | None, ...]):
        self.key = seed_bytes(server_seed)
        self.prefix = f"{SCHEME}|{client_part(client_seeds)}|".encode("ascii")
        self.counter = 0
        self.buf = b""
        self.pos = 0

    def _word(self) -> int:
        if self.pos + 4 > len(self.buf):
            msg = self.prefix + str(self.counter).encode("ascii")
            self.buf = hmac.new(self.key, msg, hashlib.sha256).digest()
            self.counter += 1
            self.pos = 0
        word = int.from_bytes(self.buf[self.pos : self.pos + 4], "big")
        self.pos += 4
        return word

    def below(self, n: int) -> int:
        """An integer in [0, n): a word at or above the largest multiple of n that fits
        in 32 bits is thrown away and the next one read."""
        limit = _LIMIT - _LIMIT % n
        while True:
            word = self._word()
            if word < limit:
                return word % n


def shuffled(
    rules: RuleSet, server_seed: str, client_seeds: list[str | None] | tuple[str | None, ...]
) -> list[int]:
    """Step 3: the canonical deck shuffled by the seeds (index 0 is the top card)."""
    stream = Stream(server_seed, client_seeds)
    deck = list(full_deck(rules.jokers))
    for i in range(len(deck) - 1, 0, -1):
        j = stream.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def cut_range(deck_size: int) -> tuple[int, int]:
    """The legal cut positions, both ends included."""
    return CUT_MARGIN, deck_size - CUT_MARGIN


def cut_deck(deck: list[int], position: int) -> list[int]:
    """Step 4: lift the top ``position`` cards and put them under the rest."""
    lo, hi = cut_range(len(deck))
    if not lo <= position <= hi:
        raise ValueError(f"a cut is between {lo} and {hi}")
    return deck[position:] + deck[:position]


def derive_deal(
    rules: RuleSet,
    server_seed: str,
    client_seeds: list[str | None] | tuple[str | None, ...],
    position: int,
    first: int,
) -> Deal:
    """Steps 3 to 5: the hand's deal."""
    return deal_from_deck(
        rules, cut_deck(shuffled(rules, server_seed, client_seeds), position), first
    )


def deck_size(rules: RuleSet) -> int:
    return 104 + rules.jokers


def dealer_of(first: int, players: int) -> int:
    """The dealer: the seat just before the first player in play order."""
    return (first - 1) % players


def cutter_of(first: int, players: int) -> int:
    """The player to the dealer's right: the seat just before the dealer in play order
    (seats play clockwise, so the right-hand neighbour plays before)."""
    return (dealer_of(first, players) - 1) % players
