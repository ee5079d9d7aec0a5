"""Fan-out: one Redis subscriber per process, one queue per connection.

The hub subscribes to a channel while some local connection needs it (a table, the
lobby, a user's personal channel) and hands each message to those connections. Each
connection's pump turns table records into the frames its viewer may see (``redact``),
keeps versions contiguous (a gap is filled from the stream, or replaced by a fresh
snapshot) and is the only task that writes to its socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from redis.asyncio import Redis

from app.rules.ruleset import RuleSet, ruleset_from_dict
from app.rules.serialize import event_from_dict
from app.rules.views import redact, view_for
from app.tables.cache import TableCache
from app.tables.meta import TableMeta

log = logging.getLogger("app.tables.fanout")

Deliver = Callable[[str, Any], None]


class Hub:
    """The process's single Redis subscriber."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self.pubsub = redis.pubsub()
        self.listeners: dict[str, set[Deliver]] = {}
        self.task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.stopping = False
        self.table_cache: TableCache | None = None  # kept in step with the tables' records

    async def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name="hub")

    async def _subscribe_private(self) -> None:
        """A private channel keeps the subscriber alive while nobody watches anything.
        Retried until Redis answers, so the server starts (and /readyz says why it is not
        ready) while Redis is down."""
        while not self.stopping:
            try:
                await self.pubsub.subscribe(f"proc:{secrets.token_hex(8)}")
                return
            except Exception:
                log.warning("pub/sub cannot subscribe yet; retrying")
                await asyncio.sleep(1.0)

    async def stop(self) -> None:
        self.stopping = True
        if self.task:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()

    async def add(self, channel: str, deliver: Deliver) -> None:
        async with self._lock:
            listeners = self.listeners.setdefault(channel, set())
            first = not listeners
            listeners.add(deliver)
            if first:
                await self.pubsub.subscribe(channel)

    async def remove(self, channel: str, deliver: Deliver) -> None:
        async with self._lock:
            listeners = self.listeners.get(channel)
            if not listeners:
                return
            listeners.discard(deliver)
            if not listeners:
                del self.listeners[channel]
                await self.pubsub.unsubscribe(channel)
                if self.table_cache is not None and channel.startswith("tch:"):
                    self.table_cache.drop(channel[4:])  # no longer in step: forget it

    async def _run(self) -> None:
        await self._subscribe_private()
        while not self.stopping:
            try:
                message = await self.pubsub.get_message(ignore_subscribe_messages=True,
                                                        timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("pub/sub read failed; retrying")
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            channel = message["channel"]
            channel = channel.decode() if isinstance(channel, bytes) else channel
            listeners = self.listeners.get(channel)
            if not listeners:
                continue
            data = message["data"]
            data = data.decode() if isinstance(data, bytes) else data
            table = channel.startswith("tch:")
            if table:  # records, then the meta and state the commit saved (store.py)
                data, _, rest = data.partition("\n")
                meta_raw, _, state_raw = rest.partition("\n")
            try:
                payload = orjson.loads(data)
            except orjson.JSONDecodeError:
                continue
            if table:
                if self.table_cache is not None:
                    self.table_cache.advance(payload, meta_raw, state_raw)
                _parse_events(payload)
            for deliver in list(listeners):
                deliver(channel, payload)


def _parse_events(payload: dict[str, Any]) -> None:
    """Parse each game event once per process; every connection then only redacts."""
    for record in payload.get("records", []):
        if record.get("k") == "g":
            record["_ev"] = event_from_dict(record["e"])


class TableWatch:
    """One connection's view of one table."""

    def __init__(self, table_id: str, user_id: int) -> None:
        self.table_id = table_id
        self.user_id = user_id
        self.last_v = 0
        self.seat: int | None = None
        self.rules: RuleSet | None = None
        self.present = False  # counted among the seated player's sockets (grace clock)

    def update_meta(self, meta: dict[str, Any] | TableMeta) -> None:
        m = meta if isinstance(meta, TableMeta) else None
        if m is not None:
            self.seat = m.seat_of(self.user_id)
            self.rules = ruleset_from_dict(m.rules)
            return
        assert isinstance(meta, dict)
        self.seat = None
        for i, s in enumerate(meta["seats"]):
            if s and s.get("user_id") == self.user_id and not s.get("bot"):
                self.seat = i
        self.rules = ruleset_from_dict(meta["rules"])

    def frame(self, record: dict[str, Any]) -> dict[str, Any]:
        """The frame this viewer receives for one table record."""
        kind = record.get("k")
        frame: dict[str, Any] = {"type": "event", "table": self.table_id, "v": record["v"]}
        if kind == "g":
            event = record.get("_ev") or event_from_dict(record["e"])
            assert self.rules is not None
            frame["kind"] = "game"
            frame["event"] = redact(event, self.seat, self.rules)
        elif kind == "t":
            self.update_meta(record["meta"])
            frame["kind"] = "table"
            frame["event"] = {"change": record["change"], "meta": record["meta"],
                              "seat": self.seat}
        elif kind in _SEAT_KINDS:
            frame["kind"] = _SEAT_KINDS[kind]
            frame["event"] = {key: val for key, val in record.items() if key not in ("k", "v")}
        else:
            frame["kind"] = "clock"
            frame["event"] = {"seat": record.get("seat"), "deadline": record.get("deadline")}
        return frame


# Seat facts every viewer may see (service.py): a player away or back, a bot taking a
# seat over, the clock playing a turn for a player who ran out of time.
_SEAT_KINDS = {"p": "presence", "b": "bot_takeover", "o": "timeout"}


def snapshot_frame(table_id: str, v: int, meta: TableMeta, state: Any, seat: int | None,
                   ) -> dict[str, Any]:
    return {
        "type": "snapshot", "table": table_id, "v": v,
        "meta": meta.public_with_clock(), "seat": seat,
        "game": view_for(state, seat) if state is not None else None,
    }


Sender = Callable[[dict[str, Any]], Awaitable[None]]
