"""Fan-out: one Redis subscriber per process, one queue per connection.

The hub subscribes to a channel while some local connection needs it (a table, the
lobby, a user's personal channel) and unsubscribes when the last one leaves, so a
process receives only the tables its sockets watch (on Redis Cluster a table's channel
is a sharded one, SSUBSCRIBE, on the table's shard). A table message carries the
commit's records (``store.COMMIT_LUA``): the hub folds them into the process's cached
state once (``storage/cache.py``; a gap reloads the table from Redis), parses each game event
once, and hands the message to the watching connections. Each connection's pump turns
the records into the frames its viewer may see; the frames of one commit are built and
encoded once per viewer kind (each seat, and spectators) and the same text goes to every
socket of that kind (``shared_frames``). The pump keeps versions contiguous (a gap is
filled from the log, or replaced by a fresh snapshot) and is the only task that
writes to its socket; the one exception is the common case of a socket whose pump waits
with nothing queued, whose next commit the hub writes itself, in this callback, since
nothing can be ahead of it (``Connection._write_now``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from app.core import metrics
from app.core.redissub import Subscriber
from app.core.tasks import cancel_and_wait
from app.rules.ruleset import RuleSet, ruleset_from_dict
from app.rules.serialize import event_from_dict
from app.rules.views import redact, view_for
from app.tables.live import sockets
from app.tables.play.idle import schedule_idle_check
from app.tables.storage.cache import GAP, TableCache
from app.tables.storage.meta import TableMeta
from app.tables.storage.store import channel_table

if TYPE_CHECKING:
    from app.tables.play.service import TableService

log = logging.getLogger("app.tables.live.fanout")

Deliver = Callable[[str, Any], None]


class Hub:
    """The process's single Redis subscriber."""

    def __init__(self, redis: Redis, service: TableService | None = None) -> None:
        self.redis = redis
        self.sharded = is_cluster(redis)  # table channels are sharded ones
        # The lean subscriber on plain TCP (app/core/redissub.py); redis-py's pub/sub
        # for TLS, a Unix socket and the embedded fakeredis.
        self.lean = Subscriber.for_client(redis, self._dispatch, self._lost)
        self.pubsub: Any = redis.pubsub() if self.lean is None else None
        self.listeners: dict[str, set[Deliver]] = {}
        self.table_count = 0  # table channels among them (overload.py's cap reads it)
        self.task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.stopping = False
        self.service = service
        # kept in step with the tables' records
        self.table_cache: TableCache | None = service.cache if service else None
        self.received: Counter[str] = Counter()  # table messages by channel (for tests)
        self.reloads = 0  # tables reloaded after a gap in their records
        self._reloading: set[asyncio.Task[Any]] = set()
        self.sockets: set[Any] = set()  # this process's connections (app/api/restart.py)
        self.expiry = sockets.ExpirySweep(self.sockets)  # their sessions' deadlines
        if service is not None:  # Redis lost its data: count our sockets again
            service.rejoin_hooks.append(self.recount_sockets)
            # Among a table's watchers under the process's id; a commit of a table only
            # this process watches is not published, but handed to _dispatch here.
            service.store.proc_id = service.proc_id
            service.store.local = self._dispatch
            service.rejoin_hooks.append(self.rewatch)
        # A blocking read on a real server (stop() cancels the task): with a timeout every
        # message pays for a timer set and cancelled around its read. The embedded
        # fakeredis does not give up a blocking read when cancelled, so it polls.
        self._read_timeout = 1.0 if type(redis).__module__.startswith("fakeredis") else None

    async def recount_sockets(self) -> None:
        """Each open socket of this process among its user's again (sockets.recount)."""
        users = await sockets.recount(self.redis, self.sockets)
        log.warning("counted the sockets of %d users again", users)

    async def rewatch(self) -> None:
        """Count this process among the watchers of every table it watches, again: Redis
        may have lost them (a flush, a failover to a replica that was behind). Until
        then another process that finds itself the only watcher left publishes nothing,
        and this one's viewers catch up from the log at their next message."""
        if self.service is None:
            return
        for channel in list(self.listeners):
            table_id = channel_table(channel)
            if table_id is not None and channel in self.listeners:
                with contextlib.suppress(Exception):
                    await self.service.store.watch(table_id, True)

    async def start(self) -> None:
        self.expiry.start()
        if self.lean is None:
            self.task = asyncio.create_task(self._run(), name="hub")

    async def _subscribe_private(self) -> None:
        """A private channel keeps the subscriber alive while nobody watches anything.
        Retried until Redis answers, so the server starts (and /readyz says why it is not
        ready) while Redis is down."""
        while not self.stopping:
            try:
                if self.sharded:
                    await self.redis.initialize()
                await self.pubsub.subscribe(f"proc:{secrets.token_hex(8)}")
                return
            except Exception:
                log.warning("pub/sub cannot subscribe yet; retrying")
                await asyncio.sleep(1.0)

    async def stop(self) -> None:
        self.stopping = True
        self.expiry.stop()
        await cancel_and_wait(self.task)
        with contextlib.suppress(Exception):
            if self.lean is not None:
                await self.lean.close()
            else:
                await self.pubsub.aclose()

    async def add(self, channel: str, deliver: Deliver) -> None:
        async with self._lock:
            listeners = self.listeners.setdefault(channel, set())
            first = not listeners
            listeners.add(deliver)
            if first:
                table_id = channel_table(channel)
                table = table_id is not None
                self.table_count += table
                if table_id is not None and self.service is not None:
                    # Before the subscription and the viewer's load that follows it:
                    # from here on, every other process's commit of it is published.
                    try:
                        await self.service.store.watch(table_id, True)
                    except BaseException:
                        listeners.discard(deliver)
                        del self.listeners[channel]
                        self.table_count -= 1
                        raise
                if self.lean is not None:
                    await self.lean.subscribe(channel, sharded=self.sharded and table)
                elif self.sharded and table:
                    await self.redis.initialize()  # the slots must be known
                    await self.pubsub.ssubscribe(channel)
                else:
                    await self.pubsub.subscribe(channel)

    async def remove(self, channel: str, deliver: Deliver) -> None:
        async with self._lock:
            listeners = self.listeners.get(channel)
            if not listeners:
                return
            listeners.discard(deliver)
            if not listeners:
                del self.listeners[channel]
                table_id = channel_table(channel)
                if table_id is not None:
                    self.table_count -= 1
                if self.table_cache is not None and table_id is not None:
                    self.table_cache.drop(table_id)  # no longer in step: forget it
                # Before the unsubscribe, which fails while Redis is down (so does this,
                # then: the check is also set when the process is swept as dead).
                if self.service is not None and table_id is not None:
                    with contextlib.suppress(Exception):  # the last viewer here left
                        await schedule_idle_check(self.service, table_id)
                    # Another watcher may be left alone, then published nothing; when
                    # this fails (Redis down), the others' commits just go on publishing.
                    with contextlib.suppress(Exception):
                        await self.service.store.watch(table_id, False)
                if self.lean is not None:
                    self.lean.unsubscribe(channel)
                    return
                sharded = self.sharded and table_id is not None
                try:
                    if sharded:
                        await self.pubsub.sunsubscribe(channel)
                    else:
                        await self.pubsub.unsubscribe(channel)
                finally:
                    self._forget_subscription(channel, sharded)

    def _forget_subscription(self, channel: str, sharded: bool) -> None:
        """redis-py keeps a channel among its subscriptions until the server confirms
        the unsubscribe, and subscribes to all of them again when it reconnects: an
        unsubscribe sent on a link that was dying (Redis down or restarting), or that
        failed, would have this process hear a table nobody here watches for ever, and
        the idle check (which counts a channel's subscribers) never end that table.
        Nobody here listens, so the channel leaves those lists as soon as the
        unsubscribe is sent; a confirmation that comes later finds nothing to remove,
        and a link that failed is a link closed, whose subscriptions the server forgot."""
        keys = (channel, channel.encode())
        pubsubs = [self.pubsub, *getattr(self.pubsub, "node_pubsub_mapping", {}).values()]
        for pubsub in pubsubs:
            subscribed = getattr(pubsub, "shard_channels" if sharded else "channels", None)
            if isinstance(subscribed, dict):
                for key in keys:
                    subscribed.pop(key, None)
        index = getattr(self.pubsub, "_shard_channel_to_node", None)
        if sharded and isinstance(index, dict):
            for key in keys:
                index.pop(key, None)

    async def _run(self) -> None:
        await self._subscribe_private()
        nodes: list[Any] = self.redis.get_primaries() if self.sharded else []  # type: ignore[attr-defined]
        readers = [asyncio.create_task(self._run_shard(node), name="hub-shard") for node in nodes]
        try:
            await self._run_classic()
        finally:
            for task in readers:
                task.cancel()

    async def _run_shard(self, node: Any) -> None:
        """Sharded messages of one cluster node (each node's subscriptions have their own
        connection in redis-py's ClusterPubSub)."""
        while not self.stopping:
            try:
                message = await self.pubsub.get_sharded_message(
                    ignore_subscribe_messages=True, timeout=1.0, target_node=node
                )
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("sharded pub/sub read failed; retrying")
                await asyncio.sleep(0.5)
                continue
            if message is None:
                await asyncio.sleep(0.05)  # no subscription on this node yet
            elif message.get("type") == "smessage":
                self._dispatch_message(message)

    async def _run_classic(self) -> None:
        while not self.stopping:
            try:
                message = await self.pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=self._read_timeout
                )
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("pub/sub read failed; retrying")
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") not in ("message", "smessage"):
                continue
            self._dispatch_message(message)

    def _dispatch_message(self, message: dict[str, Any]) -> None:
        """A message read by redis-py."""
        channel, data = message["channel"], message["data"]
        self._dispatch(
            channel.decode() if isinstance(channel, bytes) else channel,
            data.decode() if isinstance(data, bytes) else data,
        )

    def _lost(self, channels: set[str]) -> None:
        """The lean subscriber lost a connection, and with it perhaps some messages of
        these channels: the cached states of their tables are no longer known to be in
        step, so they are forgotten (and loaded from Redis when next needed)."""
        if self.service is not None:  # the watchers may have gone with the connection
            task = asyncio.create_task(self.rewatch())
            self._reloading.add(task)
            task.add_done_callback(self._reloading.discard)
        if self.table_cache is None:
            return
        for channel in channels:
            table_id = channel_table(channel)
            if table_id is not None:
                self.table_cache.drop(table_id)

    def _dispatch(self, channel: str, data: str) -> None:
        table = channel_table(channel) is not None
        if table:
            self.received[channel] += 1
        listeners = self.listeners.get(channel)
        if not listeners:
            return
        if table:  # records, then the meta and state when sent whole (storage/store.py)
            data, _, rest = data.partition("\n")
            meta_raw, _, state_raw = rest.partition("\n")
        try:
            payload = orjson.loads(data)
        except orjson.JSONDecodeError:
            return
        if table:
            metrics.PUBSUB_LAG.observe(max(0.0, time.time() - payload.get("at", time.time())))
            _parse_events(payload)
            if self.table_cache is not None:
                self._advance(payload, meta_raw, state_raw)
        for deliver in list(listeners):
            deliver(channel, payload)

    def _advance(self, payload: dict[str, Any], meta_raw: str, state_raw: str) -> None:
        assert self.table_cache is not None
        try:
            found = self.table_cache.advance(payload, meta_raw, state_raw)
        except Exception:  # never trust a fold that failed: load the table afresh
            log.exception("folding the records of table %s failed", payload.get("t"))
            self.table_cache.drop(str(payload.get("t")))
            found = GAP
        if found == GAP and self.service is not None:
            self.reloads += 1
            task = asyncio.create_task(self._reload(str(payload["t"])))
            self._reloading.add(task)
            task.add_done_callback(self._reloading.discard)

    async def _reload(self, table_id: str) -> None:
        """A message was lost on the way (pub/sub is at most once): load the table."""
        assert self.service is not None
        with contextlib.suppress(Exception):
            await self.service.load(table_id)


def is_cluster(redis: Any) -> bool:
    return isinstance(redis, RedisCluster)


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
            frame["event"] = {"change": record["change"], "meta": record["meta"], "seat": self.seat}
        elif kind in _SEAT_KINDS:
            frame["kind"] = _SEAT_KINDS[kind]
            frame["event"] = {key: val for key, val in record.items() if key not in ("k", "v")}
        else:
            frame["kind"] = "clock"
            frame["event"] = {key: val for key, val in record.items() if key not in ("k", "v")}
        return frame


# Seat facts every viewer may see (play/service.py): a player away or back, a bot taking a
# seat over, the clock playing a turn for a player who ran out of time.
_SEAT_KINDS = {"p": "presence", "b": "bot_takeover", "o": "timeout"}


def shared_frames(payload: dict[str, Any], watch: TableWatch) -> str | None:
    """The encoded message of one commit for this viewer, built once per viewer kind
    (its seat, or None for spectators) and shared by every socket of that kind; None
    when this viewer needs its own (it is not exactly one version behind, or a table
    record may change its seat: the caller then builds the frames one by one)."""
    records = payload.get("records") or []
    if (
        not records
        or records[0]["v"] != watch.last_v + 1
        or any(r.get("k") == "t" for r in records)
    ):
        return None
    views: dict[int | None, str] = payload.setdefault("_views", {})
    text = views.get(watch.seat)
    if text is None:
        frames = [watch.frame(r) for r in records]
        text = orjson.dumps(
            frames[0] if len(frames) == 1 else {"type": "batch", "frames": frames}
        ).decode()
        views[watch.seat] = text
    watch.last_v = records[-1]["v"]
    return text


def snapshot_frame(
    table_id: str,
    v: int,
    meta: TableMeta,
    state: Any,
    seat: int | None,
) -> dict[str, Any]:
    return {
        "type": "snapshot",
        "table": table_id,
        "v": v,
        "meta": meta.public_with_clock(),
        "seat": seat,
        "game": view_for(state, seat) if state is not None else None,
    }


Sender = Callable[[dict[str, Any]], Awaitable[None]]
