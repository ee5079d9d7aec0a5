"""The published prize tables and the pool's arithmetic (pure).

A prize table gives each paid place a share of the pool in hundredths of a percent
(10,000 = the whole pool). The table used is the one for the largest field size not
above the number of entrants when play starts.
"""

from __future__ import annotations

FULL = 10_000  # the whole pool, in hundredths of a percent

PRIZE_TABLES: dict[int, list[int]] = {
    2: [10_000],
    4: [7_000, 3_000],
    8: [5_000, 3_000, 2_000],
    16: [4_000, 2_500, 1_500, 1_000, 500, 500],
    32: [3_000, 2_000, 1_400, 1_000, 700, 700, 600, 600],
}


def table_for(entrants: int) -> list[int]:
    sizes = [n for n in sorted(PRIZE_TABLES) if n <= max(entrants, 2)]
    return list(PRIZE_TABLES[sizes[-1]])


def valid_table(shares: list[int]) -> bool:
    return bool(shares) and all(s > 0 for s in shares) and sum(shares) == FULL


def pool_of(buy_ins: int, fee_bps: int, guaranteed: int = 0) -> tuple[int, int]:
    """(pool, fee) from what the entrants paid: the fee is rounded down, so the house
    never takes more than its percentage; a guaranteed pool is topped up by the house."""
    fee = buy_ins * fee_bps // FULL
    return max(buy_ins - fee, guaranteed), fee


def split(pool: int, shares: list[int], places: int) -> list[int]:
    """Each paid place's prize, in place order. Only as many places as there are
    entrants are paid (the rest of the table's shares go to the places above, in
    proportion); amounts are whole coins, rounded down, the remainder to first place,
    so the prizes always sum to the pool exactly."""
    used = shares[: max(min(places, len(shares)), 1)]
    total = sum(used)
    amounts = [pool * s // total for s in used]
    amounts[0] += pool - sum(amounts)
    return amounts
