"""What each deadline does when the timer loop (timers.py) claims it: a turn clock that
ran out (the server moves for the player, ``timeout_move``), a bot's move, a seated
player's grace period or away notice (absence.py), a finished game to archive, a quick
table to fill with bots, a start to recover, an idle check (idle.py); other kinds go to
the handlers other modules add to ``svc.timer_handlers`` (rematch.install)."""

from __future__ import annotations

import logging

from app.core import metrics
from app.core.errors import AppError
from app.rules import commands as C
from app.rules.engine import apply
from app.rules.errors import RuleViolation
from app.rules.events import Drew, Event
from app.rules.state import DRAW, PLAY, State
from app.tables.play import absence, clock, idle
from app.tables.play.botplay import fallback
from app.tables.play.service import (
    Change,
    TableService,
    table_record,
    takeover_record,
    turn_timer,
)
from app.tables.storage.meta import BOT_STRENGTHS, TableMeta

log = logging.getLogger("app.tables.play.deadlines")

ABANDON_AFTER_TIMEOUTS = 3


async def fire(svc: TableService, member: str) -> None:
    """Run one claimed timer: a turn timeout, a bot move, a grace period's end..."""
    kind, table_id, arg = member.split("|", 2)
    try:
        if kind == "turn":
            await turn_timeout(svc, table_id, arg)
        elif kind == "bot":
            await bot_move(svc, table_id, int(arg))
        elif kind == "grace":
            await absence.grace_over(svc, table_id, int(arg))
        elif kind == "away":
            await absence.away(svc, table_id, arg)
        elif kind == "cut":
            await svc.cut_timeout(table_id, int(arg))
        elif kind == "finish":
            await svc.finish(table_id)
        elif kind == "quick":  # arg: the bots' strength ("0" from older versions)
            strength = arg if arg in BOT_STRENGTHS else "normal"
            await svc.fill_with_bots(table_id, None, strength)
        elif kind == "starting":
            await svc.recover_start(table_id)
        elif kind == idle.TIMER:
            await idle.check_idle(svc, table_id)
        elif kind in svc.timer_handlers:
            await svc.timer_handlers[kind](table_id, arg)
    except AppError as exc:
        if exc.status != 404:
            log.info("timer %s: %s", member, exc.code)


async def turn_timeout(svc: TableService, table_id: str, arg: str) -> None:
    try:
        hand_no, turns = (int(x) for x in arg.split(":")[:2])
    except ValueError:
        return  # not a turn clock this version wrote
    at = clock.timer_deadline(arg)

    def decide(v: int, meta: TableMeta, state: State | None) -> Change:
        if (
            meta.status != "playing"
            or state is None
            or state.phase not in (DRAW, PLAY)
            or (state.hand_no, state.turns) != (hand_no, turns)
            or clock.stale(meta, state, at)
        ):
            return Change()  # not this turn's clock any more
        seat = state.turn
        person = meta.seats[seat]
        # A person's turn draws on its bank (a bot's, stuck in thought, is moved at once).
        if (
            at is not None
            and person is not None
            and not (person.bot or person.abandoned)
            and clock.draining(meta, state) is None
        ):
            opened = meta.edit()
            until = clock.open_bank(svc.settings, opened, state, at)
            if until is not None:  # the turn's own seconds are gone: its bank drains
                record = clock.clock_record(svc.settings, opened, state, until, banking=True)
                return Change(
                    meta=opened,
                    records=[record],
                    clock=until,
                    timers=[(turn_timer(meta.id, state, until), until)],
                )
        events, new, moves = timeout_move(state, seat)
        meta = meta.edit()
        s = meta.seats[seat]
        assert s is not None
        s.timeouts += 1
        change = svc.game_change(meta, state, events, new, moves=moves)
        # said first, so viewers word the draw and discard that follow as the clock's;
        # named, so every seat can say whose time ran out
        change.records.insert(0, {"k": "o", "seat": seat, "name": s.name})
        if s.timeouts >= ABANDON_AFTER_TIMEOUTS and not s.bot and not s.abandoned:
            s.abandoned = True
            change.records.append(table_record("seat_abandoned", meta))
            change.records.append(takeover_record(seat, "timeout"))
        return change

    await svc.mutate(table_id, decide)


async def bot_move(svc: TableService, table_id: str, at_v: int) -> None:
    # The bot thinks before the commit, outside it (a strong bot in a worker
    # process: botplay.py); the commit then checks the table did not move meanwhile.
    v, meta, state = await svc.load(table_id)
    seat = meta.seats[state.turn] if state is not None else None
    if (
        v != at_v
        or meta.status != "playing"
        or state is None
        or seat is None
        or not (seat.bot or seat.abandoned)
    ):
        return
    command = await svc.bots.command(
        table_id,
        state,
        state.turn,
        seat.strength,
        lambda start: svc.store.log_from(table_id, start),
    )

    def decide(v: int, meta: TableMeta, state: State | None) -> Change:
        if v != at_v or meta.status != "playing" or state is None:
            return Change()
        seat = meta.seats[state.turn]
        if seat is None or not (seat.bot or seat.abandoned):
            return Change()
        played = command
        try:
            events, new = apply(state, state.turn, command)
        except RuleViolation:  # (not seen: the same version is the same state)
            played = fallback(state, state.turn)
            events, new = apply(state, state.turn, played)
        moves = ((0, state.turn, played),)
        return svc.game_change(meta, state, events, new, touched=False, moves=moves)

    _, change = await svc.mutate(table_id, decide)
    metrics.moved("bot", bool(change.records))


def timeout_move(
    state: State, seat: int
) -> tuple[list[Event], State, list[tuple[int, int, C.Command]]]:
    """The server's move for a player whose clock ran out (docs/rules-reference.md, "What
    the table decides"): draw from the stock if not yet drawn, then discard the drawn
    card, or else the first card that may legally be discarded (the engine never leaves a
    hand without one). Also says which commands made which events (for the log)."""
    events: list[Event] = []
    moves: list[tuple[int, int, C.Command]] = []
    drawn = -1
    if state.phase == DRAW:
        step, state = apply(state, seat, C.Draw())
        moves.append((0, seat, C.Draw()))
        events += step
        first = step[0]
        assert isinstance(first, Drew)
        drawn = first.card
        if state.phase != PLAY or state.turn != seat:
            return events, state, moves
    candidates = ([drawn] if drawn >= 0 else []) + sorted(set(state.hands[seat]), reverse=True)
    for card in candidates:
        try:
            step, new = apply(state, seat, C.Discard(card))
        except RuleViolation:
            continue
        moves.append((len(events), seat, C.Discard(card)))
        return events + step, new, moves
    raise RuntimeError("no legal discard")  # the engine's no-stranding rule forbids this
