"""The turn clock fair on a phone: the turn's own seconds (more on each seat's first turn
of a hand, while the deal is still being looked at), then the seat's time bank for the
hand, then the server's move (deadlines.turn_timeout).

Nothing here costs a Redis round trip: the clock is committed with the move that starts
it (``TableService._start_clock``). The banks live in the table's meta (``meta.bank``),
which an ordinary move does not rewrite; only the turns that drew on their bank do, in
the commit they make anyway. A hand's banks are reset lazily: a ``Bank`` of an earlier
hand counts as full banks.

The turn timer fires when the turn's own seconds are gone. With a bank left, it does not
move for the player: it opens the bank (``open_bank``), a clock record and a new timer
for the bank's end. A timer that is not the turn's current one (the turn's own timer once
the bank is open, one of a turn that has passed) changes nothing (``stale``).
"""

from __future__ import annotations

from typing import Any

from app.core.config import Settings
from app.rules.state import State
from app.tables.storage.meta import Bank, TableMeta


def turn_seconds(settings: Settings, meta: TableMeta, state: State) -> float:
    """The turn's own seconds: the table's speed, plus the first-turn bonus on each
    seat's first turn of the hand (the first ``players`` turns)."""
    if meta.turbo:
        seconds, bonus = settings.turbo_turn_seconds, settings.turbo_first_turn_bonus_seconds
    else:
        seconds, bonus = settings.turn_seconds, settings.first_turn_bonus_seconds
    return float(seconds + (bonus if state.turns < state.rules.players else 0))


def bank_seconds(settings: Settings, meta: TableMeta) -> float:
    """Each seat's bank for a whole hand: the table's option, else the server's."""
    if meta.time_bank is not None:
        return float(meta.time_bank)
    return settings.turbo_time_bank_seconds if meta.turbo else settings.time_bank_seconds


def bank_left(settings: Settings, meta: TableMeta, hand_no: int, seat: int) -> float:
    bank = meta.bank
    if bank is None or bank.hand_no != hand_no or seat >= len(bank.left):
        return float(bank_seconds(settings, meta))
    return bank.left[seat]


def draining(meta: TableMeta, state: State) -> Bank | None:
    """The bank of the turn on the clock, if that turn is drawing on it."""
    bank = meta.bank
    if bank is not None and bank.turn == state.turns and bank.hand_no == state.hand_no:
        return bank
    return None


def close_bank(settings: Settings, meta: TableMeta, now: float) -> TableMeta:
    """The turn that drew on its bank has passed: what it used comes off the seat's bank.
    ``meta`` is the caller's own copy (``TableMeta.edit``)."""
    bank = meta.bank
    assert bank is not None and bank.turn is not None
    full = float(bank_seconds(settings, meta))
    left = list(bank.left) or [full] * meta.players
    if bank.seat < len(left):
        left[bank.seat] = round(max(0.0, bank.until - max(now, bank.since)), 3)
    meta.bank = Bank(hand_no=bank.hand_no, left=left)
    return meta


def open_bank(settings: Settings, meta: TableMeta, state: State, since: float) -> float | None:
    """The turn's own seconds ran out at ``since``: the seat's bank starts to drain.
    Returns when it runs dry, or None with no bank left (the server then moves). ``meta``
    is changed only when a bank opens; it must then be the caller's own copy."""
    seat = state.turn
    left = bank_left(settings, meta, state.hand_no, seat)
    if left <= 0:
        return None
    full = float(bank_seconds(settings, meta))
    bank = meta.bank
    lefts = list(bank.left) if bank is not None and bank.hand_no == state.hand_no else []
    lefts = lefts or [full] * meta.players
    until = since + left
    meta.bank = Bank(
        hand_no=state.hand_no, left=lefts, turn=state.turns, seat=seat, since=since, until=until
    )
    return until


def stale(meta: TableMeta, state: State, deadline: float | None) -> bool:
    """A turn timer of this turn that is not its current one: the turn's own timer once
    the bank is open (or a timer that was set again by a process that lost a race)."""
    bank = draining(meta, state)
    return bank is not None and deadline is not None and deadline != bank.until


def clock_record(
    settings: Settings, meta: TableMeta, state: State, deadline: float, banking: bool = False
) -> dict[str, Any]:
    """The clock record every viewer gets: the seat on turn, when its time (the turn's
    own, or with ``banking`` the bank's) runs out, and the bank it has left after that."""
    bank = 0.0 if banking else bank_left(settings, meta, state.hand_no, state.turn)
    record: dict[str, Any] = {"k": "c", "seat": state.turn, "deadline": deadline, "bank": bank}
    if banking:
        record["banking"] = True
    return record


def timer_deadline(arg: str) -> float | None:
    """The deadline a turn timer's member names (``service.turn_timer``), if any."""
    parts = arg.split(":")
    try:
        return float(parts[2]) if len(parts) > 2 else None
    except ValueError:
        return None
