"""Tables nobody plays are stopped: a game where every seat is a bot (or a bot playing
for a person who left) and no socket anywhere watches it is ended, void (no coins move:
the stakes held at the start go back), and leaves the "in play" index.

"Nobody watches" is read from Redis itself: a process is subscribed to a table's
channel exactly while one of its sockets watches the table (fanout.Hub), so the
channel's subscriber count over all processes is the number of processes with a viewer.
A check is set for ``settings.idle_table_check_seconds`` later whenever a process's last
socket on a table goes (and for the tables of a process swept as dead); while people
still hold seats it looks again after the same time, so a table whose last person
closed the page ends within the grace period plus a check or two.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from redis.exceptions import RedisError

from app.rules.state import State
from app.tables.play.service import Change, TableService, table_record
from app.tables.storage.meta import TableMeta
from app.tables.storage.store import table_channel

log = logging.getLogger("app.tables.play.idle")


TIMER = "idle"


def idle_member(table_id: str) -> str:
    return f"{TIMER}|{table_id}|0"


async def schedule_idle_check(svc: TableService, table_id: str) -> None:
    at = time.time() + svc.settings.idle_table_check_seconds
    await svc.store.add_timer(idle_member(table_id), at)
    if svc.kick:
        svc.kick(idle_member(table_id), at)


async def watchers(svc: TableService, table_id: str) -> int:
    """Processes subscribed to the table's channel (a sharded one on a cluster)."""
    channel = table_channel(table_id)
    redis: Any = svc.redis
    if svc.store.cluster:
        node = redis.get_node_from_key(channel)
        reply = await redis.execute_command("PUBSUB SHARDNUMSUB", channel, target_nodes=node)
    else:
        reply = await redis.pubsub_numsub(channel)
    flat: list[Any] = []
    for item in reply if isinstance(reply, list | tuple) else [reply]:
        flat.extend(item if isinstance(item, list | tuple) else [item])
    return int(flat[1]) if len(flat) > 1 else 0


def bots_only(meta: TableMeta) -> bool:
    return all(seat is None or seat.bot or seat.abandoned for seat in meta.seats)


async def check_idle(svc: TableService, table_id: str) -> None:
    _, meta, _ = await svc.load(table_id)
    if meta.status != "playing":
        return
    try:
        watched = await watchers(svc, table_id)
    except RedisError:  # cannot tell: look again later rather than end a watched game
        await schedule_idle_check(svc, table_id)
        return
    if watched > 0:
        return  # the last socket to leave sets the next check
    if not bots_only(meta):
        await schedule_idle_check(svc, table_id)  # people may still come back or time out
        return
    await end_idle(svc, table_id)


async def end_idle(svc: TableService, table_id: str) -> None:
    def void(v: int, meta: TableMeta, state: State | None) -> Change:
        if meta.status != "playing" or not bots_only(meta):
            return Change()
        meta = meta.edit()
        meta.status = "closed"
        meta.close_reason = "abandoned"
        return Change(meta=meta, records=[table_record("closed", meta)], result=meta)

    _, change = await svc.mutate(table_id, void)
    meta = change.result
    if meta is None:
        return
    log.info("table %s: only bots played and nobody watched; ended, void", table_id)
    await svc.hooks.settle_game(svc._result(meta, None, None))  # void: stakes go back
    await svc.after_table_change(meta)
    await svc.store.expire(table_id)
