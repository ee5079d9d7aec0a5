"""Redis storage of live tables: one hash per table and a log of its records.

Every key of a table carries the hash tag ``{t:ID}`` so the commit script, which touches
all of them, also runs on Redis Cluster. A commit is one atomic script: check the
version, refuse a repeated command id, append the records (each with its own contiguous
version) to the log, save the meta and the state when given (``LOAD_LUA`` says when
the state is), publish, and on one server also add the move's new timers. The log
serves a client resuming after a gap (its last records, read by index: version ``v``
is entry ``v - 1``), a load (the records after the saved state) and the archive at
the game's end.
Other keys outside a table (the lobby index) are separate calls.

The publish on the table's channel ``tch:{t:ID}`` carries EVENTS, not states:
``{"t": ID, "records": [...]}``, a newline, and the full meta saved when the commit
changed it (else ''; the records carry only its public part, and the deals of hands in
play are needed to decide), a newline, and the state saved only when the records do not
determine it (no game record; else ''). A process that serves viewers of the table folds
the game records into its cached state with the engine's ``evolve``
(``app/tables/storage/cache.py``). JSON never holds a raw newline, so the split is exact. On a
cluster the publish is SPUBLISH: the channel's hash tag keeps it on the table's shard.
When the committing process is the only one whose hub watches the table (``WATCH_LUA``
keeps the watchers; routed by table, the usual case), nothing is published: the reply
says so and the process hands the same message to its own hub
(docs/decisions/0030-no-publish-to-the-only-watcher.md).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.core import metrics
from app.core.buckets import bucket_count, bucket_key, bucket_keys
from app.core.redis import as_text
from app.core.redisline import lines_for, redirected

log = logging.getLogger("app.tables.storage.store")

STATE_EVERY = 32  # a commit crossing a multiple of this many versions saves the state
RESUME_MAX_RECORDS = 512  # a longer gap is answered with a fresh snapshot, not its records
TABLE_TTL_SECONDS = 6 * 3600  # a finished or closed table lingers this long
LOBBY_KEY = "lobby:tables"  # public tables waiting for players
PLAYING_KEY = "lobby:playing"  # public games in progress, for spectators
TIMERS_KEY = "timers"
PROCS_KEY = "procs"  # server process id -> its last heartbeat (a sorted set)
LOBBY_CHANNEL = "lobby"

# ARGV: expected v, n records, meta, state, command id, the message's prefix, the n
# records, channel, clock, publish-the-state flag, publish command, the committing
# process's id ('' when it has no hub), then the timers (their count, then pairs).
# The message is not published when the committing process is the table's only
# watcher (``solo``, kept by WATCH_LUA): it hands the message to its own hub instead,
# and the reply's third element says so.
COMMIT_LUA = """
local h = redis.call('HMGET', KEYS[1], 'v', 'sv', 'solo')
local v = tonumber(h[1] or '0')
if v ~= tonumber(ARGV[1]) then return {0, v} end
local before = v
if ARGV[5] ~= '' then
  local seen = redis.call('HGET', KEYS[3], ARGV[5])
  if seen then return {-1, tonumber(seen)} end
end
local n = tonumber(ARGV[2])
local recs = {}
for i = 1, n do recs[i] = ARGV[6 + i] end
if n > 0 then redis.call('RPUSH', KEYS[2], unpack(recs)) end
v = v + n
local fields = {'v', v}
if ARGV[3] ~= '' then fields[#fields + 1] = 'meta'; fields[#fields + 1] = ARGV[3] end
if ARGV[4] ~= '' then
  fields[#fields + 1] = 'state'; fields[#fields + 1] = ARGV[4]
  fields[#fields + 1] = 'sv'; fields[#fields + 1] = v
elseif not h[2] then
  fields[#fields + 1] = 'sv'; fields[#fields + 1] = before
end
if ARGV[8 + n] ~= '' then fields[#fields + 1] = 'clock'; fields[#fields + 1] = ARGV[8 + n] end
redis.call('HSET', KEYS[1], unpack(fields))
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[5], v)
  redis.call('EXPIRE', KEYS[3], 86400)
end
local mine = 0
if n > 0 and ARGV[7 + n] ~= '' then
  if h[3] and h[3] == ARGV[11 + n] then
    mine = 1
  else
    local state = ''
    if ARGV[9 + n] == '1' then state = ARGV[4] end
    local body = ARGV[6] .. table.concat(recs, ',') .. ']}\\n' .. ARGV[3] .. '\\n' .. state
    redis.call(ARGV[10 + n], ARGV[7 + n], body)
  end
end
local m = tonumber(ARGV[12 + n] or '0')
if m > 0 then
  local timers = {}
  for j = 1, 2 * m do timers[j] = ARGV[12 + n + j] end
  redis.call('ZADD', KEYS[4], unpack(timers))
end
return {1, v, mine}
"""

# A process starts (ARGV[2] '1') or stops ('0') watching a table (KEYS[1] its hash,
# KEYS[2] the set of the processes that watch it). ``solo`` names the only watcher
# while there is exactly one, and is absent otherwise: a commit by that process then
# publishes nothing (COMMIT_LUA). A table that does not exist gets no hash; a Redis
# that lost these keys has no ``solo``, so every commit publishes, as it always may.
WATCH_LUA = """
if ARGV[2] == '1' then
  redis.call('SADD', KEYS[2], ARGV[1])
else
  redis.call('SREM', KEYS[2], ARGV[1])
end
if redis.call('SCARD', KEYS[2]) == 1 and redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'solo', redis.call('SRANDMEMBER', KEYS[2]))
else
  redis.call('HDEL', KEYS[1], 'solo')
end
local ttl = redis.call('TTL', KEYS[1])
if ttl > 0 then redis.call('EXPIRE', KEYS[2], ttl) end
return 1
"""


# A table's state as of its last commit is its saved state (``state``, at version
# ``sv``) with the game records after ``sv`` folded in. Only some commits save the state
# (``TableService.mutate``: the table's first state, a change the records do not
# determine, one that saves the meta too, and one that crosses a multiple of
# ``STATE_EVERY`` versions), so a load folds fewer records than that, and an ordinary
# move writes no state at all. A table with no state has no game record to fold (its
# first state is always saved). A table saved before ``sv`` existed had its state saved
# by every commit: the first commit that does not save it records ``sv`` as the version
# before it.
LOAD_LUA = """
local h = redis.call('HMGET', KEYS[1], 'v', 'meta', 'state', 'clock', 'sv')
local seen = false
if ARGV[1] ~= '' then seen = redis.call('HGET', KEYS[3], ARGV[1]) end
local after = {}
if h[3] and h[5] and tonumber(h[5]) < tonumber(h[1]) then
  after = redis.call('LRANGE', KEYS[2], tonumber(h[5]), tonumber(h[1]) - 1)
end
return {h[1], h[2], h[3], h[4], seen, after}
"""


def k_hash(table_id: str) -> str:
    return f"{{t:{table_id}}}:h"


def k_legacy_stream(table_id: str) -> str:
    """Where versions before this one also kept a table's last 512 records (an XADD
    per record, beside the log): only expired now, with the table's other keys."""
    return f"{{t:{table_id}}}:s"


def k_log(table_id: str) -> str:
    return f"{{t:{table_id}}}:log"


def k_watchers(table_id: str) -> str:
    """The ids of the server processes whose hub watches the table (WATCH_LUA)."""
    return f"{{t:{table_id}}}:w"


def k_cids(table_id: str) -> str:
    return f"{{t:{table_id}}}:cids"


def k_conns(table_id: str) -> str:
    return f"{{t:{table_id}}}:conns"


def k_proc_seats(proc: str) -> str:
    """The (table, user) pairs a server process counts sockets for: swept if it dies."""
    return f"proc:{proc}:seats"


def table_channel(table_id: str) -> str:
    """The table's own channel: its hash tag puts it on the table's shard (SPUBLISH)."""
    return f"tch:{{t:{table_id}}}"


def channel_table(channel: str) -> str | None:
    """The table a channel from ``table_channel`` belongs to, else None."""
    if channel.startswith("tch:{t:") and channel.endswith("}"):
        return channel[7:-1]
    return None


def user_channel(user_id: int) -> str:
    return f"user:{user_id}"


@dataclass(slots=True)
class Loaded:
    v: int
    meta: bytes | None
    state: bytes | None
    seen: int | None = None  # the version a repeated command id produced
    clock: float | None = None  # the turn clock's deadline, if one was ever started
    # The records after the saved state, in order (encoded as in the log): the state at
    # ``v`` is ``state`` with their game records folded in (LOAD_LUA).
    after: list[bytes] = field(default_factory=list)


class Conflict(Exception):
    """The table moved on since it was loaded: load again and decide again."""


class Duplicate(Exception):
    """The command id was seen before: answer with the version it produced."""

    def __init__(self, v: int) -> None:
        super().__init__(v)
        self.v = v


class TableStore:
    def __init__(self, redis: Redis, sharded: bool | None = None, buckets: int = 0) -> None:
        """``buckets``: how many hash-tagged keys each global set is split into (0: 1 on
        one server, ``CLUSTER_BUCKETS`` on a cluster, so no shard holds them all)."""
        self.redis = redis
        self._commit = redis.register_script(COMMIT_LUA)
        self._load = redis.register_script(LOAD_LUA)
        self._watch = redis.register_script(WATCH_LUA)
        # The process's hub, when it has one: its id among a table's watchers, and how
        # it takes a message its own commit did not publish (Hub._dispatch).
        self.proc_id = ""
        self.local: Callable[[str, str], None] | None = None
        # The commit goes on its own pipelined connection to its table's server
        # (app/core/redisline.py): a third of a move's CPU was redis-py's round trip.
        self._lines = lines_for(redis)
        self.cluster = isinstance(redis, RedisCluster)
        if sharded is None:
            sharded = self.cluster
        self.publish_command = "SPUBLISH" if sharded else "PUBLISH"
        self.buckets = bucket_count(redis, buckets)

    # -- the global sets, split into hash-tagged buckets

    def bucket(self, base: str, member: str) -> str:
        """The key of the bucket of ``base`` that holds ``member`` (a table's timers all
        go to its table's bucket). With one bucket it is ``base`` itself, as before."""
        parts = member.split("|", 2)
        owner = parts[1] if len(parts) == 3 else member
        return bucket_key(base, owner, self.buckets)

    def bucket_keys(self, base: str) -> list[str]:
        return bucket_keys(base, self.buckets)

    def _by_bucket(self, base: str, members: Any) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for member in members:
            out.setdefault(self.bucket(base, member), []).append(member)
        return out

    async def many(self, calls: list[tuple[str, tuple[Any, ...]]]) -> list[Any]:
        """Run ``calls`` (command name, arguments; the first argument is the key) in as
        few round trips as allowed: one pipeline on one server; on a cluster one pipeline
        per hash slot (never a cross-slot one), all at once, each keeping its order."""
        if not calls:
            return []
        if not self.cluster:
            async with self.redis.pipeline(transaction=False) as pipe:
                for name, args in calls:
                    getattr(pipe, name)(*args)
                return list(await pipe.execute())
        groups: dict[int, list[int]] = {}
        for i, (_, args) in enumerate(calls):
            groups.setdefault(key_slot(str(args[0]).encode()), []).append(i)
        replies: list[Any] = [None] * len(calls)

        async def run(indexes: list[int]) -> None:
            async with self.redis.pipeline(transaction=False) as pipe:
                for i in indexes:
                    name, args = calls[i]
                    getattr(pipe, name)(*args)
                for i, reply in zip(indexes, await pipe.execute(), strict=True):
                    replies[i] = reply

        await asyncio.gather(*(run(ix) for ix in groups.values()))
        return replies

    async def load(self, table_id: str, cid: str = "") -> Loaded | None:
        """The table's version, meta, saved state and the records after it (and, for a
        command id, the version it produced if it was seen before) in one round trip."""
        keys = [k_hash(table_id), k_log(table_id), k_cids(table_id)]
        v, meta, state, clock, seen, after = await self._load(keys=keys, args=[cid])
        if v is None:
            return None
        return Loaded(
            int(v),
            _bytes(meta),
            _bytes(state),
            int(seen) if seen is not None else None,
            float(clock) if clock is not None else None,
            [b for b in map(_bytes, after) if b is not None],
        )

    async def commit(
        self,
        table_id: str,
        expected_v: int,
        records: list[dict[str, Any]],
        meta: bytes | None = None,
        state: bytes | None = None,
        cid: str = "",
        timers: list[tuple[str, float]] | None = None,
        clock: float | None = None,
        publish_state: bool = False,
        channel: str | None = None,
    ) -> int:
        """Append ``records`` (their ``v`` already set to expected_v+1...) atomically.
        Returns the new version; raises Conflict or Duplicate. ``timers`` (member,
        deadline) go into the timers set in the same round trip: on one server inside
        the script (so only when the commit succeeds), on a cluster beside it to their
        bucket's shard whether the commit succeeds or not (harmless: a timer checks that
        it is still the table's when it fires).
        ``clock``: a new turn clock's deadline, kept in the table hash for snapshots.
        ``publish_state``: the records do not determine the new state, so the publish
        carries it. ``channel``: where to publish ('' for nowhere; tests make gaps so)."""
        encoded = [orjson.dumps(r) for r in records]
        # "at": the commit's wall time, for the pub/sub lag metric (app/core/metrics.py).
        prefix = (
            b'{"at":'
            + orjson.dumps(time.time())
            + b',"t":'
            + orjson.dumps(table_id)
            + b',"records":['
        )
        local = self.local if channel is None else None
        args: list[Any] = [
            expected_v,
            len(records),
            meta or b"",
            state or b"",
            cid,
            prefix,
            *encoded,
            table_channel(table_id) if channel is None else channel,
            repr(clock) if clock is not None else "",
            "1" if publish_state else "",
            self.publish_command,
            self.proc_id if local is not None else "",
        ]
        keys = [k_hash(table_id), k_log(table_id), k_cids(table_id)]
        started = time.perf_counter()
        buckets = self._by_bucket(TIMERS_KEY, [m for m, _ in timers]) if timers else {}
        if timers and not self.cluster and len(buckets) == 1:
            # One server: the timers go into the script itself (one call, no pipeline),
            # and only when the commit succeeds.
            keys.append(next(iter(buckets)))
            args.append(len(timers))
            for member, at in timers:
                args += [repr(at), member]
            reply = await self._run_commit(keys, args)
        elif timers:
            reply = await self._commit_with_timers(keys, args, timers)
        else:
            reply = await self._run_commit(keys, args)
        metrics.COMMIT_SECONDS.observe(time.perf_counter() - started)
        status, v = int(reply[0]), int(reply[1])
        if status == 0:
            raise Conflict(v)
        if status == -1:
            raise Duplicate(v)
        if local is not None and len(reply) > 2 and int(reply[2]) == 1:
            # This process alone watches the table: the message the script did not
            # publish, exactly as it would have been published, to its own hub.
            body = b"".join(
                (
                    prefix,
                    b",".join(encoded),
                    b"]}\n",
                    meta or b"",
                    b"\n",
                    (state or b"") if publish_state else b"",
                )
            )
            try:
                local(table_channel(table_id), body.decode())
            except Exception:  # the commit stands; the viewers catch up from the log
                log.exception("table %s: handing its own commit to the hub failed", table_id)
        return v

    async def _run_commit(self, keys: list[str], args: list[Any]) -> Any:
        line = self._lines.for_key(keys[0]) if self._lines is not None else None
        if line is not None:
            try:
                return await line.evalsha(self._commit.sha, COMMIT_LUA, keys, args)
            except ResponseError as exc:
                if not redirected(exc):
                    raise
        return await self._commit(keys=keys, args=args)

    async def _commit_with_timers(
        self, keys: list[str], args: list[Any], timers: list[tuple[str, float]]
    ) -> Any:
        """EVALSHA and the ZADDs in one pipeline (one round trip), when the timers span
        several buckets on one server. The timers set is not a table key (another hash
        slot), so on a cluster it cannot go into the script: the two go at once to their
        shards (no cross-slot pipeline)."""
        zadds = [
            (key, {m: at for m, at in timers if m in members})
            for key, members in self._by_bucket(TIMERS_KEY, [m for m, _ in timers]).items()
        ]
        if self.cluster:
            results = await asyncio.gather(
                self._run_commit(keys, args),
                *(self._zadd(key, mapping) for key, mapping in zadds),
            )
            return results[0]
        for _ in range(2):
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.evalsha(self._commit.sha, len(keys), *keys, *args)
                for key, mapping in zadds:
                    pipe.zadd(key, mapping)
                replies = await pipe.execute(raise_on_error=False)
            if not isinstance(replies[0], NoScriptError):
                if isinstance(replies[0], Exception):
                    raise replies[0]
                return replies[0]
            await self.redis.script_load(COMMIT_LUA)  # Redis restarted or flushed scripts
        raise RuntimeError("the commit script could not be loaded")

    async def _zadd(self, key: str, mapping: dict[str, float]) -> Any:
        """A ZADD on the lean line of its key's node (a cluster's timers beside a commit:
        redis-py's cluster client spent more on it than the commit on its line). ZADD is
        idempotent, so whatever goes wrong on the line (a redirection, a lost or slow
        connection) it is sent again through redis-py, which follows the cluster."""
        line = self._lines.for_key(key) if self._lines is not None else None
        if line is not None:
            try:
                return await line.execute(
                    "ZADD", key, *(x for m, at in mapping.items() for x in (repr(at), m))
                )
            except ResponseError as exc:
                if not redirected(exc):
                    raise
            except (RedisConnectionError, RedisTimeoutError):
                pass
        return await self.redis.zadd(key, mapping)

    async def watch(self, table_id: str, watching: bool) -> None:
        """This process's hub starts or stops watching the table (WATCH_LUA)."""
        if self.proc_id:
            await self._watch(
                keys=[k_hash(table_id), k_watchers(table_id)],
                args=[self.proc_id, "1" if watching else "0"],
            )

    async def seen(self, table_id: str, cid: str) -> int | None:
        """The version a command id produced, or None if it was never applied."""
        value = await self.redis.hget(k_cids(table_id), cid)
        return None if value is None else int(value)

    async def records_since(self, table_id: str, after_v: int, upto_v: int) -> list[Any] | None:
        """Records after_v+1..upto_v, or None when a snapshot should be sent instead: the
        gap is longer than ``RESUME_MAX_RECORDS``, or the log no longer holds them. The
        log has one entry per version, in order (the commit script pushes each record as
        it numbers it), so version ``v`` is entry ``v - 1``; each record's own ``v`` is
        checked all the same, so a log that was lost and started again is never served
        as the wrong records."""
        if upto_v <= after_v:
            return []
        if upto_v - after_v > RESUME_MAX_RECORDS:
            return None
        raw = await self.redis.lrange(k_log(table_id), after_v, upto_v - 1)
        records = [orjson.loads(r) for r in raw]
        if [r.get("v") for r in records] != list(range(after_v + 1, upto_v + 1)):
            return None
        return records

    async def full_log(self, table_id: str) -> list[Any]:
        return await self.log_from(table_id, 0)

    async def log_from(self, table_id: str, start: int) -> list[Any]:
        """The table's records from the ``start``-th on (0: all of them)."""
        return [orjson.loads(r) for r in await self.redis.lrange(k_log(table_id), start, -1)]

    async def expire(self, table_id: str, seconds: int = TABLE_TTL_SECONDS) -> None:
        await self.many(
            [
                ("expire", (key, seconds))
                for key in (
                    k_hash(table_id),
                    k_log(table_id),
                    k_legacy_stream(table_id),
                    k_cids(table_id),
                    k_conns(table_id),
                    k_watchers(table_id),
                )
            ]
        )

    # -- the lobby index and the timers

    async def list_lobby(self, limit: int = 500, key: str = LOBBY_KEY) -> list[bytes]:
        """The metas of the first ``limit`` tables of an index (oldest first)."""
        scored: list[tuple[float, str]] = []
        for part in await self.many(
            [("zrange", (k, 0, limit - 1, False, True)) for k in self.bucket_keys(key)]
        ):
            scored += [(float(score), as_text(table_id)) for table_id, score in part]
        ids = [table_id for _, table_id in sorted(scored)[:limit]]
        if not ids:
            return []
        metas = await self.many([("hget", (k_hash(table_id), "meta")) for table_id in ids])
        return [m if isinstance(m, bytes) else m.encode() for m in metas if m]

    async def set_listed(
        self, table_id: str, listed: bool, score: float, key: str = LOBBY_KEY
    ) -> None:
        if listed:
            await self.redis.zadd(self.bucket(key, table_id), {table_id: score})
        else:
            await self.redis.zrem(self.bucket(key, table_id), table_id)

    async def add_timer(self, member: str, at: float) -> None:
        await self.redis.zadd(self.bucket(TIMERS_KEY, member), {member: at})

    async def cancel_timer(self, *members: str) -> None:
        await self.many(
            [("zrem", (key, *group)) for key, group in self._by_bucket(TIMERS_KEY, members).items()]
        )

    async def due_timers(self, now: float, limit: int = 50) -> list[str]:
        parts = await self.many(
            [
                ("zrangebyscore", (key, "-inf", now, 0, limit))
                for key in self.bucket_keys(TIMERS_KEY)
            ]
        )
        return [as_text(i) for part in parts for i in part]

    async def due_timers_at(self, now: float, limit: int = 50) -> list[tuple[str, float]]:
        """Due timers with their deadlines (for the lateness metric), from every bucket."""
        parts = await self.many(
            [
                ("zrangebyscore", (key, "-inf", now, 0, limit, True))
                for key in self.bucket_keys(TIMERS_KEY)
            ]
        )
        return [(as_text(item[0]), float(item[1])) for part in parts for item in part]

    async def claim_timer(self, member: str) -> bool:
        """Atomically take a due timer: only one process gets 1 back from ZREM."""
        return bool(await self.redis.zrem(self.bucket(TIMERS_KEY, member), member))

    # -- sockets per seated player, counted per server process

    async def connection_delta(self, table_id: str, user_id: int, delta: int, proc: str) -> int:
        """One more (or one less) socket of this player at this table on process
        ``proc``; returns the player's sockets at the table over every process."""
        field = f"{user_id}@{proc}"
        calls: list[tuple[str, tuple[Any, ...]]] = [
            ("hincrby", (k_conns(table_id), field, delta)),
            ("hgetall", (k_conns(table_id),)),
        ]
        if delta > 0:
            calls.append(("sadd", (k_proc_seats(proc), f"{table_id}|{user_id}")))
        replies = await self.many(calls)
        if delta < 0 and int(replies[0]) <= 0:  # none left here: nothing to sweep
            await self.many(
                [
                    ("hdel", (k_conns(table_id), field)),
                    ("srem", (k_proc_seats(proc), f"{table_id}|{user_id}")),
                ]
            )
        return _sockets_of(replies[1], user_id)

    async def connections(self, table_id: str, user_id: int) -> int:
        return _sockets_of(await self.redis.hgetall(k_conns(table_id)), user_id)

    async def heartbeat(self, proc: str, now: float) -> bool:
        """Renew ``proc``'s heartbeat; True if it was not registered (a first beat, or
        another process took it for dead and swept it)."""
        return bool(await self.redis.zadd(self.bucket(PROCS_KEY, proc), {proc: now}))

    async def restore_process(self, proc: str, counts: dict[tuple[str, int], int]) -> None:
        """Count again the sockets a live process holds, after it was swept for dead."""
        calls: list[tuple[str, tuple[Any, ...]]] = []
        for (table_id, user_id), n in counts.items():
            calls.append(("hset", (k_conns(table_id), f"{user_id}@{proc}", n)))
            calls.append(("sadd", (k_proc_seats(proc), f"{table_id}|{user_id}")))
        await self.many(calls)

    async def dead_processes(self, before: float) -> list[str]:
        parts = await self.many(
            [("zrangebyscore", (key, "-inf", before)) for key in self.bucket_keys(PROCS_KEY)]
        )
        return [as_text(p) for part in parts for p in part]

    async def claim_dead(self, proc: str) -> bool:
        """Take a dead process's sweep: only one process gets 1 back from ZREM."""
        return bool(await self.redis.zrem(self.bucket(PROCS_KEY, proc), proc))

    async def drop_process(self, proc: str) -> list[tuple[str, int, int]]:
        """Forget every socket a dead process counted: (table, user, that player's sockets
        left at the table on the live processes) for each player it counted."""
        seats = [as_text(m).rpartition("|") for m in await self.redis.smembers(k_proc_seats(proc))]
        if not seats:
            return []
        # as few round trips as allowed: each table's count read right after its delete
        calls: list[tuple[str, tuple[Any, ...]]] = []
        for table_id, _, user in seats:
            calls.append(("hdel", (k_conns(table_id), f"{user}@{proc}")))
            calls.append(("hgetall", (k_conns(table_id),)))
        calls.append(("delete", (k_proc_seats(proc),)))
        replies = await self.many(calls)
        return [
            (table_id, int(user), _sockets_of(replies[2 * i + 1], int(user)))
            for i, (table_id, _, user) in enumerate(seats)
        ]


def _sockets_of(counts: dict[Any, Any], user_id: int) -> int:
    prefix = f"{user_id}@"
    return sum(max(0, int(n)) for field, n in counts.items() if as_text(field).startswith(prefix))


def _bytes(value: Any) -> bytes | None:
    if value is None:
        return None
    return value if isinstance(value, bytes) else str(value).encode()
