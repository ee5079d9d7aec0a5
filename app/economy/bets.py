"""Bets: seat holds, the game's escrow, special-table credits (settlement.py pays the
escrow out, and gives everything back when a start fails).

A seat hold is real money moved from the wallet to ``hold:{table}:{user}``, so
"available" is simply the wallet balance and two sits can never spend the same coins.
Starting a game moves every hold into ``game:{id}`` in one transfer; settling pays the
escrow out once (the ``game_bets`` row is locked and its state flips in the same
transaction, and the transfer's idempotency key ``settle:{game}`` is the backstop).
"""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.config import Settings
from app.core.db import utcnow
from app.core.errors import AppError
from app.economy import ledger, levels
from app.economy.errors import MAX_AMOUNT, insufficient_funds
from app.economy.ledger import COINS, CREDITS, InsufficientFunds
from app.economy.models import GameBet
from app.economy.notify import Outbox
from app.economy.stakes import check_stake
from app.economy.wallets import ensure_wallet
from app.users.models import User


def check_bet(bet: int) -> None:
    if bet < 0 or bet > MAX_AMOUNT:
        raise AppError("invalid_bet", f"A bet must be between 0 and {MAX_AMOUNT} coins.", 400)


async def reserve_seat(
    db: AsyncSession, settings: Settings, outbox: Outbox, user_id: int, table_id: str, bet: int
) -> None:
    """Hold the bet for this seat. A seat and its hold are one unit: a hold that already
    exists belongs to another sit of the same player (seated, or sitting down right now),
    so this one is refused and changes nothing; only the sit that made a hold may give it
    back (``release_seat``) when it loses its race for the seat."""
    check_bet(bet)
    if bet == 0:
        return
    await check_stake(db, settings, user_id, bet)
    await ensure_wallet(db, user_id, settings)
    w, h = ledger.wallet(user_id, COINS), ledger.seat_hold(table_id, user_id)
    await ledger.ensure(db, [h])
    locked = await ledger.lock(db, [w.key, h.key])
    if locked[h.key].balance > 0:
        raise AppError("already_seated", "You already sit at that table.", 409)
    try:
        await ledger.post(
            db,
            key=f"hold:{table_id}:{user_id}:{uuid.uuid4().hex}",
            kind="hold",
            moves={w.key: -bet, h.key: bet},
            locked=locked,
        )
    except InsufficientFunds:
        raise insufficient_funds(COINS) from None
    outbox.wallet_changed(user_id)


async def release_seat(db: AsyncSession, outbox: Outbox, user_id: int, table_id: str) -> bool:
    """The seat's hold back to the wallet (True), or nothing held (False)."""
    w, h = ledger.wallet(user_id, COINS), ledger.seat_hold(table_id, user_id)
    locked = await ledger.lock(db, [w.key, h.key])
    held = locked[h.key].balance if h.key in locked else 0
    if held <= 0 or w.key not in locked:
        return False
    await ledger.post(
        db,
        key=f"release:{table_id}:{user_id}:{uuid.uuid4().hex}",
        kind="release",
        moves={h.key: -held, w.key: held},
        locked=locked,
    )
    outbox.wallet_changed(user_id)
    return True


async def start_game(
    db: AsyncSession,
    settings: Settings,
    outbox: Outbox,
    game_id: str,
    table_id: str,
    bet: int,
    users: list[int],
) -> list[int]:
    """Escrow every stake, all or none. Returns who could not pay (then nothing moved:
    the caller must roll back)."""
    check_bet(bet)
    if await db.get(GameBet, game_id) is not None:
        return []  # already started
    people = sorted(set(users))
    if bet > 0:
        # An account that no longer exists (its seat outlived it) cannot stake: it is
        # answered like one that cannot pay, before any wallet is made for it.
        found = set((await db.execute(select(User.id).where(User.id.in_(people)))).scalars())
        gone = [u for u in people if u not in found]
        if gone:
            return gone
        for user_id in people:
            await ensure_wallet(db, user_id, settings)
    escrow = ledger.game_escrow(game_id)
    await ledger.ensure(db, [escrow])
    keys = [escrow.key, f"special:{table_id}", ledger.house("special", CREDITS).key]
    for u in people:
        keys += [ledger.wallet(u, COINS).key, ledger.seat_hold(table_id, u).key]
    locked = await ledger.lock(db, keys)
    if await ledger.key_used(db, f"start:{game_id}"):
        return []  # a concurrent call started it while we waited for the locks
    moves, failed = _stake_moves(locked, table_id, bet, people)
    if failed:
        return failed
    moves[escrow.key] = bet * len(people)
    await ledger.post(db, key=f"start:{game_id}", kind="stake", moves=moves, locked=locked)
    db.add(
        GameBet(
            game_id=game_id,
            table_id=table_id,
            bet=bet,
            state="escrowed",
            stakes={str(u): bet for u in people} if bet > 0 else {},
        )
    )
    await _consume_special(db, table_id, game_id, locked)
    await db.flush()
    outbox.wallet_changed(*people)
    return []


def _stake_moves(
    locked: dict[str, ledger.Locked], table_id: str, bet: int, people: list[int]
) -> tuple[dict[str, int], list[int]]:
    moves: dict[str, int] = {}
    failed = []
    for u in people:
        w, h = ledger.wallet(u, COINS).key, ledger.seat_hold(table_id, u).key
        held = locked[h].balance if h in locked else 0
        have = held + (locked[w].balance if w in locked else 0)
        if bet > 0 and have < bet:
            failed.append(u)
            continue
        if held:
            moves[h] = -held
        # Take the stake from the hold first; any excess hold goes back to the wallet.
        moves[w] = held - bet
        if moves[w] == 0:
            del moves[w]
    return moves, failed


async def _consume_special(
    db: AsyncSession, table_id: str, game_id: str, locked: dict[str, ledger.Locked]
) -> None:
    """The special table started: its creator's credit is spent for good."""
    hold = locked.get(f"special:{table_id}")
    if hold is None or hold.balance <= 0:
        return
    fee = ledger.house("special", CREDITS)
    await ledger.ensure(db, [fee])
    if fee.key not in locked:
        locked.update(await ledger.lock(db, [fee.key]))
    await ledger.post(
        db,
        key=f"special:spent:{table_id}:{game_id}",
        kind="special_fee",
        moves={hold.key: -hold.balance, fee.key: hold.balance},
        locked=locked,
    )


async def charge_special_table(
    db: AsyncSession, settings: Settings, outbox: Outbox, user_id: int, table_id: str
) -> None:
    if await levels.level_of(db, user_id) < settings.special_table_level:
        raise AppError(
            "level_too_low",
            f"Special tables unlock at level {settings.special_table_level}.",
            403,
        )
    await ensure_wallet(db, user_id, settings)
    w, h = ledger.wallet(user_id, CREDITS), ledger.special_hold(table_id, user_id)
    await ledger.ensure(db, [h])
    locked = await ledger.lock(db, [w.key, h.key])
    if locked[h.key].balance > 0:
        if locked[h.key].user_id != user_id:
            raise AppError("conflict", "This table was already paid for by someone else.", 409)
        return  # already charged
    try:
        await ledger.post(
            db,
            key=f"special:charge:{table_id}:{uuid.uuid4().hex}",
            kind="special_hold",
            moves={w.key: -1, h.key: 1},
            locked=locked,
        )
    except InsufficientFunds:
        raise insufficient_funds(CREDITS) from None
    outbox.wallet_changed(user_id)


async def refund_special_table(
    db: AsyncSession, outbox: Outbox, user_id: int, table_id: str
) -> None:
    h = ledger.special_hold(table_id, user_id)
    w = ledger.wallet(user_id, CREDITS)
    locked = await ledger.lock(db, [w.key, h.key])
    hold = locked.get(h.key)
    if hold is None or hold.balance <= 0 or hold.user_id != user_id or w.key not in locked:
        return  # never charged, already refunded, or already spent by a started game
    await ledger.post(
        db,
        key=f"special:refund:{table_id}:{uuid.uuid4().hex}",
        kind="special_refund",
        moves={h.key: -hold.balance, w.key: hold.balance},
        locked=locked,
    )
    outbox.wallet_changed(user_id)


async def locked_bet(db: AsyncSession, game_id: str) -> GameBet | None:
    stmt = select(GameBet).where(GameBet.game_id == game_id).with_for_update()
    return (await db.execute(stmt)).scalar_one_or_none()


def mark_settled(bet: GameBet, state: str) -> None:
    bet.state = state
    bet.settled_at = utcnow()
