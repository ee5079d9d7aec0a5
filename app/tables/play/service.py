"""The table service: every change to a live table goes through ``mutate``.

``mutate`` loads the table (version, meta, engine state) from Redis, lets a pure
function decide the change, and commits it with one atomic script that refuses a stale
version (then it reloads and decides again, a bounded number of times) or a repeated
command id. After a commit it runs the follow-ups: timers, the lobby index, bot turns,
archiving a finished game.

Built on it: what each deadline does when it comes (deadlines.py), seated players'
sockets and grace clocks (absence.py), ending tables nobody plays (idle.py).
"""

from __future__ import annotations

import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from redis.asyncio import Redis

from app.core import metrics
from app.core.config import Settings
from app.core.errors import AppError
from app.rules import commands as C
from app.rules import fairdeal
from app.rules.deal import deal_commitment, deal_from_dict, deal_to_dict, random_deal
from app.rules.engine import apply
from app.rules.errors import RuleViolation
from app.rules.events import Discarded, Event, HandEnded
from app.rules.ruleset import ruleset_from_dict
from app.rules.serialize import command_to_dict, event_to_dict, state_from_dict, state_to_dict
from app.rules.state import DRAW, PLAY, State, initial_state, next_first
from app.tables.play import clock
from app.tables.play.botplay import BotPlayer
from app.tables.play.hooks import FreeTables, GameResult, TableHooks
from app.tables.storage import listing, replays
from app.tables.storage.cache import TableCache, fold
from app.tables.storage.meta import BotStrength, HandFairness, TableMeta, bot_seat
from app.tables.storage.store import (
    STATE_EVERY,
    Conflict,
    Duplicate,
    TableStore,
    user_channel,
)

log = logging.getLogger("app.tables")

MAX_RETRIES = 8
CLOSED_TABLE_TTL = 600  # a closed table stays readable this long (seconds)
_rng = secrets.SystemRandom()


@dataclass
class Change:
    """What a decision wants committed. ``records`` get their versions at commit time."""

    records: list[dict[str, Any]] = field(default_factory=list)
    meta: TableMeta | None = None
    state: State | None = None
    after: list[Callable[[int], Awaitable[None]]] = field(default_factory=list)
    result: Any = None
    # Deadlines added in the same round trip as the commit (a stray one left by a refused
    # commit is harmless: a timer checks that it is still the table's before acting).
    timers: list[tuple[str, float]] = field(default_factory=list)
    clock: float | None = None  # a new turn clock's deadline (kept beside the meta)


Decider = Callable[[int, TableMeta, State | None], Change]


def table_record(change: str, meta: TableMeta) -> dict[str, Any]:
    return {"k": "t", "change": change, "meta": meta.public()}


def game_records(events: list[Event], moves: Moves = ()) -> list[dict[str, Any]]:
    """One record per engine event. ``moves``: (index of its first event, seat, command)
    for each command the events come from; that event's record carries the command
    (``"c"``) and its seat (``"s"``), so a replay can apply it again (docs/replay.md).
    Viewers' frames are built from ``"e"`` alone."""
    records: list[dict[str, Any]] = [{"k": "g", "e": event_to_dict(e)} for e in events]
    for index, seat, cmd in moves:
        if index < len(records):
            records[index]["c"] = command_to_dict(cmd)
            records[index]["s"] = seat
    return records


Moves = tuple[tuple[int, int, C.Command], ...] | list[tuple[int, int, C.Command]]


def rule_error(exc: RuleViolation) -> AppError:
    return AppError(exc.code, exc.message, 422)


class TableService:
    def __init__(
        self,
        redis: Redis,
        settings: Settings,
        hooks: TableHooks | None = None,
        archive: Callable[[TableMeta, list[Any]], Awaitable[None]] | None = None,
        bot_delay: float = 0.8,
    ) -> None:
        self.redis = redis
        self.store = TableStore(redis, buckets=settings.redis_buckets)
        self.settings = settings
        self.hooks: TableHooks = hooks or FreeTables()
        self.archive_game = archive
        self.bot_delay = bot_delay
        self.kick: Callable[[str, float], None] | None = None  # wakes the timer loop
        self.proc_id = secrets.token_hex(8)  # this process, for its socket counts
        # this process's sockets per (table, seated user), as counted in Redis
        self.local_conns: dict[tuple[str, int], int] = {}
        self.cache = TableCache()
        self.bots = BotPlayer(settings)
        # What upper layers count in Redis for this process and count again when the
        # heartbeat finds the process unregistered (swept, or Redis flushed or restarted
        # empty): live/fanout.py's Hub, each socket among its user's (the per-user cap).
        self.rejoin_hooks: list[Callable[[], Awaitable[Any]]] = []
        # Timer kinds of other modules (kind -> handler(table_id, arg)): rematch.install.
        self.timer_handlers: dict[str, Callable[[str, str], Awaitable[None]]] = {}
        # Called with every finished game, after its settlement, by ``finish`` (which
        # runs again if the process dies midway, so each must be idempotent): the
        # tournaments record their matches' results here.
        self.finished_hooks: list[Callable[[TableMeta, State], Awaitable[None]]] = []
        # Asked before a finished game's replay is served (table id, the database session):
        # one may refuse it while the same deals are still being played elsewhere (a
        # duplicate tournament's round).
        self.replay_gates: list[Callable[[str, Any], Awaitable[None]]] = []

    # ---------------------------------------------------------------- loading

    async def load(self, table_id: str, cid: str = "") -> tuple[int, TableMeta, State | None]:
        """The table as Redis holds it now (and into the cache)."""
        loaded = await self.store.load(table_id, cid)
        if loaded is None or loaded.meta is None:
            self.cache.drop(table_id)
            raise AppError("table_not_found", "There is no such table.", 404)
        if loaded.seen is not None:
            raise Duplicate(loaded.seen)
        meta = TableMeta.model_validate_json(loaded.meta)
        meta.turn_deadline = loaded.clock
        state = state_from_dict(orjson.loads(loaded.state)) if loaded.state else None
        if loaded.after:  # the records since the state was last saved (store.LOAD_LUA)
            records = [orjson.loads(raw) for raw in loaded.after]
            if [r.get("v") for r in records] != list(
                range(loaded.v - len(records) + 1, loaded.v + 1)
            ):
                log.error("table %s: its log does not follow its saved state", table_id)
                raise AppError("table_unavailable", "That table cannot be loaded now.", 503)
            state = fold(state, records, lambda: meta.rules)
        self.cache.put(table_id, loaded.v, meta, state)
        return loaded.v, meta, state

    async def mutate(self, table_id: str, decide: Decider, cid: str = "") -> tuple[int, Change]:
        """Decide on the cached table when there is one (one round trip: the commit), else
        on a fresh load. A cached decision that refuses or does nothing is made again on
        a fresh load: the cache may be behind (storage/cache.py)."""
        entry = self.cache.get(table_id)
        for _ in range(MAX_RETRIES):
            cached = entry is not None
            if entry is not None:
                v, meta, state = entry.v, entry.meta(), entry.state()
            else:
                try:
                    v, meta, state = await self.load(table_id, cid)
                except Duplicate as dup:  # a repeated command id: answered, never applied twice
                    return dup.v, Change(result={"duplicate": True})
            try:
                change = decide(v, meta, state)
            except AppError:
                if cached:
                    entry = None
                    continue
                raise
            if not change.records:
                if cached:
                    entry = None
                    continue
                # Every saved change carries a record, so versions track meta and state.
                assert change.meta is None and change.state is None
                return v, change
            for i, record in enumerate(change.records, start=1):
                record["v"] = v + i
            # The records determine the new state unless none is a game record. Even
            # then the state is saved when it is the table's first, with a new meta,
            # and on crossing a multiple of STATE_EVERY versions (changed or not), so
            # that a load never folds more than that many records (store.LOAD_LUA).
            determined = any(r["k"] == "g" for r in change.records)
            after = change.state if change.state is not None else state
            saved = after is not None and (
                state is None
                or (change.state is not None and (not determined or change.meta is not None))
                or (v + len(change.records)) // STATE_EVERY != v // STATE_EVERY
            )
            try:
                new_v = await self.store.commit(
                    table_id,
                    v,
                    change.records,
                    meta=change.meta.model_dump_json().encode() if change.meta else None,
                    state=orjson.dumps(state_to_dict(after))
                    if saved and after is not None
                    else None,
                    cid=cid,
                    timers=change.timers,
                    clock=change.clock,
                    publish_state=change.state is not None and not determined,
                )
            except Conflict as conflict:
                # The refusal says where the table is. The cache may have caught up with it
                # meanwhile; if not, load it: an entry that is newer but still behind (the
                # other commits' messages arriving one by one on a loaded process) would
                # only lose the next race too, and eight such losses answer table_busy.
                newer = self.cache.get(table_id)
                entry = newer if newer is not None and newer.v >= conflict.args[0] else None
                continue
            except Duplicate as dup:
                change = Change(result={"duplicate": True})
                return dup.v, change
            self.cache.put(
                table_id,
                new_v,
                change.meta or meta,
                change.state if change.state is not None else state,
            )
            for follow_up in change.after:
                try:
                    await follow_up(new_v)
                except Exception:  # a follow-up must never undo a committed move
                    log.exception("follow-up failed on table %s", table_id)
            try:
                await self._schedule_bot(
                    change.meta or meta, change.state if change.state is not None else state, new_v
                )
            except Exception:
                log.exception("could not set the bot's move on table %s", table_id)
            return new_v, change
        raise AppError("table_busy", "The table is busy; try again.", 409)

    async def create(self, meta: TableMeta) -> int:
        record = table_record("created", meta)
        record["v"] = 1
        v = await self.store.commit(meta.id, 0, [record], meta=meta.model_dump_json().encode())
        await self.after_table_change(meta)
        return v

    # ---------------------------------------------------------------- the lobby

    async def after_table_change(self, meta: TableMeta) -> None:
        await listing.update(self.store, self.redis, meta)

    async def notify_user(self, user_id: int, message: dict[str, Any]) -> None:
        await self.redis.publish(user_channel(user_id), orjson.dumps(message))

    # ---------------------------------------------------------------- play

    async def command(
        self, table_id: str, user_id: int, cid: str, cmd: C.Command
    ) -> tuple[int, list[dict[str, Any]]]:
        """Apply a player's command; returns the table's new version and the records the
        commit appended (none when the command id was a repeat)."""

        def decide(v: int, meta: TableMeta, state: State | None) -> Change:
            if meta.status != "playing" or state is None:
                raise AppError("table_not_playing", "That table is not playing a game.", 409)
            seat = meta.seat_of(user_id)
            if seat is None:
                raise AppError("not_seated", "You do not play at that table.", 403)
            if meta.seats[seat].abandoned:  # type: ignore[union-attr]
                raise AppError("seat_abandoned", "You left this game; a bot plays for you.", 409)
            try:
                events, new_state = apply(state, seat, cmd)
            except RuleViolation as exc:
                raise rule_error(exc) from None
            touched = meta.seats[seat].timeouts != 0  # type: ignore[union-attr]
            if touched:
                meta = meta.edit()
                meta.seats[seat].timeouts = 0  # type: ignore[union-attr]
            return self.game_change(meta, state, events, new_state, touched, ((0, seat, cmd),))

        # Command ids are the client's own: two players may both send "c1", so the
        # dedupe key is scoped by the sender (else one player's move would be answered
        # as a repeat of the other's and silently dropped).
        started = time.perf_counter()
        v, change = await self.mutate(table_id, decide, cid=f"{user_id}:{cid}")
        metrics.moved("player", bool(change.records), started)
        return v, change.records

    def game_change(
        self,
        meta: TableMeta,
        old: State,
        events: list[Event],
        state: State,
        touched: bool = True,
        moves: Moves = (),
    ) -> Change:
        """Records for engine events, plus what follows: fairness reveals, the next deal,
        the end of the game, the turn clock, the follow-up timers. ``touched`` says
        whether the caller changed ``meta`` (then it is the caller's own copy, from
        ``TableMeta.edit``); if nothing here changes it either, the commit leaves the
        meta alone: an ordinary move writes only the state and the clock."""
        ended = next((e for e in events if isinstance(e, HandEnded)), None)
        if ended is not None and not touched:
            meta, touched = meta.edit(), True  # the hand's end changes the meta
        change = Change(meta=meta if touched else None, state=state)
        change.records = game_records(events, moves)
        dealt = True
        if ended is not None:
            # A duplicate round's deals stay secret: the other tables are playing them.
            if meta.deal_seed is None:
                meta.hands = [h.model_copy(update={"revealed": True}) for h in meta.hands]
                change.records.append(table_record("hand_revealed", meta))
            if meta.tournament is not None:
                meta.hand_points = [*meta.hand_points, list(state.hand_scores)]
            if ended.match_over or _match_limit(meta, state):
                meta.status = "finished"
                change.records.append(table_record("game_over", meta))
                change.state = state
                change.after.append(lambda v: self.finish(meta.id))
                return change
            state, dealt = self._deal_next(meta, state, change)
            change.state = state
        turn_passed = dealt and (
            state.turn != old.turn
            or ended is not None
            or any(isinstance(e, Discarded) for e in events)
        )
        if turn_passed:
            self._start_clock(meta, state, change)
        # (else the same turn goes on and its clock stands; a bot on turn plays on, as
        # after every commit: ``mutate``)
        return change

    def _deal_next(self, meta: TableMeta, state: State, change: Change) -> tuple[State, bool]:
        """Commit to the next hand (docs/fairness.md) and deal it when nobody need cut:
        returns the state and whether it was dealt. A stacked test deal is committed by
        its hash and dealt at once (no cut); a seeded hand waits for its cutter, unless
        a bot (or nobody: ``cut_seconds`` 0) cuts at once."""
        rules = state.rules
        if meta.stacked_deals and self.settings.env == "test":
            deal = deal_from_dict(meta.stacked_deals.pop(0))  # lobby/testdeals.py: tests only
        elif meta.deal_seed is not None:
            # A duplicate round: every table of the round plays the same cards, so the
            # deal comes from the round's seed, committed by its hash, with no cut.
            rng = random.Random(f"{meta.deal_seed}:{state.hand_no + 1}")
            first = next_first(state) if state.hand_no else rng.randrange(rules.players)
            deal = random_deal(rules, first, rng)
        else:
            deal = None
        if deal is not None:
            salt = secrets.token_hex(16)
            meta.hands.append(
                HandFairness(
                    hand_no=state.hand_no + 1,
                    commitment=deal_commitment(deal, salt),
                    deal=deal_to_dict(deal),
                    salt=salt,
                    first=deal.first,
                )
            )
            change.records.append(table_record("hand_committed", meta))
            events, state = apply(state, C.SYSTEM, deal)
            change.records.extend(game_records(events))
            return state, True
        first = next_first(state) if state.hand_no else _rng.randrange(rules.players)
        seed = secrets.token_hex(fairdeal.SEED_BYTES)
        cutter = fairdeal.cutter_of(first, rules.players)
        hand = HandFairness(
            hand_no=state.hand_no + 1,
            commitment=fairdeal.commitment(seed),
            scheme="seed",
            server_seed=seed,
            client_seeds=[None] * rules.players,
            first=first,
            dealer=fairdeal.dealer_of(first, rules.players),
            cutter=cutter,
        )
        seat = meta.seats[cutter]
        window = self._cut_seconds(meta)
        if seat is None or seat.bot or seat.abandoned or window <= 0:
            meta.hands.append(hand)
            change.records.append(table_record("hand_committed", meta))
            return self._cut(meta, state, change, None, "bot" if window > 0 else "timeout"), True
        hand.cut_deadline = time.time() + window
        meta.hands.append(hand)
        change.records.append(table_record("hand_committed", meta))
        change.timers.append((cut_timer(meta.id, hand.hand_no), hand.cut_deadline))
        return state, False

    def _cut(
        self,
        meta: TableMeta,
        state: State,
        change: Change,
        position: int | None,
        by: str,
        client_seed: str | None = None,
    ) -> State:
        """Cut the awaited deck (at random when ``position`` is None) and deal it."""
        rules = state.rules
        hand = meta.hands[-1]
        lo, hi = fairdeal.cut_range(fairdeal.deck_size(rules))
        if position is None:
            position = _rng.randint(lo, hi)
        seeds = list(hand.client_seeds)
        if client_seed is not None and hand.cutter is not None:
            seeds[hand.cutter] = client_seed
        deal = fairdeal.derive_deal(rules, hand.server_seed, seeds, position, hand.first)
        # The record keeps what the deal follows from (seed, seeds, cut, first), not the
        # deal: every process caches every hand's record of the match with the meta and
        # publishes the meta whole on each table change (about 1.9 KiB a hand), and the
        # replay and /verify derive it (app/rules/replay.py, hand_deal).
        meta.hands[-1] = hand.model_copy(
            update={
                "cut": position,
                "cut_by": by,
                "cut_deadline": None,
                "client_seeds": seeds,
            }
        )
        change.records.append(table_record("hand_cut", meta))
        events, state = apply(state, C.SYSTEM, deal)
        change.records.extend(game_records(events))
        return state

    def _cut_seconds(self, meta: TableMeta) -> int:
        return self.settings.turbo_cut_seconds if meta.turbo else self.settings.cut_seconds

    async def cut(
        self, table_id: str, user_id: int, position: int, client_seed: str | None = None
    ) -> tuple[int, list[dict[str, Any]]]:
        """The cutter cuts the deck at ``position`` (docs/protocol.md, "The cut")."""
        if client_seed is not None and not fairdeal.valid_client_seed(client_seed):
            raise AppError("bad_seed", "A seed is 1 to 64 letters, digits, - or _.", 422)

        def decide(v: int, meta: TableMeta, state: State | None) -> Change:
            hand = self._awaited(meta, state)
            seat = meta.seat_of(user_id)
            if seat is None:
                raise AppError("not_seated", "You do not play at that table.", 403)
            if seat != hand.cutter:
                raise AppError("not_cutter", "Another player cuts this deck.", 403)
            assert state is not None
            lo, hi = fairdeal.cut_range(fairdeal.deck_size(state.rules))
            if not lo <= position <= hi:
                raise AppError("bad_cut", f"Cut between card {lo} and card {hi}.", 422)
            return self._cut_change(meta, state, position, "player", client_seed)

        v, change = await self.mutate(table_id, decide)
        return v, change.records

    async def add_client_seed(self, table_id: str, user_id: int, seed: str) -> int:
        """A seated player's seed for the awaited deal (docs/fairness.md, step 2)."""
        if not fairdeal.valid_client_seed(seed):
            raise AppError("bad_seed", "A seed is 1 to 64 letters, digits, - or _.", 422)

        def decide(v: int, meta: TableMeta, state: State | None) -> Change:
            hand = self._awaited(meta, state)
            seat = meta.seat_of(user_id)
            if seat is None:
                raise AppError("not_seated", "You do not play at that table.", 403)
            if hand.client_seeds[seat]:
                raise AppError("seed_given", "You gave your seed for this deal already.", 409)
            meta = meta.edit()
            seeds = list(hand.client_seeds)
            seeds[seat] = seed
            meta.hands[-1] = hand.model_copy(update={"client_seeds": seeds})
            return Change(meta=meta, records=[table_record("seed_added", meta)])

        v, _ = await self.mutate(table_id, decide)
        return v

    async def cut_timeout(self, table_id: str, hand_no: int) -> None:
        """The cut's time ran out: the server cuts at random."""

        def decide(v: int, meta: TableMeta, state: State | None) -> Change:
            hand = meta.hands[-1] if meta.hands else None
            if (
                meta.status != "playing"
                or state is None
                or hand is None
                or not hand.awaiting_cut
                or hand.hand_no != hand_no
            ):
                return Change()
            return self._cut_change(meta, state, None, "timeout")

        await self.mutate(table_id, decide)

    @staticmethod
    def _awaited(meta: TableMeta, state: State | None) -> HandFairness:
        if meta.status != "playing" or state is None:
            raise AppError("table_not_playing", "That table is not playing a game.", 409)
        hand = meta.hands[-1] if meta.hands else None
        if hand is None or hand.scheme != "seed":
            raise AppError("no_cut", "There is no deck to cut now.", 409)
        if hand.cut is not None:
            raise AppError("already_cut", "This deck is cut already.", 409)
        return hand

    def _cut_change(
        self,
        meta: TableMeta,
        state: State,
        position: int | None,
        by: str,
        client_seed: str | None = None,
    ) -> Change:
        meta = meta.edit()
        change = Change(meta=meta)
        state = self._cut(meta, state, change, position, by, client_seed)
        change.state = state
        self._start_clock(meta, state, change)
        return change

    def _start_clock(self, meta: TableMeta, state: State, change: Change) -> None:
        """A new turn clock (its seconds and the time bank: clock.py). Its timer names the
        turn (hand number and turns ended), which stays the table's until the turn passes,
        so moves within the turn need no new timer, and the meta need not change (unless
        the turn that passed drew on its bank)."""
        now = time.time()
        if meta.bank is not None and meta.bank.turn is not None:
            meta = change.meta = clock.close_bank(self.settings, change.meta or meta.edit(), now)
        deadline = now + clock.turn_seconds(self.settings, meta, state)
        change.clock = deadline
        change.records.append(clock.clock_record(self.settings, meta, state, deadline))
        change.timers.append((turn_timer(meta.id, state, deadline), deadline))

    async def _schedule_bot(self, meta: TableMeta, state: State | None, v: int) -> None:
        """After every commit (``mutate``): a bot (or a bot playing for an absent person)
        on turn moves after a delay. A bot's move is keyed by the version it was set at
        and refused at any other, so EVERY record that moves the version on must set it
        again, not only a move: a player shown away, a seat abandoned, an invitation
        declined mid-game... else the bot on turn would stand still until its turn
        clock ran out (and a table of bots and absentees would stall)."""
        if meta.status != "playing" or state is None or state.phase not in (DRAW, PLAY):
            return
        seat = meta.seats[state.turn]
        if seat is not None and (seat.bot or seat.abandoned):
            at = time.time() + self.bot_delay
            await self.store.add_timer(f"bot|{meta.id}|{v}", at)
            if self.kick:
                self.kick(f"bot|{meta.id}|{v}", at)

    def start_game_change(self, meta: TableMeta, game_id: str) -> Change:
        meta = meta.model_copy(deep=True)
        meta.status = "playing"
        meta.game_id = game_id
        meta.started_at = time.time()
        meta.bank = None  # a rematch's copy carries the last game's banks
        meta.time_bank = clock.bank_seconds(self.settings, meta)  # shown to clients
        rules = ruleset_from_dict(meta.rules)
        change = Change(meta=meta)
        change.records.append(table_record("game_started", meta))
        state, dealt = self._deal_next(meta, initial_state(rules), change)
        change.state = state
        if dealt:
            self._start_clock(meta, state, change)
        change.after.append(lambda v: self.after_table_change(meta))
        change.after.append(lambda v: replays.remember_live_game(self.redis, game_id, meta.id))
        return change

    async def abandon(self, table_id: str, user_id: int, reason: str = "abandon") -> int:
        """The player leaves a started game (or the grace period ran out: ``reason``):
        a bot takes the seat; the bet is forfeited."""

        def decide(v: int, meta: TableMeta, state: State | None) -> Change:
            seat = meta.seat_of(user_id)
            if seat is None:
                raise AppError("not_seated", "You do not play at that table.", 403)
            if meta.status != "playing" or state is None:
                raise AppError("table_not_playing", "That table is not playing a game.", 409)
            meta = meta.model_copy(deep=True)
            s = meta.seats[seat]
            assert s is not None
            if s.abandoned:
                return Change()
            s.abandoned = True
            change = Change(
                meta=meta,
                records=[table_record("seat_abandoned", meta), takeover_record(seat, reason)],
            )
            return change  # (the bot on turn, this seat's now or another, moves on: mutate)

        v, _ = await self.mutate(table_id, decide)
        return v

    # ---------------------------------------------------------------- start, end

    async def maybe_start(self, table_id: str) -> None:
        """When every seat is taken: escrow the stakes, then deal. All or nothing: a start
        that fails at any step closes the table and gives back what it held or escrowed
        (``_abort_start``); the claim's recovery timer, committed with the claim, does it
        if this process dies first."""
        recover_at = time.time() + self.settings.start_recovery_seconds

        def claim(v: int, meta: TableMeta, state: State | None) -> Change:
            if meta.status != "waiting" or meta.free_seats():
                return Change()
            meta = meta.model_copy(deep=True)
            meta.status = "starting"
            meta.game_id = secrets.token_hex(16)
            meta.started_at = time.time()  # when the start began (the deal sets it again)
            return Change(
                meta=meta,
                records=[table_record("starting", meta)],
                result=meta,
                timers=[(start_timer(table_id), recover_at)],
            )

        _, change = await self.mutate(table_id, claim)
        meta: TableMeta | None = change.result
        if meta is None:
            return
        assert meta.game_id is not None
        try:
            failed = await self.hooks.start_game(meta.game_id, table_id, meta.bet, meta.humans())
            await self.mutate(table_id, self._begin(meta.game_id, failed))
        except Exception:
            await self._abort_quietly(table_id, meta.game_id)
            raise
        await self.store.cancel_timer(start_timer(table_id))
        for user_id in failed:
            await self.hooks.release_seat(user_id, table_id)
            await self.notify_user(
                user_id,
                {
                    "type": "seat_freed",
                    "table": table_id,
                    "code": "insufficient_funds",
                    "message": "You did not have the coins for the bet, so you left the table.",
                },
            )

    def _begin(self, game_id: str, failed: list[int]) -> Decider:
        def begin(v: int, current: TableMeta, state: State | None) -> Change:
            if current.status != "starting" or current.game_id != game_id:
                return Change()
            if failed:  # nothing was escrowed: back to waiting without those who could not pay
                current = current.model_copy(deep=True)
                current.status = "waiting"
                current.game_id = None
                for i, seat in enumerate(current.seats):
                    if seat is not None and seat.user_id in failed:
                        current.seats[i] = None
                change = Change(meta=current, records=[table_record("start_failed", current)])
                change.after.append(lambda v: self.after_table_change(current))
                return change
            return self.start_game_change(current, game_id)

        return begin

    async def _abort_quietly(self, table_id: str, game_id: str) -> None:
        try:
            await self._abort_start(table_id, game_id)
        except Exception:  # the recovery timer (and the reconciler) try again later
            log.warning("could not abort the failed start of %s", table_id, exc_info=True)

    async def recover_start(self, table_id: str) -> None:
        """Still ``starting`` when its recovery timer fires (a process died, or a step
        failed and its clean-up too): void the game, refund, close."""
        await self._abort_start(table_id, None)

    async def _abort_start(self, table_id: str, game_id: str | None) -> None:
        """Close a table whose start failed, then give back in one transaction every stake
        escrowed and every hold not escrowed. Dying in between leaves a closed table with
        money held: the reconciler (app/economy/reconciler.py) finishes the job."""

        def close(v: int, meta: TableMeta, state: State | None) -> Change:
            if game_id not in (None, meta.game_id):
                return Change()
            if meta.status == "closed" and meta.close_reason == "start_failed":
                return Change(result=meta)  # closed by an earlier try: finish its refunds
            if meta.status != "starting":
                return Change()
            meta = meta.model_copy(deep=True)
            meta.status = "closed"
            meta.close_reason = "start_failed"
            return Change(meta=meta, records=[table_record("closed", meta)], result=meta)

        _, change = await self.mutate(table_id, close)
        meta: TableMeta | None = change.result
        if meta is None:
            return
        await self.hooks.abort_start(self._result(meta, None, None))
        if meta.special:
            await self.hooks.refund_special_table(meta.host, table_id)
        await self.store.cancel_timer(start_timer(table_id))
        await self.after_table_change(meta)
        await self.store.expire(table_id, CLOSED_TABLE_TTL)

    def _result(self, meta: TableMeta, state: State | None, winner: int | None) -> GameResult:
        rules = ruleset_from_dict(meta.rules)
        teams: dict[int, int] = {}
        abandoned = set()
        for i, seat in enumerate(meta.seats):
            if seat is not None and seat.user_id is not None:
                teams[seat.user_id] = rules.team_of(i)
                if seat.abandoned:
                    abandoned.add(seat.user_id)
        bots = sum(1 for s in meta.seats if s is not None and s.user_id is None)
        return GameResult(
            game_id=meta.game_id or "",
            table_id=meta.id,
            preset=meta.preset,
            bet=meta.bet,
            teams=teams,
            abandoned=frozenset(abandoned),
            winner_team=winner,
            bots=bots,
        )

    async def finish(self, table_id: str) -> None:
        """Archive a finished game in Postgres and settle its bets (both idempotent)."""
        member = f"finish|{table_id}|0"
        await self.store.add_timer(member, time.time() + 5)  # retried if we die midway
        _, meta, state = await self.load(table_id)
        if meta.status != "finished" or state is None:
            await self.store.cancel_timer(member)
            return
        if self.archive_game is not None:
            await self.archive_game(meta, await self.store.full_log(table_id))
        with metrics.settling():
            await self.hooks.settle_game(self._result(meta, state, _winner(meta, state)))
        for hook in self.finished_hooks:
            await hook(meta, state)
        await self.store.cancel_timer(member)
        await self.store.expire(table_id)
        await self.after_table_change(meta)

    async def fill_with_bots(
        self, table_id: str, host: int | None, strength: BotStrength = "normal"
    ) -> None:
        def decide(v: int, meta: TableMeta, state: State | None) -> Change:
            if host is not None and meta.host != host:
                raise AppError("not_host", "Only the host can do that.", 403)
            if meta.status != "waiting" or not meta.free_seats():
                return Change()
            meta = meta.model_copy(deep=True)
            for i in meta.free_seats():
                meta.seats[i] = bot_seat(i, strength)
            return Change(meta=meta, records=[table_record("bots_seated", meta)])

        await self.mutate(table_id, decide)
        await self.maybe_start(table_id)


def _match_limit(meta: TableMeta, state: State) -> bool:
    """A tournament match is over after its hands, or when a hand ends past its round's
    time limit (the hand in progress is played out; no new one starts)."""
    if meta.hand_limit and state.hand_no >= meta.hand_limit:
        return True
    return meta.round_deadline is not None and time.time() >= meta.round_deadline


def _winner(meta: TableMeta, state: State) -> int | None:
    """The match's winning team; a tournament match cut short by its limits: the team
    ahead, None on a tie."""
    if state.match_winner >= 0 or meta.tournament is None:
        return state.match_winner
    best = max(state.totals)
    leaders = [t for t, total in enumerate(state.totals) if total == best]
    return leaders[0] if len(leaders) == 1 else None


def takeover_record(seat: int, reason: str) -> dict[str, Any]:
    """A bot took the seat: "timeout", "grace_over" or "abandon"."""
    return {"k": "b", "seat": seat, "reason": reason}


def start_timer(table_id: str) -> str:
    """The member of a start's recovery timer (``recover_start``)."""
    return f"starting|{table_id}|0"


def cut_timer(table_id: str, hand_no: int) -> str:
    """The member of a cut's deadline: the server cuts when the cutter did not."""
    return f"cut|{table_id}|{hand_no}"


def turn_timer(table_id: str, state: State, deadline: float) -> str:
    """The member of a turn clock in the timers set: the table, the turn it times (hand
    number and turns ended in that hand) and its deadline."""
    return f"turn|{table_id}|{state.hand_no}:{state.turns}:{deadline!r}"
