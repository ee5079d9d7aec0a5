"""Paying a finished game's pot exactly once, recording results, XP and level-ups; giving
back what a failed start escrowed or held."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.config import Settings
from app.core.db import utcnow
from app.economy import integrity, ledger, levels
from app.economy.bets import locked_bet, mark_settled, release_seat
from app.economy.holds import withheld
from app.economy.ledger import COINS
from app.economy.models import GameBet, GameRecord
from app.economy.notify import Outbox
from app.economy.payouts import Settlement, settle
from app.economy.sql import insert_ignore, table_of
from app.social import notifications
from app.tables.play.hooks import GameResult


async def settle_game(
    db: AsyncSession, outbox: Outbox, result: GameResult, settings: Settings | None = None
) -> bool:
    """Returns False when the game was already settled (nothing changed).

    The generic path (SQLite, and what PostgreSQL's one-statement ``fastsettle`` leaves
    to it: a game that was never escrowed, or one whose winnings are held). With
    ``settings``, the chip-dumping checks (integrity.py) decide what is held; a void game
    (the only kind settled without them) holds nothing.
    """
    bet = await locked_bet(db, result.game_id)
    if bet is None:
        # Never escrowed (a free game): claim the id so results are recorded once.
        await insert_ignore(
            db,
            table_of(GameBet),
            [
                {
                    "game_id": result.game_id,
                    "table_id": result.table_id,
                    "bet": 0,
                    "stakes": {},
                    "state": "escrowed",
                    "created_at": utcnow(),
                }
            ],
            ["game_id"],
        )
        bet = await locked_bet(db, result.game_id)
        assert bet is not None
    if bet.state != "escrowed":
        return False
    stakes = {int(u): s for u, s in bet.stakes.items()}
    plan = settle(result, stakes)
    verdict = integrity.Verdict()
    if settings is not None and plan.payouts:
        # The winners' wallet rows first: two settlements won by the same person check
        # one after the other, each seeing what the other recorded (a ring's games end
        # at once; checked side by side, none would see the others).
        await ledger.lock(db, [k for u in sorted(plan.payouts) for k in ledger.wallet_keys(u)])
        now = utcnow()
        verdict = await integrity.assess(db, settings, result, stakes, bet.created_at, now)
        await integrity.record(db, verdict, result.game_id, now)
    await _pay(db, outbox, result.game_id, plan, stakes, verdict.holds)
    mark_settled(bet, "void" if result.winner_team is None else "settled")
    await _record(db, outbox, result, plan)
    await db.flush()
    return True


async def abort_start(db: AsyncSession, outbox: Outbox, result: GameResult) -> bool:
    """A start that failed, at whatever step: every stake it escrowed goes back (the game
    is void: ``result.winner_team`` is None) and every hold it did not escrow is
    released, in this one transaction. True when money moved back."""
    assert result.winner_team is None
    refunded = await db.get(GameBet, result.game_id) is not None and await settle_game(
        db, outbox, result
    )
    for user_id in sorted(result.teams):
        refunded = await release_seat(db, outbox, user_id, result.table_id) or refunded
    return refunded


async def void_and_notify(db: AsyncSession, outbox: Outbox, result: GameResult) -> bool:
    """Void a game whose table was lost: every stake back, the game marked void, and each
    player told, in one transaction. False (nothing changed) when it was settled."""
    bet = await locked_bet(db, result.game_id)
    stakes = dict(bet.stakes) if bet is not None else {}
    if not await settle_game(db, outbox, result):
        return False
    for user, stake in sorted(stakes.items()):
        await notifications.add(
            db,
            outbox,
            int(user),
            "game_voided",
            {
                "game_id": result.game_id,
                "table_id": result.table_id,
                "amount": stake,
                "currency": COINS,
            },
        )
    return True


async def _pay(
    db: AsyncSession,
    outbox: Outbox,
    game_id: str,
    plan: Settlement,
    stakes: dict[int, int],
    held: dict[int, int],
) -> None:
    """The pot out of escrow; each winner's ``held`` part to their withheld account."""
    if not stakes:
        return
    escrow = ledger.game_escrow(game_id).key
    forfeits = ledger.house("forfeits", COINS)
    moves = {ledger.wallet(u, COINS).key: p - held.get(u, 0) for u, p in plan.payouts.items()}
    if held:
        await ledger.ensure(db, [withheld(u) for u in held])
        moves.update({withheld(u).key: amount for u, amount in held.items()})
    keys = [escrow, *moves]
    for user_id in plan.payouts:
        keys += ledger.wallet_keys(user_id)
    if plan.to_house:
        await ledger.ensure(db, [forfeits])
        moves[forfeits.key] = plan.to_house
        keys.append(forfeits.key)
    locked = await ledger.lock(db, keys)
    moves[escrow] = -locked[escrow].balance
    await ledger.post(db, key=f"settle:{game_id}", kind="settle", moves=moves, locked=locked)
    outbox.wallet_locked(locked, *plan.payouts)


async def _record(db: AsyncSession, outbox: Outbox, result: GameResult, plan: Settlement) -> None:
    now = utcnow()
    rows = [
        {
            "game_id": result.game_id,
            "user_id": o.user_id,
            "table_id": result.table_id,
            "preset": result.preset,
            "bet": result.bet,
            "team": o.team,
            "outcome": o.outcome,
            "coins_delta": o.payout - o.stake,
            "xp": o.xp,
            "with_bots": result.bots > 0,
            "created_at": now,
        }
        for o in plan.outcomes
    ]
    await insert_ignore(db, table_of(GameRecord), rows, ["game_id", "user_id"])
    counted = [(o.user_id, o.xp, o.outcome == "win") for o in plan.outcomes if o.outcome != "void"]
    await levels.announce(db, outbox, await levels.add_games(db, counted))
