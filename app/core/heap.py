"""Where a process's memory goes, by type: the objects made since start-up.

``census`` walks every object the cyclic collector tracks (everything start-up made was
moved out of its sight by ``gc.freeze()``, app/main.py, so what is left is what the
process made while serving: sockets, tables, caches) and, below them, the untracked
objects they hold (strings, numbers, tuples and dicts of plain values), each counted
once. Sizes are ``sys.getsizeof``: the object itself, not what it refers to, so each
byte is counted under one type only. Memory outside Python objects (the event loop's
handles, the allocator's free lists, the kernel's socket buffers) is not in it; the
resident size beside it says how much that is.

It looks at every object, so it holds the process for a while (about a second per
500,000 objects): a diagnosis, not something to scrape (docs/operations.md).
"""

from __future__ import annotations

import gc
import os
import sys
from collections import Counter
from typing import Any

_LEAVES = (tuple, frozenset, dict, list, set)


def _name(kind: type) -> str:
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"


def census(limit: int = 40) -> dict[str, Any]:
    """The ``limit`` types holding the most bytes, with the totals over every type."""
    counts: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    seen: set[int] = set()
    untracked: list[Any] = []
    tracked = gc.get_objects()
    for obj in tracked:
        name = _name(type(obj))
        counts[name] += 1
        sizes[name] += sys.getsizeof(obj)
        untracked.extend(ref for ref in gc.get_referents(obj) if not gc.is_tracked(ref))
    del tracked
    while untracked:
        obj = untracked.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        name = _name(type(obj))
        counts[name] += 1
        sizes[name] += sys.getsizeof(obj)
        if isinstance(obj, _LEAVES):  # untracked containers hold only plain values
            untracked.extend(ref for ref in gc.get_referents(obj) if not gc.is_tracked(ref))
    return {
        "objects": sum(counts.values()),
        "bytes": sum(sizes.values()),
        "types": [
            {"type": name, "count": counts[name], "bytes": size}
            for name, size in sizes.most_common(limit)
        ],
    }


def resident_bytes() -> int | None:
    """This process's resident set size (Linux), or None where /proc is not there."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None
