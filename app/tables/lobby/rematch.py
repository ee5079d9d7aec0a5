"""Rematch ("Revancha"): the same players, the same settings, a new game.

At the end of a game any of its players may offer a rematch; the others accept or
decline. Bots accept at once. When every person has accepted, a new table with the same
settings (bet, modality, rules, turbo, private, seats) is opened and started; the economy
sees an ordinary new game (stakes held and escrowed again, a special table's credit
charged again). The offer dies when someone declines or after ``rematch_seconds``.

The offer lives in Redis beside the finished table (keys tagged ``{t:ID}``): a hash with
its state and the finished table's meta, and the set of people who said yes. Scripts
move the state (open -> starting -> started | failed; open -> declined | expired), so
twenty identical requests at once start one table, and only one caller starts it.
Every change is pushed to each player's user channel as a ``rematch`` message.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from app.core.errors import AppError
from app.core.redis import as_text
from app.tables.lobby.lobby import _new_id as new_table_id
from app.tables.play.service import TableService
from app.tables.storage.meta import TableMeta

TIMER = "rematch"
CLOSED = ("declined", "expired", "failed")

# KEYS: hash, yes-set. ARGV: meta, deadline, user, ttl, people needed.
# Returns {state, became_starting, created, deadline}.
_ACCEPT_LUA = """
local created = 0
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'state', 'open', 'meta', ARGV[1], 'deadline', ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  created = 1
end
local state = redis.call('HGET', KEYS[1], 'state')
local deadline = redis.call('HGET', KEYS[1], 'deadline')
if state ~= 'open' then return {state, 0, created, deadline} end
redis.call('SADD', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[4])
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[5]) then
  redis.call('HSET', KEYS[1], 'state', 'starting')
  return {'starting', 1, created, deadline}
end
return {'open', 0, created, deadline}
"""

# KEYS: hash. ARGV: from state, to state, field, value, now (0: no deadline check).
# Moves the state only from ``from`` (and, with ``now``, only once the deadline passed);
# returns 1 when this call moved it, else 0.
_MOVE_LUA = """
local state = redis.call('HGET', KEYS[1], 'state')
if state ~= ARGV[1] then return 0 end
local now = tonumber(ARGV[5])
if now > 0 and now < tonumber(redis.call('HGET', KEYS[1], 'deadline')) then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2], ARGV[3], ARGV[4])
return 1
"""


def offer_key(table_id: str) -> str:
    return f"rematch:{{t:{table_id}}}"


def yes_key(table_id: str) -> str:
    return f"rematch:{{t:{table_id}}}:yes"


def _timer(table_id: str) -> str:
    return f"{TIMER}|{table_id}|0"


def _seated_person(meta: TableMeta, user_id: int) -> int:
    if meta.status != "finished":
        raise AppError("game_not_finished", "A rematch is offered once the game is over.", 409)
    seat = meta.seat_of(user_id)
    if seat is None:
        raise AppError("not_seated", "You did not play at that table.", 403)
    return seat


async def state(svc: TableService, table_id: str, user_id: int) -> dict[str, Any]:
    """The offer as a ``rematch`` message (state "none" when nobody offered yet)."""
    _, meta, _ = await svc.load(table_id)
    _seated_person(meta, user_id)
    return await _view(svc, table_id, meta)


async def _view(
    svc: TableService, table_id: str, meta: TableMeta, by: dict[str, Any] | None = None
) -> dict[str, Any]:
    raw = await svc.redis.hgetall(offer_key(table_id))
    fields = {as_text(k): as_text(v) for k, v in raw.items()}
    yes = {int(as_text(u)) for u in await svc.redis.smembers(yes_key(table_id))}
    accepted, waiting = [], []
    for i, seat in enumerate(meta.seats):
        if seat is None:
            continue
        if seat.user_id is None or seat.user_id in yes:
            accepted.append(i)  # bots accept at once
        else:
            waiting.append(i)
    return {
        "type": "rematch",
        "table": table_id,
        "state": fields.get("state", "none"),
        "accepted": accepted,
        "waiting": waiting,
        "deadline": float(fields["deadline"]) if "deadline" in fields else None,
        "seconds": svc.settings.rematch_seconds,  # an offer's whole time, to cap a countdown
        "new_table": fields.get("new_table"),
        "code": fields.get("code"),
        "by": by,
    }


async def _push(
    svc: TableService, table_id: str, meta: TableMeta, by: dict[str, Any] | None
) -> dict[str, Any]:
    view = await _view(svc, table_id, meta, by)
    for user_id in sorted(set(meta.humans())):
        await svc.notify_user(user_id, view)
    return view


async def accept(svc: TableService, table_id: str, user_id: int, name: str) -> dict[str, Any]:
    """Offer a rematch, or accept the open offer (the same call: saying yes twice is
    saying it once). The last yes starts the new table."""
    _, meta, _ = await svc.load(table_id)
    _seated_person(meta, user_id)
    wait = svc.settings.rematch_seconds
    deadline = time.time() + wait
    result = await svc.redis.eval(
        _ACCEPT_LUA,
        2,
        offer_key(table_id),
        yes_key(table_id),
        meta.model_dump_json(),
        repr(deadline),
        str(user_id),
        str(wait + 600),
        str(len(set(meta.humans()))),
    )
    now_state, became, created = as_text(result[0]), int(result[1]), int(result[2])
    if now_state in CLOSED:
        raise AppError("rematch_closed", "That rematch offer is over.", 409)
    if created:
        at = float(as_text(result[3]))
        await svc.store.add_timer(_timer(table_id), at)
        if svc.kick:
            svc.kick(_timer(table_id), at)
    by = {"id": user_id, "name": name}
    if became:
        return await _start(svc, table_id, meta, by)
    return await _push(svc, table_id, meta, by)


async def decline(svc: TableService, table_id: str, user_id: int, name: str) -> dict[str, Any]:
    _, meta, _ = await svc.load(table_id)
    _seated_person(meta, user_id)
    moved = await svc.redis.eval(
        _MOVE_LUA, 1, offer_key(table_id), "open", "declined", "by", str(user_id), "0"
    )
    if not moved:
        return await _view(svc, table_id, meta)  # nothing open: declining changes nothing
    await svc.store.cancel_timer(_timer(table_id))
    return await _push(svc, table_id, meta, {"id": user_id, "name": name})


async def expire(svc: TableService, table_id: str, arg: str) -> None:
    """The offer's timer: still open at its deadline, it expires."""
    now = repr(time.time())
    if await svc.redis.eval(_MOVE_LUA, 1, offer_key(table_id), "open", "expired", "at", now, now):
        raw_meta = await svc.redis.hget(offer_key(table_id), "meta")
        if raw_meta is not None:
            await _push(svc, table_id, TableMeta.model_validate_json(raw_meta), None)
        return
    fields = await svc.redis.hmget(offer_key(table_id), ["state", "deadline"])
    if fields[0] is not None and as_text(fields[0]) == "open":
        # Fired before the deadline (another process's clock runs ahead): again later.
        await svc.store.add_timer(_timer(table_id), float(as_text(fields[1])))


def _next_meta(old: TableMeta) -> TableMeta:
    """The new table: the finished one's settings and seats, a fresh game."""
    meta = old.model_copy(deep=True)
    meta.id = new_table_id()
    meta.status, meta.game_id, meta.hands = "waiting", None, []
    meta.created_at, meta.started_at, meta.turn_deadline = time.time(), None, None
    meta.bots_after, meta.close_reason, meta.rematch_of = None, None, old.id
    meta.invited = sorted(set(old.invited) | set(old.humans()))
    for seat in meta.seats:
        if seat is not None:
            seat.connected, seat.timeouts, seat.abandoned = True, 0, False
    return meta


async def _start(
    svc: TableService, table_id: str, old: TableMeta, by: dict[str, Any]
) -> dict[str, Any]:
    """Every person said yes (this caller's script moved the offer to "starting")."""
    meta = _next_meta(old)
    try:
        await _open(svc, meta)
    except AppError as exc:
        return await _failed(svc, table_id, old, by, exc.code)
    except Exception:
        await _failed(svc, table_id, old, by, "internal_error")
        raise
    await svc.redis.hset(offer_key(table_id), mapping={"state": "started", "new_table": meta.id})
    await svc.store.cancel_timer(_timer(table_id))
    view = await _push(svc, table_id, old, by)
    await svc.maybe_start(meta.id)
    return view


async def _failed(
    svc: TableService, table_id: str, old: TableMeta, by: dict[str, Any], code: str
) -> dict[str, Any]:
    await svc.redis.hset(offer_key(table_id), mapping={"state": "failed", "code": code})
    await svc.store.cancel_timer(_timer(table_id))
    return await _push(svc, table_id, old, by)


async def _open(svc: TableService, meta: TableMeta) -> None:
    """As creating and sitting would: the special table's credit, every stake's hold,
    then the table. On any failure, everything taken so far goes back."""
    held: list[int] = []
    charged = False
    try:
        if meta.special:
            await svc.hooks.charge_special_table(meta.host, meta.id)
            charged = True
        for user_id in sorted(set(meta.humans())):
            await svc.hooks.reserve_seat(user_id, meta.id, meta.bet)
            held.append(user_id)
        await svc.create(meta)
    except Exception:
        for user_id in held:
            with contextlib.suppress(Exception):
                await svc.hooks.release_seat(user_id, meta.id)
        if charged:
            with contextlib.suppress(Exception):
                await svc.hooks.refund_special_table(meta.host, meta.id)
        raise


def install(svc: TableService) -> None:
    """Let the service's timer loop expire offers (any process may fire the timer)."""
    svc.timer_handlers[TIMER] = lambda table_id, arg: expire(svc, table_id, arg)
