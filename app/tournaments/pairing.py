"""Who plays whom (pure functions; docs/tournaments.md, "Pairings").

A *side* is an int: an entrant's id at 2 players, a pair's team number at 4.

* Knockout: a bracket the size of the next power of two, seeds placed so that 1 and 2
  can only meet in the final (1 against the lowest seed, and so on); the places beyond
  the entrants are byes, which fall to the top seeds. Later rounds pair the winners of
  neighbouring matches.
* Swiss/Danish: round 1 by rating (seed i against seed i + n/2); later rounds pair down
  the standings, each side with the highest one below it it has not met, backtracking
  so that nobody meets anybody twice whenever that is possible; only when it is not,
  the fewest repeats. An odd field gives a bye (14 Victory Points) to the lowest side
  in the standings that has not had one yet.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

BYE_VP = 14
Pair = tuple[int, int | None]  # (side a, side b); b None: a bye for a
SEARCH_LIMIT = 200_000  # backtracking steps before settling for repeats


def bracket_size(n: int) -> int:
    size = 1
    while size < n:
        size *= 2
    return max(size, 2)


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order: [1, 8, 4, 5, 2, 7, 3, 6] for 8, so
    neighbouring matches' winners meet and seeds 1 and 2 only in the final."""
    order = [1]
    while len(order) < size:
        n = len(order) * 2
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def knockout_first_round(seeded: Sequence[int]) -> list[Pair]:
    """``seeded``: the sides, strongest first. Byes (b None) go to the top seeds."""
    if len(seeded) < 2:
        raise ValueError("a knockout needs at least 2 sides")
    if len(set(seeded)) != len(seeded):
        raise ValueError("a side appears twice")
    order = bracket_order(bracket_size(len(seeded)))
    pairs: list[Pair] = []
    for i in range(0, len(order), 2):
        a, b = order[i], order[i + 1]
        side_a = seeded[a - 1]
        side_b = seeded[b - 1] if b <= len(seeded) else None
        pairs.append((side_a, side_b))
    return pairs


def knockout_next_round(winners: Sequence[int]) -> list[Pair]:
    """The winners of the previous round, in its match order, paired neighbour with
    neighbour (two matches' winners always meet, so the bracket stays as drawn)."""
    if len(winners) < 2 or len(winners) % 2:
        raise ValueError("a knockout round needs an even number of winners, at least 2")
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]


def knockout_rounds(sides: int) -> int:
    return bracket_size(sides).bit_length() - 1


def swiss_first_round(seeded: Sequence[int]) -> list[Pair]:
    """Seed i against seed i + n/2 (the top half against the bottom half); an odd
    field's last seed has the bye."""
    sides = list(seeded)
    pairs: list[Pair] = []
    if len(sides) % 2:
        pairs.append((sides.pop(), None))
    half = len(sides) // 2
    return [(sides[i], sides[i + half]) for i in range(half)] + pairs


def _key(a: int, b: int) -> frozenset[int]:
    return frozenset((a, b))


def swiss_round(
    ranked: Sequence[int], met: Iterable[tuple[int, int]], had_bye: Iterable[int] = ()
) -> list[Pair]:
    """Pair ``ranked`` (the standings, first place first) avoiding every pairing in
    ``met``; the bye (odd field) to the lowest side without one (if all had one: the
    lowest). Repeats only when no pairing without them exists, then as few as can be
    found within the search limit."""
    sides = list(ranked)
    if len(set(sides)) != len(sides):
        raise ValueError("a side appears twice")
    played = {_key(a, b) for a, b in met}
    byes = set(had_bye)
    bye: int | None = None
    if len(sides) % 2:
        candidates = [s for s in reversed(sides) if s not in byes] or [sides[-1]]
        bye = candidates[0]
        sides.remove(bye)
    for allowed in range(len(sides) // 2 + 1):
        found = _search(sides, played, allowed)
        if found is not None:
            break
    else:  # pragma: no cover - allowed = n/2 always succeeds
        raise AssertionError("no pairing")
    pairs: list[Pair] = [(a, b) for a, b in found]
    if bye is not None:
        pairs.append((bye, None))
    return pairs


def _search(
    sides: list[int], played: set[frozenset[int]], allowed: int
) -> list[tuple[int, int]] | None:
    """Top-down: the highest unpaired side against the highest one below it, with at
    most ``allowed`` repeats; None when impossible (or the search ran too long)."""
    steps = 0
    paired: list[tuple[int, int]] = []

    def go(rest: list[int], repeats: int) -> bool:
        nonlocal steps
        if not rest:
            return True
        steps += 1
        if steps > SEARCH_LIMIT:
            return False
        first, others = rest[0], rest[1:]
        for i, other in enumerate(others):
            again = _key(first, other) in played
            if again and repeats >= allowed:
                continue
            paired.append((first, other))
            if go(others[:i] + others[i + 1 :], repeats + again):
                return True
            paired.pop()
        return False

    if go(sides, 0):
        return list(paired)
    if steps > SEARCH_LIMIT and allowed == len(sides) // 2:
        return [(sides[i], sides[i + 1]) for i in range(0, len(sides), 2)]
    return None


def repeats(rounds: Iterable[Iterable[Pair]]) -> int:
    """How many pairings (byes aside) occurred before in ``rounds``."""
    seen: set[frozenset[int]] = set()
    again = 0
    for pairs in rounds:
        for a, b in pairs:
            if b is None:
                continue
            k = _key(a, b)
            again += k in seen
            seen.add(k)
    return again
