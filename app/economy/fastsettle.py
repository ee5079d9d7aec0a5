"""PostgreSQL fast path for settling a game: the whole settlement in one statement.

The generic path (``settlement.py``, which SQLite runs) makes about ten round trips in a
transaction. Here one data-modifying statement, sent on the driver's connection with no
BEGIN/COMMIT around it (a single statement is its own transaction, so it is all or
nothing), does, each step reading the one before it so that the row locks are always
taken in the generic path's order (the bet row, then the accounts in id order, then the
stats rows):

1. ``b``: flips the ``game_bets`` row from ``escrowed`` to settled/void, only when its
   stakes are the ones the plan was computed from. The UPDATE locks the row and, under
   READ COMMITTED, re-checks ``state`` on the newest version: of 20 concurrent
   settlements exactly one matches; the others match nothing and write nothing.
2. ``t``: claims the idempotency key ``settle:{game}`` (a plain INSERT: a used key is a
   unique violation that aborts the whole statement).
3. ``lk``: locks the accounts (escrow, the winners' wallets, the forfeits house) in id
   order, only once ``t`` was written.
4. ``e``, ``u``: the entries (they sum to zero: checked before sending) and the cached
   balances; the CHECK keeps every non-house balance >= 0.
5. ``r``, ``s``, ``n``: game records, player stats with the level computed in SQL
   (``levels.level_for`` in exact integers), ``level_up`` notifications.

The last SELECT checks what was written (one transfer, every account found and moved,
the escrow holding exactly the stakes) and otherwise fails with a cast error, which
aborts the statement: nothing at all is written. The stakes are first assumed to be
``result.bet`` per person (what ``start_game`` escrows); when the row says otherwise
the real stakes are read and the statement sent again. The pushes use the balances of
the locked rows and go out after the statement has committed.
"""

from __future__ import annotations

import re
from typing import Any

import asyncpg
import orjson
from asyncpg import Connection

from app.core.db import utcnow
from app.economy import ledger
from app.economy.ledger import COINS, CREDITS, DuplicateTransfer
from app.economy.levels import MAX_LEVEL
from app.economy.notify import Outbox
from app.economy.payouts import settle
from app.tables.play.hooks import GameResult

# The level reached with X XP (levels.level_for, exact integers).
_LEVEL = "(SELECT max(n) FROM generate_series(1, {top}) AS n WHERE 50 * n * (n - 1) <= {xp})"

_SETTLE = """
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
    SELECT a.id, a.key, a.balance, a.version FROM accounts AS a
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
    UPDATE accounts AS a SET balance = a.balance + m.amount, version = a.version + 1
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
), g AS (
    SELECT * FROM unnest(CAST(:s_users AS BIGINT[]), CAST(:s_xps AS BIGINT[]),
                         CAST(:s_wins AS INT[])) AS g(user_id, xp, wins)
), s AS (
    INSERT INTO player_stats (user_id, xp, level, games, wins)
    SELECT g.user_id, g.xp, LEVEL_OF_G_XP, 1, g.wins
    FROM g CROSS JOIN ok
    WHERE EXISTS (SELECT 1 FROM b) AND ok.n >= 0
    ON CONFLICT (user_id) DO UPDATE SET
        xp = player_stats.xp + excluded.xp,
        games = player_stats.games + 1,
        wins = player_stats.wins + excluded.wins,
        level = LEVEL_OF_NEW_XP
    RETURNING user_id, xp, level
), up AS (
    -- The level before this game: the stored level is always level_for(xp).
    SELECT s.user_id, s.level, LEVEL_OF_OLD_XP AS previous
    FROM s JOIN g ON g.user_id = s.user_id
), n AS (
    INSERT INTO notifications (user_id, kind, payload, created_at)
    SELECT up.user_id, 'level_up',
           json_build_object('level', up.level, 'previous', up.previous), :now
    FROM up WHERE up.level > up.previous
    ORDER BY up.user_id
    RETURNING id, user_id, CAST(payload AS TEXT) AS payload
), checked AS (
    SELECT
        (SELECT count(*) FROM b) AS matched,
        (SELECT count(*) FROM t) AS transfers,
        (SELECT count(*) FROM e) AS entries,
        (SELECT count(*) FROM u) AS updated,
        (SELECT count(*) FROM r) AS records,
        (SELECT count(*) FROM lk) AS locked,
        (SELECT balance FROM lk WHERE key = :escrow) AS escrow
)
SELECT
    c.matched,
    -- A failed check aborts the whole statement (so nothing at all is written): plain SQL
    -- has no RAISE, so cast a non-constant text to int.
    CASE WHEN c.matched = 0 OR (
        c.transfers = :n_transfers AND c.locked = :n_keys AND c.entries = :n_moves
        AND c.updated = :n_moves AND c.records <= :n_records
        AND (NOT :pays OR c.escrow = :pot)
    ) THEN 0 ELSE CAST((SELECT 'settlement check failed: ' || c.matched) AS INT) END AS ok,
    (SELECT array_agg(lk.key ORDER BY lk.id) FROM lk) AS locked_keys,
    (SELECT array_agg(lk.balance ORDER BY lk.id) FROM lk) AS locked_balances,
    (SELECT array_agg(lk.version ORDER BY lk.id) FROM lk) AS locked_versions,
    (SELECT array_agg(n.id ORDER BY n.id) FROM n) AS note_ids,
    (SELECT array_agg(n.user_id ORDER BY n.id) FROM n) AS note_users,
    (SELECT array_agg(n.payload ORDER BY n.id) FROM n) AS note_payloads
FROM checked AS c
"""
_SETTLE = (
    _SETTLE.replace("LEVEL_OF_G_XP", _LEVEL.format(top=MAX_LEVEL, xp="g.xp"))
    .replace("LEVEL_OF_NEW_XP", _LEVEL.format(top=MAX_LEVEL, xp="player_stats.xp + excluded.xp"))
    .replace("LEVEL_OF_OLD_XP", _LEVEL.format(top=MAX_LEVEL, xp="s.xp - g.xp"))
)


def _positional(sql: str) -> tuple[str, list[str]]:
    """``:name`` placeholders to asyncpg's ``$n`` (names in order of first use)."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return f"${names.index(match.group(1)) + 1}"

    return re.sub(r"(?<![:\w]):([a-z_]+)", number, sql), names


_SETTLE_SQL, _SETTLE_PARAMS = _positional(_SETTLE)


class SettlementMismatch(RuntimeError):
    """The statement found the accounts not as the plan expects: nothing was written."""


def _expected_stakes(result: GameResult) -> dict[int, int]:
    """What ``start_game`` escrows for the people of ``result``: checked by the statement."""
    return dict.fromkeys(result.teams, result.bet) if result.bet > 0 else {}


async def settle_game(conn: Connection, outbox: Outbox, result: GameResult) -> bool | None:
    """Settle on ``conn`` (asyncpg, no transaction open: the statement is its own).

    True: settled now. False: it was already settled. None: not for this path (no
    ``game_bets`` row: a free game never escrowed); nothing was written then.
    """
    stakes = _expected_stakes(result)
    for _ in range(3):
        if await _attempt(conn, outbox, result, stakes):
            return True
        # Not matched: already settled, or the stakes were not the expected ones.
        row = await conn.fetchrow(
            "SELECT state, CAST(stakes AS TEXT) AS stakes FROM game_bets WHERE game_id = $1",
            result.game_id,
        )
        if row is None:
            return None
        if row["state"] != "escrowed":
            return False
        stakes = {int(u): int(v) for u, v in orjson.loads(row["stakes"]).items()}
    return None  # still escrowed after three tries: let the generic path (row lock) decide


async def _attempt(
    conn: Connection, outbox: Outbox, result: GameResult, stakes: dict[int, int]
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
            await conn.execute(_ENSURE_HOUSE, forfeits.key, forfeits.kind, forfeits.currency)
            moves[forfeits.key] = plan.to_house
        keys = sorted({*moves, *(k for u in plan.payouts for k in ledger.wallet_keys(u))})
    if sum(moves.values()) != 0:
        raise ValueError(f"settlement of {result.game_id} does not balance: {moves}")
    counted = [o for o in plan.outcomes if o.outcome != "void"]
    params: dict[str, Any] = {
        "state": "void" if result.winner_team is None else "settled",
        "now": utcnow(),
        "game_id": result.game_id,
        "stakes": orjson.dumps({str(u): s for u, s in stakes.items()}).decode(),
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
        "escrow": escrow,
        "pot": pot,
        "n_transfers": int(bool(stakes)),
        "n_keys": len(keys),
        "n_moves": len(moves),
        "n_records": len(plan.outcomes),
    }
    try:
        row = await conn.fetchrow(_SETTLE_SQL, *(params[n] for n in _SETTLE_PARAMS))
    except asyncpg.UniqueViolationError as exc:
        if exc.constraint_name == "uq_ledger_transfers_idempotency_key":
            raise DuplicateTransfer(params["key"]) from exc
        raise
    except (asyncpg.CheckViolationError, asyncpg.InvalidTextRepresentationError) as exc:
        raise SettlementMismatch(f"settlement of {result.game_id}: {exc}") from exc
    assert row is not None
    if not row["matched"]:
        return False
    locked = zip(
        row["locked_keys"] or [],
        row["locked_balances"] or [],
        row["locked_versions"] or [],
        strict=True,
    )
    new = {k: (b + moves.get(k, 0), v + (k in moves)) for k, b, v in locked}
    for user_id in plan.payouts:
        coins = new[ledger.wallet(user_id, COINS).key]
        credits = new[ledger.wallet(user_id, CREDITS).key]
        outbox.known[user_id] = (coins[0], credits[0], coins[1] + credits[1])
    notes = zip(
        row["note_ids"] or [], row["note_users"] or [], row["note_payloads"] or [], strict=True
    )
    for note_id, user_id, payload in notes:
        outbox.notified(
            user_id,
            {
                "id": note_id,
                "kind": "level_up",
                "payload": orjson.loads(payload),
                "created_at": params["now"].isoformat(),
                "read": False,
            },
        )
    if outbox.unread:  # a level-up: its unread count, read after the commit as usual
        noted = sorted(outbox.unread)
        counts = dict(await conn.fetch(_UNREAD, noted))
        outbox.unread_known.update({u: int(counts.get(u, 0)) for u in noted})
    return True


_UNREAD = """
SELECT user_id, count(*) FROM notifications
WHERE user_id = ANY($1::BIGINT[]) AND read_at IS NULL GROUP BY user_id
"""

_ENSURE_HOUSE = """
INSERT INTO accounts (key, kind, currency, balance) VALUES ($1, $2, $3, 0)
ON CONFLICT (key) DO NOTHING
"""
