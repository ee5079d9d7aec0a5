"""PostgreSQL fast path for settling a game: the whole settlement in one statement.

The generic path (``settlement.py``, also the one SQLite runs) makes about ten round
trips. Here one data-modifying statement does, in this order (each step reads the one
before it, so the row locks are always taken in the same order as the generic path):

1. ``b``: flips the ``game_bets`` row from ``escrowed`` to settled/void, only when its
   stakes are the ones the plan was computed from. The UPDATE locks the row and, under
   READ COMMITTED, re-checks ``state`` on the newest version: of 20 concurrent
   settlements exactly one matches; the others match nothing and write nothing.
2. ``t``: claims the idempotency key ``settle:{game}`` (a plain INSERT: a used key is a
   unique violation that aborts the whole statement).
3. ``lk``: locks the accounts (escrow, the winners' wallets, the forfeits house) in id
   order, only once ``b`` matched.
4. ``e``, ``u``: the entries (summing to zero, checked here before sending) and the
   cached balances; the CHECK keeps every non-house balance >= 0.
5. ``r``, ``s``: the game records and player stats (after every account lock).

After it, Python checks what came back (the escrow is emptied exactly, every entry and
balance was written) and raises otherwise, so the caller's transaction rolls back.
Level-ups (rare) then take the generic code's extra statements.
"""

from __future__ import annotations

from typing import Any

import orjson
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.db import utcnow
from app.economy import ledger, levels
from app.economy.ledger import COINS, CREDITS
from app.economy.models import GameBet
from app.economy.notify import Outbox
from app.economy.payouts import Settlement, settle
from app.tables.hooks import GameResult

_SETTLE = text("""
WITH b AS (
    UPDATE game_bets SET state = :state, settled_at = :now
    WHERE game_id = :game_id AND state = 'escrowed'
      AND CAST(stakes AS JSONB) = CAST(:stakes AS JSONB)
    RETURNING game_id
), t AS (
    INSERT INTO ledger_transfers (idempotency_key, kind, created_at)
    SELECT :key, 'settle', :now FROM b WHERE :pays
    RETURNING id
), m AS (
    SELECT * FROM unnest(CAST(:move_keys AS TEXT[]), CAST(:move_amounts AS BIGINT[]))
        AS m(key, amount)
), lk AS (
    SELECT a.id, a.key, a.balance FROM accounts AS a
    WHERE a.key = ANY(CAST(:keys AS TEXT[])) AND EXISTS (SELECT 1 FROM t)
    ORDER BY a.id
    FOR UPDATE
), ok AS (
    SELECT count(*) AS n FROM lk
), e AS (
    INSERT INTO ledger_entries (transfer_id, account_id, amount)
    SELECT t.id, lk.id, m.amount FROM t, lk JOIN m ON m.key = lk.key
    RETURNING 1
), u AS (
    UPDATE accounts AS a SET balance = a.balance + m.amount
    FROM lk JOIN m ON m.key = lk.key
    WHERE a.id = lk.id
    RETURNING a.id
), r AS (
    INSERT INTO game_records (game_id, user_id, table_id, preset, bet, team, outcome,
                              coins_delta, xp, with_bots, created_at)
    SELECT :game_id, o.user_id, :table_id, :preset, :bet, o.team, o.outcome, o.delta, o.xp,
           :with_bots, :now
    FROM unnest(CAST(:r_users AS BIGINT[]), CAST(:r_teams AS INT[]),
                CAST(:r_outcomes AS TEXT[]), CAST(:r_deltas AS BIGINT[]),
                CAST(:r_xps AS INT[])) AS o(user_id, team, outcome, delta, xp)
    CROSS JOIN ok
    WHERE EXISTS (SELECT 1 FROM b) AND ok.n >= 0
    ON CONFLICT (game_id, user_id) DO NOTHING
    RETURNING 1
), s AS (
    INSERT INTO player_stats (user_id, xp, level, games, wins)
    SELECT g.user_id, g.xp, 1, 1, g.wins
    FROM unnest(CAST(:s_users AS BIGINT[]), CAST(:s_xps AS BIGINT[]),
                CAST(:s_wins AS INT[])) AS g(user_id, xp, wins)
    CROSS JOIN ok
    WHERE EXISTS (SELECT 1 FROM b) AND ok.n >= 0
    ON CONFLICT (user_id) DO UPDATE SET
        xp = player_stats.xp + excluded.xp,
        games = player_stats.games + 1,
        wins = player_stats.wins + excluded.wins
    RETURNING user_id, xp, level
)
SELECT
    (SELECT count(*) FROM b) AS matched,
    (SELECT count(*) FROM t) AS transfers,
    (SELECT count(*) FROM e) AS entries,
    (SELECT count(*) FROM u) AS updated,
    (SELECT count(*) FROM r) AS records,
    (SELECT array_agg(lk.key ORDER BY lk.id) FROM lk) AS locked_keys,
    (SELECT array_agg(lk.balance ORDER BY lk.id) FROM lk) AS locked_balances,
    (SELECT array_agg(s.user_id ORDER BY s.user_id) FROM s) AS stat_users,
    (SELECT array_agg(s.xp ORDER BY s.user_id) FROM s) AS stat_xps,
    (SELECT array_agg(s.level ORDER BY s.user_id) FROM s) AS stat_levels
""")


class SettlementMismatch(RuntimeError):
    """The statement's results disagree with the plan: the transaction must roll back."""


def _expected_stakes(result: GameResult) -> dict[int, int]:
    """What ``start_game`` escrows for the people of ``result``: checked by the statement."""
    return dict.fromkeys(result.teams, result.bet) if result.bet > 0 else {}


async def settle_game(db: AsyncSession, outbox: Outbox, result: GameResult) -> bool | None:
    """True: settled now. False: it was already settled. None: not for this path (no
    ``game_bets`` row: a free game never escrowed); nothing was written then."""
    stakes = _expected_stakes(result)
    for _ in range(2):
        done = await _attempt(db, outbox, result, stakes)
        if done:
            return True
        # Not matched: already settled, or the stakes were not the expected ones.
        row = (await db.execute(
            select(GameBet.state, GameBet.stakes).where(GameBet.game_id == result.game_id)
        )).first()
        if row is None:
            return None
        if row.state != "escrowed":
            return False
        actual = {int(u): int(s) for u, s in row.stakes.items()}
        if actual == stakes:
            continue  # a concurrent settlement rolled back: try again
        stakes = actual
    return None  # contended beyond reason: let the generic path (row lock) decide


async def _attempt(
    db: AsyncSession, outbox: Outbox, result: GameResult, stakes: dict[int, int]
) -> bool:
    plan = settle(result, stakes)
    escrow = ledger.game_escrow(result.game_id).key
    pot = sum(stakes.values())
    moves: dict[str, int] = {ledger.wallet(u, COINS).key: p for u, p in plan.payouts.items()}
    keys: list[str] = []
    if stakes:
        moves[escrow] = -pot
        if plan.to_house:
            forfeits = ledger.house("forfeits", COINS)
            await ledger.ensure(db, [forfeits])
            moves[forfeits.key] = plan.to_house
        keys = sorted({*moves, *(k for u in plan.payouts for k in ledger.wallet_keys(u))})
    if sum(moves.values()) != 0:
        raise ValueError(f"settlement of {result.game_id} does not balance: {moves}")
    counted = [o for o in plan.outcomes if o.outcome != "void"]
    params: dict[str, Any] = {
        "state": "void" if result.winner_team is None else "settled",
        "now": utcnow(),
        "game_id": result.game_id,
        "stakes": _json({str(u): s for u, s in stakes.items()}),
        "key": f"settle:{result.game_id}",
        "pays": bool(stakes),
        "move_keys": list(moves),
        "move_amounts": list(moves.values()),
        "keys": keys,
        "table_id": result.table_id,
        "preset": result.preset,
        "bet": result.bet,
        "with_bots": result.bots > 0,
        "r_users": [o.user_id for o in plan.outcomes],
        "r_teams": [o.team for o in plan.outcomes],
        "r_outcomes": [o.outcome for o in plan.outcomes],
        "r_deltas": [o.payout - o.stake for o in plan.outcomes],
        "r_xps": [o.xp for o in plan.outcomes],
        "s_users": [o.user_id for o in counted],
        "s_xps": [o.xp for o in counted],
        "s_wins": [int(o.outcome == "win") for o in counted],
    }
    try:
        row = (await db.execute(_SETTLE, params)).one()
    except IntegrityError as exc:
        if "balance_nonnegative" in str(exc.orig):
            raise SettlementMismatch(f"escrow of {result.game_id} holds less than its stakes") \
                from exc
        raise
    if not row.matched:
        return False
    _check(result.game_id, row, moves, keys, escrow, pot, plan)
    locked = zip(row.locked_keys or [], row.locked_balances or [], strict=True)
    new = {k: b + moves.get(k, 0) for k, b in locked}
    for user_id in plan.payouts:
        outbox.known[user_id] = (new[ledger.wallet(user_id, COINS).key],
                                 new[ledger.wallet(user_id, CREDITS).key])
    stats = zip(row.stat_users or [], row.stat_xps or [], row.stat_levels or [], strict=True)
    await levels.announce(db, outbox, await levels.store_levels(db, stats))
    return True


def _check(
    game_id: str, row: Any, moves: dict[str, int], keys: list[str], escrow: str, pot: int,
    plan: Settlement,
) -> None:
    if keys:
        locked = dict(zip(row.locked_keys or [], row.locked_balances or [], strict=True))
        problems = []
        if set(locked) != set(keys):
            problems.append(f"accounts missing: {sorted(set(keys) - set(locked))}")
        elif locked[escrow] != pot:
            problems.append(f"escrow holds {locked[escrow]}, stakes are {pot}")
        if (row.transfers, row.entries, row.updated) != (1, len(moves), len(moves)):
            problems.append(f"wrote {row.transfers}/{row.entries}/{row.updated}")
        if problems:
            raise SettlementMismatch(f"settlement of {game_id}: {'; '.join(problems)}")
    elif row.transfers:
        raise SettlementMismatch(f"settlement of {game_id}: a transfer without stakes")
    if row.records > len(plan.outcomes):
        raise SettlementMismatch(f"settlement of {game_id}: {row.records} records")


def _json(value: dict[str, int]) -> str:
    return orjson.dumps(value).decode()
