"""Creating tables, seats, invitations, quick play and challenges (seed 000's lobby)."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from app.core.errors import AppError
from app.ratings.service import NEWCOMER, SeatRating
from app.rules.errors import RuleViolation
from app.rules.ruleset import PRESET_PLAYERS, PRESETS, make_ruleset
from app.rules.state import State
from app.social import i18n
from app.social.presence import online_ids
from app.tables.lobby.schemas import CreateTableIn
from app.tables.play.service import Change, TableService, table_record
from app.tables.storage import listing
from app.tables.storage.meta import MIN_BET, BotStrength, Seat, TableMeta, person_seat

QUICK_NAME = i18n.render("table.quick", i18n.DEFAULT)
# Quick play's match when the variant plays a single hand: seed 003's shorter match
# (2,000 or 3,000 points); a variant with a target of its own (Brasil: 3,000) keeps it.
MATCH_TARGET = 2000


def match_target(preset: str) -> int:
    """The target score of quick play's "match" in ``preset`` (docs/rules-reference.md)."""
    rules = PRESETS.get(preset)
    return (rules.target_score if rules is not None else 0) or MATCH_TARGET


RatingLookup = Callable[[str, dict[str, Any]], Awaitable[SeatRating]]
"""(preset, rules) -> the sitting player's rating there (app/tables/lobby/personal.py)."""


def rated_seat(meta: TableMeta, seat: Seat, rating: SeatRating | None) -> Seat:
    """The seat, its player's rating put on the table for everyone there to see."""
    if seat.user_id is not None:
        if rating is None:
            meta.ratings.pop(seat.user_id, None)
        else:
            meta.ratings[seat.user_id] = (rating.rating, rating.provisional, rating.skill)
    return seat


async def visible_table(svc: TableService, table_id: str, user_id: int) -> TableMeta:
    """The table as this user may see it (its players, and for a private table the
    invited), else ``table_not_found``: a private table is not even confirmed to exist."""
    _, meta, _ = await svc.load(table_id)
    if not meta.may_watch(user_id):
        raise AppError("table_not_found", "There is no such table.", 404)
    return meta


def _new_id() -> str:
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


def _server_name(
    host_name: str, body: CreateTableIn, kind: str
) -> tuple[str, str | None, dict[str, str]]:
    """(name, name key, its arguments): a name the server makes is rendered per reader."""
    if kind == "challenge":
        args = {"name": host_name}
        return i18n.render("table.challenge", i18n.DEFAULT, args)[:40], "table.challenge", args
    if not body.name:
        return QUICK_NAME, "table.quick", {}
    return body.name, None, {}


def build_meta(
    host: int,
    host_name: str,
    body: CreateTableIn,
    kind: str = "table",
    equipped: dict[str, str] | None = None,
) -> TableMeta:
    """A new table's meta with the host seated (wearing ``equipped``, whose felt becomes
    the table's), or AppError for impossible options."""
    overrides = dict(body.rules or {})
    if body.target_score is not None:
        overrides["target_score"] = body.target_score
    try:
        rules = make_ruleset(body.preset, body.players, overrides)
    except RuleViolation as exc:
        raise AppError(exc.code, exc.message, 422) from None
    allowed = PRESET_PLAYERS.get(body.preset, (2, 4))
    if body.players not in allowed and "pairs" not in overrides:
        raise AppError(
            "bad_players",
            f"{body.preset} is played by {' or '.join(map(str, allowed))} players.",
            422,
        )
    if not 0 <= body.seat < body.players:
        raise AppError("bad_seat", "There is no such seat at that table.", 422)
    seats: list[Seat | None] = [None] * body.players
    seats[body.seat] = person_seat(host, host_name, equipped)
    # Every special table pays its credit, however it opens: created, quick play (4
    # players are pairs), a rematch (which copies this flag). A challenge is an ordinary
    # table reserved for the friend (its privacy is free and open to every level); asking
    # for turbo makes it special like any turbo table.
    special = body.turbo if kind == "challenge" else body.private or body.turbo or body.players == 4
    name, name_key, name_args = _server_name(host_name, body, kind)
    return TableMeta(
        id=_new_id(),
        name=name,
        name_key=name_key,
        name_args=name_args,
        felt=(equipped or {}).get("felt"),
        host=host,
        kind=kind,  # type: ignore[arg-type]
        preset=body.preset,
        overrides=overrides,
        rules=rules.to_dict(),
        players=body.players,
        bet=body.bet,
        private=body.private,
        turbo=body.turbo,
        special=special,
        target_score=rules.target_score,
        time_bank=body.time_bank,
        seats=seats,
        created_at=time.time(),
    )


async def create_table(
    svc: TableService,
    host: int,
    host_name: str,
    body: CreateTableIn,
    kind: str = "table",
    invited: list[int] | None = None,
    equipped: dict[str, str] | None = None,
    rate: RatingLookup | None = None,
) -> TableMeta:
    meta = build_meta(host, host_name, body, kind, equipped)
    seat = meta.seats[body.seat]
    if rate is not None and seat is not None:
        rated_seat(meta, seat, await rate(meta.preset, meta.rules))
    meta.invited = list(invited or [])
    if meta.special:
        await svc.hooks.charge_special_table(host, meta.id)
    try:
        await svc.hooks.reserve_seat(host, meta.id, meta.bet)
    except AppError:
        if meta.special:
            await svc.hooks.refund_special_table(host, meta.id)
        raise
    # A Redis error here is ambiguous (the table may exist): its hold and credit stay,
    # and the reconciler gives them back if Redis does not know the table.
    await svc.create(meta)
    return meta


async def sit(
    svc: TableService,
    table_id: str,
    user_id: int,
    name: str,
    seat: int | None,
    equipped: dict[str, str] | None = None,
    rate: RatingLookup | None = None,
) -> int:
    """Take a seat (the first free one when ``seat`` is None), wearing ``equipped``. Holds
    the bet first: the seat and its hold are one unit. A concurrent sit of the same player
    is refused at the hold (``already_seated``), so the hold released below, when this sit
    loses its race for the seat, is always the one this sit made."""
    _, meta, _ = await svc.load(table_id)
    _check_can_sit(meta, user_id, seat)
    rating = await rate(meta.preset, meta.rules) if rate is not None else None
    await svc.hooks.reserve_seat(user_id, table_id, meta.bet)

    def decide(v: int, meta: TableMeta, state: State | None) -> Change:
        _check_can_sit(meta, user_id, seat)
        chosen = seat if seat is not None else meta.free_seats()[0]
        meta = meta.model_copy(deep=True)
        meta.seats[chosen] = rated_seat(meta, person_seat(user_id, name, equipped), rating)
        change = Change(meta=meta, records=[table_record("seat_taken", meta)], result=chosen)
        change.after.append(lambda v: svc.after_table_change(meta))
        return change

    try:
        _, change = await svc.mutate(table_id, decide)
    except AppError:  # refused for sure; a Redis error (ambiguous) is the reconciler's
        await svc.hooks.release_seat(user_id, table_id)
        raise
    await svc.maybe_start(table_id)
    return int(change.result)


def _check_can_sit(meta: TableMeta, user_id: int, seat: int | None) -> None:
    if meta.status != "waiting":
        raise AppError("table_not_waiting", "That game has already started.", 409)
    if meta.seat_of(user_id) is not None:
        raise AppError("already_seated", "You already sit at that table.", 409)
    if meta.private and user_id not in meta.invited and user_id != meta.host:
        raise AppError("not_invited", "That table is private: you need an invitation.", 403)
    if seat is not None:
        if not 0 <= seat < len(meta.seats):
            raise AppError("bad_seat", "There is no such seat at that table.", 422)
        if meta.seats[seat] is not None:
            raise AppError("seat_taken", "Someone already sits there.", 409)
    elif not meta.free_seats():
        raise AppError("table_full", "That table is full.", 409)


async def stand(svc: TableService, table_id: str, user_id: int) -> None:
    """Leave a seat before the game starts; the bet's hold is released."""

    def decide(v: int, meta: TableMeta, state: State | None) -> Change:
        seat = meta.seat_of(user_id)
        if seat is None:
            raise AppError("not_seated", "You do not sit at that table.", 409)
        if meta.status != "waiting":
            raise AppError("table_not_waiting", "The game has started: leave it instead.", 409)
        meta = meta.model_copy(deep=True)
        meta.seats[seat] = None
        if not meta.humans():
            meta.status = "closed"
            meta.close_reason = "empty"
        change = Change(meta=meta, records=[table_record("seat_left", meta)], result=meta)
        change.after.append(lambda v: svc.after_table_change(meta))
        return change

    _, change = await svc.mutate(table_id, decide)
    await svc.hooks.release_seat(user_id, table_id)
    meta: TableMeta = change.result
    if meta.status == "closed":
        await _close_refunds(svc, meta)


async def _close_refunds(svc: TableService, meta: TableMeta) -> None:
    if meta.special:
        await svc.hooks.refund_special_table(meta.host, meta.id)
    await svc.store.expire(meta.id, 600)


async def invite(
    svc: TableService, table_id: str, host: int, host_name: str, user_ids: list[int]
) -> None:
    def decide(v: int, meta: TableMeta, state: State | None) -> Change:
        if meta.host != host:
            raise AppError("not_host", "Only the host can invite.", 403)
        if meta.status != "waiting":
            raise AppError("table_not_waiting", "That game has already started.", 409)
        meta = meta.model_copy(deep=True)
        for uid in user_ids:
            if uid not in meta.invited:
                meta.invited.append(uid)
        return Change(meta=meta, records=[table_record("invited", meta)], result=meta)

    _, change = await svc.mutate(table_id, decide)
    meta: TableMeta = change.result
    for uid in user_ids:
        await svc.notify_user(
            uid,
            {
                "type": "invitation",
                "table": meta.summary(),
                "from": {"id": host, "name": host_name},
            },
        )


QUICK_LOCK_MS = 2000  # held around search + sit/create; expires if its holder dies
QUICK_LOCK_WAIT = 5.0  # how long a quick play waits for the modality's lock
_RELEASE_LUA = "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end"


@asynccontextmanager
async def quick_lock(svc: TableService, preset: str, players: int) -> AsyncIterator[None]:
    """One quick play at a time per modality (across processes): without it two players
    arriving together both find no waiting table and each open one, never meeting."""
    key, token = f"quick:{preset}:{players}", secrets.token_hex(8)
    give_up = time.monotonic() + QUICK_LOCK_WAIT
    while not await svc.redis.set(key, token, nx=True, px=QUICK_LOCK_MS):
        if time.monotonic() > give_up:
            raise AppError("server_busy", "Quick play is busy right now; try again.", 503)
        await asyncio.sleep(0.02)
    try:
        yield
    finally:
        await svc.redis.eval(_RELEASE_LUA, 1, key, token)


QUICK_WINDOW = 200  # quick play: the rating gap accepted at once...
QUICK_WIDEN = 20  # ...widened by this much for every second the table has waited


def rating_window(waited: float) -> float:
    """The largest rating gap quick play accepts between a newcomer and a table that has
    waited ``waited`` seconds: 200, plus 20 a second (30 s: 800, which nearly everyone
    fits). The table's bots (``bots_after``) come when even that finds no one."""
    return QUICK_WINDOW + QUICK_WIDEN * max(0.0, waited)


def table_skill(summary: dict[str, Any]) -> float:
    """The mean skill of the people waiting at a table (a newcomer's for the unrated)."""
    skills = [s.get("skill") or NEWCOMER.skill for s in summary["seats"] if s and s.get("user_id")]
    return sum(skills) / len(skills) if skills else NEWCOMER.skill


def by_rating(candidates: list[dict[str, Any]], skill: int, now: float) -> list[dict[str, Any]]:
    """The waiting tables quick play may seat a player of ``skill`` at, the closest
    rating first (the longest wait first among equals); tables whose gap is wider than
    their window are left to players nearer them."""
    fits = [
        (abs(table_skill(t) - skill), t["created_at"], t)
        for t in candidates
        if abs(table_skill(t) - skill) <= rating_window(now - t["created_at"])
    ]
    return [t for _, _, t in sorted(fits, key=lambda f: (f[0], f[1]))]


async def quickplay(
    svc: TableService,
    user_id: int,
    name: str,
    preset: str,
    players: int,
    bots_after: float | None,
    strength: BotStrength = "normal",
    equipped: dict[str, str] | None = None,
    rate: RatingLookup | None = None,
    match: bool = False,
) -> TableMeta:
    """Sit at the waiting public table of that modality at the minimum bet whose players'
    rating is closest (``by_rating``), or open one and wait (optionally filling empty
    seats with bots after ``bots_after``). The modality is the variant, the players and
    one hand or a ``match`` to the variant's target score (``match_target``). Search and
    sit-or-create run under the modality's lock (``quick_lock``)."""
    target = match_target(preset) if match else 0
    async with quick_lock(svc, preset, players):
        return await _quickplay(
            svc, user_id, name, preset, players, bots_after, strength, equipped, rate, target
        )


async def _quickplay(
    svc: TableService,
    user_id: int,
    name: str,
    preset: str,
    players: int,
    bots_after: float | None,
    strength: BotStrength,
    equipped: dict[str, str] | None,
    rate: RatingLookup | None,
    target: int,
) -> TableMeta:
    candidates = await listing.waiting(
        svc.store, {"preset": preset, "players": players, "min_bet": MIN_BET, "max_bet": MIN_BET}
    )
    ordered = sorted(
        (t for t in candidates if not t["turbo"] and t["target_score"] == target),
        key=lambda t: t["created_at"],
    )
    for summary in ordered:
        if any(s and s["user_id"] == user_id for s in summary["seats"]):
            # Already waiting there: the same quick play again (a double click, a retry)
            # gets that table, not a second one with a second special-table credit.
            return (await svc.load(summary["id"]))[1]
    rating = NEWCOMER
    if rate is not None:
        try:
            rating = await rate(preset, make_ruleset(preset, players).to_dict())
        except RuleViolation as exc:
            raise AppError(exc.code, exc.message, 422) from None
    known = _known(rating)
    for summary in by_rating(ordered, rating.skill, time.time()):
        try:
            await sit(svc, summary["id"], user_id, name, None, equipped, known)
        except AppError as exc:
            if exc.code in (
                "seat_taken",
                "table_full",
                "table_not_waiting",
                "table_busy",
                "table_not_found",
            ):
                continue
            raise
        return (await svc.load(summary["id"]))[1]
    body = CreateTableIn(preset=preset, players=players, bet=MIN_BET, target_score=target)
    meta = await create_table(svc, user_id, name, body, kind="quick", equipped=equipped, rate=known)
    if bots_after is not None:
        member = f"quick|{meta.id}|{strength}"  # the bots' strength rides on the timer
        # The wait is for someone who might come: with nobody else online, bots at once.
        others = set(await online_ids(svc.redis, svc.settings.redis_buckets)) - {user_id}
        at = time.time() + (bots_after if others else 0)
        await svc.store.add_timer(member, at)
        if svc.kick:
            svc.kick(member, at)
    return meta


def _known(rating: SeatRating) -> RatingLookup:
    """A lookup answering the rating already read (the modality's, for every table)."""

    async def known(preset: str, rules: dict[str, Any]) -> SeatRating:
        return rating

    return known
