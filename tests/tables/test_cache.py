"""The per-process table cache (app/tables/cache.py): it only ever holds what Redis held
at the entry's version, advancing on records that follow it exactly."""

from __future__ import annotations

import time

from app.tables.cache import TableCache
from app.tables.meta import Seat, TableMeta


def meta(name: str = "t") -> TableMeta:
    return TableMeta(id="T", name=name, host=1, preset="cerrado", rules={}, players=2,
                     bet=6000, seats=[Seat(user_id=1, name="a"), None], created_at=time.time())


def published(first: int, last: int) -> dict[str, object]:
    return {"t": "T", "records": [{"v": v} for v in range(first, last + 1)]}


def test_advances_on_the_next_records_and_parses_the_new_meta_lazily() -> None:
    cache = TableCache()
    cache.put("T", 5, meta("old"), None)
    cache.advance(published(6, 7), meta("new").model_dump_json(), "")
    entry = cache.get("T")
    assert entry is not None and entry.v == 7 and entry.meta().name == "new"
    cache.advance(published(8, 8), "", "")  # meta left as it was
    assert entry.v == 8 and entry.meta().name == "new"


def test_own_commit_already_cached_is_ignored_and_a_gap_forgets_the_table() -> None:
    cache = TableCache()
    cache.put("T", 7, meta(), None)
    cache.advance(published(6, 7), meta("stale").model_dump_json(), "")
    assert cache.get("T").v == 7 and cache.get("T").meta().name == "t"  # type: ignore[union-attr]
    cache.advance(published(9, 9), meta().model_dump_json(), "")  # 8 never arrived
    assert cache.get("T") is None
    cache.put("T", 9, meta(), None)
    cache.put("T", 8, meta("older"), None)  # a slower load never moves it back
    assert cache.get("T").v == 9  # type: ignore[union-attr]


def test_bounded() -> None:
    cache = TableCache(limit=3)
    for i in range(5):
        cache.put(f"T{i}", 1, meta(), None)
    assert list(cache.entries) == ["T2", "T3", "T4"]
