"""The lobby index: the public tables waiting for players and the public games in play,
kept in Redis beside the tables and announced live on the lobby channel.

Every change of a table's status passes through ``update`` after its commit (the
service's ``after_table_change``); lobby readers (the HTTP listing and a socket joining
the lobby) read it with ``waiting`` and ``playing``.
"""

from __future__ import annotations

from typing import Any

import orjson
from redis.asyncio import Redis

from app.tables.storage.meta import TableMeta
from app.tables.storage.store import LOBBY_CHANNEL, PLAYING_KEY, TableStore


async def update(store: TableStore, redis: Redis, meta: TableMeta) -> None:
    listed = meta.status == "waiting" and not meta.private
    await store.set_listed(meta.id, listed, meta.created_at)
    watchable = meta.status == "playing" and not meta.private
    await store.set_listed(meta.id, watchable, meta.started_at or meta.created_at, key=PLAYING_KEY)
    if not meta.private:
        message = (
            {"type": "lobby_table", "table": meta.summary()}
            if listed
            else {"type": "lobby_remove", "table": meta.id}
        )
        await redis.publish(LOBBY_CHANNEL, orjson.dumps(message))
        # The "in play" list, live: a game to watch appears when it starts and goes
        # when it ends (waiting tables change nothing there).
        if meta.status != "waiting":
            playing = (
                {"type": "lobby_playing", "table": meta.summary()}
                if watchable
                else {"type": "lobby_playing_remove", "table": meta.id}
            )
            await redis.publish(LOBBY_CHANNEL, orjson.dumps(playing))


async def waiting(store: TableStore, filters: dict[str, Any]) -> list[dict[str, Any]]:
    """Public tables waiting for players that match ``filters``."""
    out = []
    for raw in await store.list_lobby():
        meta = TableMeta.model_validate_json(raw)
        if meta.status != "waiting" or meta.private:
            continue
        if not _matches(meta, filters):
            continue
        out.append(meta.summary())
    return out


async def playing(store: TableStore, filters: dict[str, Any]) -> list[dict[str, Any]]:
    """Public games in progress, newest first: anyone may watch them as a spectator."""
    out = []
    for raw in await store.list_lobby(key=PLAYING_KEY):
        meta = TableMeta.model_validate_json(raw)
        if meta.status != "playing" or meta.private or not _matches(meta, filters):
            continue
        out.append(meta.summary())
    return sorted(out, key=lambda t: -t["created_at"])


def _matches(meta: TableMeta, f: dict[str, Any]) -> bool:
    if f.get("preset") and meta.preset != f["preset"]:
        return False
    if f.get("players") and meta.players != f["players"]:
        return False
    if f.get("min_bet") is not None and meta.bet < f["min_bet"]:
        return False
    if f.get("max_bet") is not None and meta.bet > f["max_bet"]:
        return False
    if f.get("free_seats") and len(meta.free_seats()) < f["free_seats"]:
        return False
    return not (f.get("turbo") is not None and meta.turbo != f["turbo"])
