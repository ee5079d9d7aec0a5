"""The tables this process serves, as of a version: (v, meta, state), parsed lazily.

A move decided on a cached entry costs one Redis round trip (the commit) instead of two
(load + commit). This is safe because every change to a table's meta or state goes
through the commit script, which bumps the version and refuses a stale one: an entry at
version v holds exactly what Redis held at v, so a decision on it either commits (the
table was still at v) or gets Conflict and is decided again. Entries advance by this
process's own commits and by the EVENTS other processes publish on the tables this one
watches (``store.COMMIT_LUA``): the game records are folded into the cached state with
the engine's ``evolve`` (the fold the engine's property tests check against ``apply``),
a changed meta comes whole, a state the records do not determine comes whole. Records
that do not follow the entry's version exactly (a lost message) drop the entry and
``advance`` says so, so that the caller reloads it. A decision on an entry that refuses
or does nothing is made again on a fresh load, since a stale entry may be wrong about
whose turn it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from app.rules.engine import evolve
from app.rules.ruleset import ruleset_from_dict
from app.rules.serialize import event_from_dict, state_from_dict
from app.rules.state import State, initial_state
from app.tables.storage.meta import TableMeta

MAX_ENTRIES = 20_000

# What ``advance`` found
FOLDED, ALREADY, GAP, ABSENT = "folded", "already", "gap", "absent"


class Entry:
    __slots__ = ("v", "_meta", "_meta_raw", "_state", "_state_raw")

    def __init__(
        self,
        v: int,
        meta: TableMeta | None,
        state: State | None,
        meta_raw: str = "",
        state_raw: str = "",
    ) -> None:
        self.v = v
        self._meta, self._meta_raw = meta, meta_raw
        self._state, self._state_raw = state, state_raw

    def meta(self) -> TableMeta:
        if self._meta is None:  # parsed once per version it is used at
            self._meta = TableMeta.model_validate_json(self._meta_raw)
            self._meta_raw = ""
        return self._meta

    def state(self) -> State | None:
        if self._state is None and self._state_raw:
            self._state = state_from_dict(orjson.loads(self._state_raw))
            self._state_raw = ""
        return self._state

    def fold(self, records: list[dict[str, Any]]) -> None:
        """Apply the game records of one commit to the state."""
        self._state = fold(self.state(), records, lambda: self.meta().rules)


def fold(
    state: State | None, records: list[dict[str, Any]], rules: Callable[[], dict[str, Any]]
) -> State | None:
    """``state`` with the game records of ``records`` applied in order (a first deal
    starts from the initial state of the meta's ``rules``, as the service's first deal
    does). The cache advances by it, and a load brings a saved state up to the table's
    version by it (``store.LOAD_LUA``)."""
    for record in records:
        if record.get("k") != "g":
            continue
        event = record.get("_ev") or event_from_dict(record["e"])
        if state is None:
            state = initial_state(ruleset_from_dict(rules()))
        state = evolve(state, event)
    return state


class TableCache:
    def __init__(self, limit: int = MAX_ENTRIES) -> None:
        self.entries: dict[str, Entry] = {}
        self.limit = limit

    def get(self, table_id: str) -> Entry | None:
        return self.entries.get(table_id)

    def put(self, table_id: str, v: int, meta: TableMeta, state: State | None) -> None:
        current = self.entries.get(table_id)
        if current is None:
            self._set(table_id, Entry(v, meta, state))
            return
        if current.v > v:
            return  # already further on (another process's records arrived first)
        # Updated in place, as ``advance`` does: an entry made per commit would be one
        # more young object per table at every collection (decision 0007).
        current.v = v
        current._meta, current._meta_raw = meta, ""
        current._state, current._state_raw = state, ""
        self._set(table_id, current)

    def drop(self, table_id: str) -> None:
        self.entries.pop(table_id, None)

    def _set(self, table_id: str, entry: Entry) -> None:
        self.entries.pop(table_id, None)
        self.entries[table_id] = entry  # the most recently used go last
        if len(self.entries) > self.limit:
            del self.entries[next(iter(self.entries))]

    def advance(self, payload: dict[str, Any], meta_raw: str, state_raw: str) -> str:
        """A commit's publish: its records (versions first..last), the full meta when it
        changed and the state when the records do not determine it ('' otherwise).
        Applies only on top of the version just before; returns FOLDED, ALREADY (our own
        commit, or older), GAP (the entry was dropped: reload it) or ABSENT."""
        records = payload.get("records") or []
        table_id = payload.get("t")
        if not records or not isinstance(table_id, str):
            return ALREADY
        first, last = records[0]["v"], records[-1]["v"]
        entry = self.entries.get(table_id)
        if entry is None:
            return ABSENT
        if entry.v >= last:
            return ALREADY
        if entry.v != first - 1:
            del self.entries[table_id]
            return GAP
        if meta_raw:
            entry._meta, entry._meta_raw = None, meta_raw
        if state_raw:
            entry._state, entry._state_raw = None, state_raw
        else:
            entry.fold(records)
        entry.v = last
        return FOLDED
