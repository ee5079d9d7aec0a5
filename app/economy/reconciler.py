"""The reconciler: finds the money that faults leave behind and gives it back, through
the ledger, exactly once.

Faults it repairs (docs/economy.md, "Faults and the reconciler"):

* a seat hold whose table is closed, finished, playing or unknown to Redis, or whose
  player does not sit at the waiting table (a sit that failed in an ambiguous way):
  released to the wallet;
* a special table's credit whose table is closed or unknown: refunded;
* a game escrowed in Postgres whose table no longer exists in Redis (Redis lost it), no
  longer carries that game, or was closed: every stake refunded, the game marked void,
  its players notified;
* a table stuck in ``starting`` (its recovery timer lost): voided like a failed start;
* a finished table whose pot is still escrowed: settled (``TableService.finish``).

Only money untouched for ``reconcile_grace_seconds`` is looked at, so a sit, a start or a
settlement in flight is never taken for a leftover. Every repair is idempotent (row
locks, balances re-read under them, the settlement's ``game_bets`` state and key), so a
second reconciler racing the first, or a process dying mid-run, moves nothing twice.

Any process may run it: every ``reconcile_interval_seconds`` each process tries to
claim the period with one atomic ``SET NX PX`` on Redis, and the one that wins runs it
(the claim lives in Redis, like the turn timers, and comes back by itself when Redis
was flushed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy import func, select

from app.core.db import utcnow
from app.economy.hooks import EconomyTables
from app.economy.models import Account, Entry, GameBet, Transfer
from app.tables.hooks import GameResult
from app.tables.meta import TableMeta
from app.tables.service import TableService

log = logging.getLogger("app.economy.reconciler")

CLAIM_KEY = "reconcile:claim"
BATCH = 500  # rows looked at per run and kind; the next run takes the rest


@dataclass
class Repairs:
    released: list[str] = field(default_factory=list)  # hold account keys
    voided: list[str] = field(default_factory=list)  # game ids
    recovered: list[str] = field(default_factory=list)  # table ids stuck in starting
    finished: list[str] = field(default_factory=list)  # table ids settled late

    def __bool__(self) -> bool:
        return bool(self.released or self.voided or self.recovered or self.finished)


class Reconciler:
    def __init__(self, svc: TableService, econ: EconomyTables) -> None:
        self.svc = svc
        self.econ = econ
        self.settings = svc.settings
        self.task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ the periodic job

    async def start(self) -> None:
        self.task = asyncio.create_task(self._loop(), name="reconciler")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task

    async def _loop(self) -> None:
        interval = self.settings.reconcile_interval_seconds
        while True:
            # Spread the processes' tries over the period; one of them claims it.
            await asyncio.sleep(interval * random.uniform(0.25, 0.5))
            try:
                if await self.claim():
                    await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("reconciler run failed", exc_info=True)

    async def claim(self) -> bool:
        """This period's run, for exactly one process (atomic on Redis)."""
        period_ms = int(self.settings.reconcile_interval_seconds * 1000)
        return bool(await self.svc.redis.set(CLAIM_KEY, self.svc.proc_id, nx=True, px=period_ms))

    async def run_once(self) -> Repairs:
        repairs = Repairs()
        await self._games(repairs)
        await self._holds(repairs)
        if repairs:
            log.warning("reconciler repaired: %s", repairs)
        return repairs

    # ------------------------------------------------------------ what it looks at

    async def _table(self, table_id: str) -> TableMeta | None:
        """The table as Redis holds it; None when Redis does not know it (any other
        Redis error propagates: "cannot tell" must never read as "lost")."""
        loaded = await self.svc.store.load(table_id)
        if loaded is None or loaded.meta is None:
            return None
        return TableMeta.model_validate_json(loaded.meta)

    async def _stale_bets(self) -> list[GameBet]:
        since = utcnow() - timedelta(seconds=self.settings.reconcile_grace_seconds)
        async with self.econ.sessionmaker() as db:
            stmt = (
                select(GameBet)
                .where(GameBet.state == "escrowed", GameBet.created_at < since)
                .order_by(GameBet.created_at)
                .limit(BATCH)
            )
            return list((await db.execute(stmt)).scalars())

    async def _stale_holds(self) -> list[tuple[str, int | None]]:
        """(key, owner) of holds with money, untouched for the grace period."""
        since = utcnow() - timedelta(seconds=self.settings.reconcile_grace_seconds)
        last = func.max(Transfer.created_at)
        stmt = (
            select(Account.key, Account.user_id)
            .join(Entry, Entry.account_id == Account.id)
            .join(Transfer, Transfer.id == Entry.transfer_id)
            .where(Account.kind == "hold", Account.balance > 0)
            .group_by(Account.id, Account.key, Account.user_id)
            .having(last < since)
            .limit(BATCH)
        )
        async with self.econ.sessionmaker() as db:
            return [(r[0], r[1]) for r in (await db.execute(stmt)).all()]

    # ------------------------------------------------------------ the repairs

    async def _games(self, repairs: Repairs) -> None:
        for bet in await self._stale_bets():
            meta = await self._table(bet.table_id)
            if meta is not None and meta.game_id == bet.game_id:
                if meta.status == "playing":
                    continue  # a live game
                if meta.status == "finished":
                    await self.svc.finish(meta.id)
                    repairs.finished.append(meta.id)
                    continue
                if meta.status == "starting":
                    await self._stuck(meta, repairs)
                    continue
            if await self.econ.void_lost_game(_void(bet, meta)):
                repairs.voided.append(bet.game_id)

    async def _holds(self, repairs: Repairs) -> None:
        for key, owner in await self._stale_holds():
            kind, table_id, *rest = key.split(":")
            meta = await self._table(table_id)
            if meta is not None and meta.status == "starting":
                await self._stuck(meta, repairs)
                continue
            if kind == "special":
                if owner is not None and (meta is None or meta.status == "closed"):
                    await self.econ.refund_special_table(owner, table_id)
                    repairs.released.append(key)
                continue
            user_id = int(rest[0]) if rest and rest[0].isdigit() else owner
            if user_id is None:
                continue
            seated = (
                meta is not None and meta.status == "waiting" and meta.seat_of(user_id) is not None
            )
            if not seated:
                await self.econ.release_seat(user_id, table_id)
                repairs.released.append(key)

    async def _stuck(self, meta: TableMeta, repairs: Repairs) -> None:
        """A start whose recovery timer was lost: void it as a failed start would, once
        it has been starting for longer than its timer would have waited."""
        waited = self.settings.start_recovery_seconds + self.settings.reconcile_grace_seconds
        if time.time() - (meta.started_at or meta.created_at) < waited:
            return
        if meta.id not in repairs.recovered:
            await self.svc.recover_start(meta.id)
            repairs.recovered.append(meta.id)


def _void(bet: GameBet, meta: TableMeta | None) -> GameResult:
    people = {int(u): 0 for u in bet.stakes}
    return GameResult(
        game_id=bet.game_id,
        table_id=bet.table_id,
        preset=meta.preset if meta is not None else "unknown",
        bet=bet.bet,
        teams=people,
        abandoned=frozenset(),
        winner_team=None,
        bots=0,
    )
