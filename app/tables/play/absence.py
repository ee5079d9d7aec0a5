"""Seated players' sockets. Each socket counts once in Redis, under its process (so the
sockets of a process that died can be forgotten: timers.sweep_dead_processes). When the
last socket of a seat at a game in play goes, the grace clock starts and, a moment later,
the table's viewers are told the seat is away; when the grace runs out with no socket
back, a bot takes the seat (``TableService.abandon``). The first socket back stops the
clock and shows the seat present again."""

from __future__ import annotations

import contextlib
import logging
import time

from app.core.errors import AppError
from app.rules.state import State
from app.tables.play.service import Change, TableService
from app.tables.storage.meta import TableMeta

log = logging.getLogger("app.tables.play.absence")

AWAY_AFTER_SECONDS = 1.0  # no socket for this long: viewers are told the seat is away


async def set_connected(
    svc: TableService, table_id: str, user_id: int, connected: bool, playing: bool = True
) -> None:
    """A seated player's socket came or went (each socket counts once, whatever the
    table's status): the grace clock stops, or starts when the last one went while
    the game is being played."""
    delta = 1 if connected else -1
    key = (table_id, user_id)
    left = svc.local_conns.get(key, 0) + delta
    if left > 0:
        svc.local_conns[key] = left
    else:
        svc.local_conns.pop(key, None)
    count = await svc.store.connection_delta(table_id, user_id, delta, svc.proc_id)
    if connected:
        await svc.store.cancel_timer(f"grace|{table_id}|{user_id}")
        if count == 1:  # the first socket back: the seat may have been shown away
            await show_presence(svc, table_id, user_id, True, None)
    elif count <= 0 and playing:
        await start_grace(svc, table_id, user_id)


async def start_grace(svc: TableService, table_id: str, user_id: int) -> None:
    member = f"grace|{table_id}|{user_id}"
    at = time.time() + svc.settings.disconnect_grace_seconds
    await svc.store.add_timer(member, at)
    if svc.kick:
        svc.kick(member, at)
    # Shown away a moment later, if still gone: a page reload is not worth two toasts.
    delay = min(AWAY_AFTER_SECONDS, svc.settings.disconnect_grace_seconds / 2)
    away, away_at = f"away|{table_id}|{user_id}:{at}", time.time() + delay
    await svc.store.add_timer(away, away_at)
    if svc.kick:
        svc.kick(away, away_at)


async def grace_over(svc: TableService, table_id: str, user_id: int) -> None:
    if await svc.store.connections(table_id, user_id) > 0:
        return
    with contextlib.suppress(AppError):
        await svc.abandon(table_id, user_id, "grace_over")


async def away(svc: TableService, table_id: str, arg: str) -> None:
    user, _, until = arg.partition(":")
    if await svc.store.connections(table_id, int(user)) > 0:
        return
    await show_presence(svc, table_id, int(user), False, float(until))


async def show_presence(
    svc: TableService, table_id: str, user_id: int, connected: bool, grace_until: float | None
) -> None:
    """Tell the table's viewers (a versioned record) that a seated player's last
    socket went (away, and when a bot takes over) or the first one came back."""

    def decide(v: int, meta: TableMeta, state: State | None) -> Change:
        seat = meta.seat_of(user_id)
        if seat is None or meta.status != "playing":
            return Change()
        s = meta.seats[seat]
        assert s is not None
        if s.connected == connected and s.grace_until == grace_until:
            return Change()
        meta = meta.edit()
        s = meta.seats[seat]
        assert s is not None
        s.connected, s.grace_until = connected, grace_until
        return Change(
            meta=meta,
            records=[{"k": "p", "seat": seat, "connected": connected, "grace_until": grace_until}],
        )

    with contextlib.suppress(AppError):
        await svc.mutate(table_id, decide)


async def rejoin(svc: TableService) -> None:
    """This process was taken for dead (it stalled past the heartbeat's limit) and
    swept: count its sockets again and stop the grace clocks the sweep started."""
    log.warning("process %s was swept while alive: counting its sockets again", svc.proc_id)
    counts = dict(svc.local_conns)
    await svc.store.restore_process(svc.proc_id, counts)
    await svc.store.cancel_timer(*(f"grace|{table_id}|{user_id}" for table_id, user_id in counts))
