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

Each run looks at one page (``batch`` rows) of each kind, oldest first, and the next run
goes on after it (a cursor kept in Redis beside the claim), back to the start after the
last page: at scale the oldest pots are live games, which a run that always began at the
start would read every period while a lost game behind them waited. A page's tables are
read from Redis in one round trip (their metas only), and only a table that may need a
repair is parsed whole.

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
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import and_, func, or_, select

from app.core.db import utcnow
from app.core.tasks import cancel_and_wait
from app.economy.hooks import EconomyTables
from app.economy.models import Account, Entry, GameBet, Transfer
from app.tables.play.hooks import GameResult
from app.tables.play.service import TableService
from app.tables.storage.meta import TableMeta
from app.tables.storage.store import k_hash

log = logging.getLogger("app.economy.reconciler")

CLAIM_KEY = "reconcile:claim"
CURSOR_KEY = "reconcile:after:"  # + "games" or "holds": where the next run goes on
BATCH = 500  # rows looked at per run and kind; the next run takes the next ones


@dataclass
class Repairs:
    released: list[str] = field(default_factory=list)  # hold account keys
    voided: list[str] = field(default_factory=list)  # game ids
    recovered: list[str] = field(default_factory=list)  # table ids stuck in starting
    finished: list[str] = field(default_factory=list)  # table ids settled late

    def __bool__(self) -> bool:
        return bool(self.released or self.voided or self.recovered or self.finished)


class Reconciler:
    def __init__(self, svc: TableService, econ: EconomyTables, batch: int = BATCH) -> None:
        self.svc = svc
        self.econ = econ
        self.settings = svc.settings
        self.batch = batch
        self.task: asyncio.Task[None] | None = None
        # Repairs of other packages run in the same claimed period (a tournament left
        # half-paid: app/tournaments/money.py), each after the economy's own.
        self.extra: list[Callable[[], Awaitable[object]]] = []

    # ------------------------------------------------------------ the periodic job

    async def start(self) -> None:
        self.task = asyncio.create_task(self._loop(), name="reconciler")

    async def stop(self) -> None:
        await cancel_and_wait(self.task)

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
        for job in self.extra:
            await job()
        if repairs:
            log.warning("reconciler repaired: %s", repairs)
        return repairs

    # ------------------------------------------------------------ what it looks at

    async def _metas(self, table_ids: list[str]) -> list[dict[str, Any] | None]:
        """Each table's meta as Redis holds it, in one round trip (one per hash slot on a
        cluster); None where Redis does not know the table. Any Redis error propagates:
        "cannot tell" must never read as "lost"."""
        raws = await self.svc.store.many([("hget", (k_hash(t), "meta")) for t in table_ids])
        return [orjson.loads(raw) if raw else None for raw in raws]

    async def _cursor(self, kind: str) -> str | None:
        raw = await self.svc.redis.get(CURSOR_KEY + kind)
        return raw.decode() if isinstance(raw, bytes) else raw

    async def _move_cursor(self, kind: str, after: str | None) -> None:
        """Where the next run of this kind goes on; None: from the start (this page was
        the last one)."""
        if after is None:
            await self.svc.redis.delete(CURSOR_KEY + kind)
        else:
            await self.svc.redis.set(CURSOR_KEY + kind, after)

    async def _stale_bets(self) -> list[Any]:
        """The next page of escrowed pots older than the grace, oldest first (the
        columns a repair needs, not whole rows)."""
        since = utcnow() - timedelta(seconds=self.settings.reconcile_grace_seconds)
        stmt = select(
            GameBet.game_id, GameBet.table_id, GameBet.bet, GameBet.stakes, GameBet.created_at
        ).where(GameBet.state == "escrowed", GameBet.created_at < since)
        after = await self._cursor("games")
        if after:
            at, _, game_id = after.partition(" ")
            when = datetime.fromisoformat(at)
            stmt = stmt.where(
                or_(
                    GameBet.created_at > when,
                    and_(GameBet.created_at == when, GameBet.game_id > game_id),
                )
            )
        stmt = stmt.order_by(GameBet.created_at, GameBet.game_id).limit(self.batch)
        async with self.econ.sessionmaker() as db:
            return list((await db.execute(stmt)).all())

    async def _stale_holds(self) -> list[tuple[int, str, int | None]]:
        """(id, key, owner) of the next page of holds with money, untouched for the
        grace period."""
        since = utcnow() - timedelta(seconds=self.settings.reconcile_grace_seconds)
        last = func.max(Transfer.created_at)
        stmt = (
            select(Account.id, Account.key, Account.user_id)
            .join(Entry, Entry.account_id == Account.id)
            .join(Transfer, Transfer.id == Entry.transfer_id)
            .where(Account.kind == "hold", Account.balance > 0)
        )
        after = await self._cursor("holds")
        if after:
            stmt = stmt.where(Account.id > int(after))
        stmt = (
            stmt.group_by(Account.id, Account.key, Account.user_id)
            .having(last < since)
            .order_by(Account.id)
            .limit(self.batch)
        )
        async with self.econ.sessionmaker() as db:
            return [(r[0], r[1], r[2]) for r in (await db.execute(stmt)).all()]

    # ------------------------------------------------------------ the repairs

    async def _games(self, repairs: Repairs) -> None:
        bets = await self._stale_bets()
        for bet, raw in zip(bets, await self._metas([b.table_id for b in bets]), strict=True):
            meta: TableMeta | None
            if raw is not None and raw.get("game_id") == bet.game_id:
                if raw.get("status") == "playing":
                    continue  # a live game: the common case, read without parsing it whole
                meta = TableMeta.model_validate(raw)
                if meta.status == "finished":
                    await self.svc.finish(meta.id)
                    repairs.finished.append(meta.id)
                    continue
                if meta.status == "starting":
                    await self._stuck(meta, repairs)
                    continue
            else:
                meta = TableMeta.model_validate(raw) if raw is not None else None
            if await self.econ.void_lost_game(_void(bet, meta)):
                repairs.voided.append(bet.game_id)
        last = bets[-1] if len(bets) == self.batch else None
        await self._move_cursor(
            "games", None if last is None else f"{last.created_at.isoformat()} {last.game_id}"
        )

    async def _holds(self, repairs: Repairs) -> None:
        holds = await self._stale_holds()
        table_ids = [key.split(":")[1] for _, key, _ in holds]
        for (_, key, owner), raw in zip(holds, await self._metas(table_ids), strict=True):
            kind, table_id, *rest = key.split(":")
            meta = TableMeta.model_validate(raw) if raw is not None else None
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
        await self._move_cursor("holds", str(holds[-1][0]) if len(holds) == self.batch else None)

    async def _stuck(self, meta: TableMeta, repairs: Repairs) -> None:
        """A start whose recovery timer was lost: void it as a failed start would, once
        it has been starting for longer than its timer would have waited."""
        waited = self.settings.start_recovery_seconds + self.settings.reconcile_grace_seconds
        if time.time() - (meta.started_at or meta.created_at) < waited:
            return
        if meta.id not in repairs.recovered:
            await self.svc.recover_start(meta.id)
            repairs.recovered.append(meta.id)


def _void(bet: Any, meta: TableMeta | None) -> GameResult:
    """``bet``: a row of ``_stale_bets`` (game_id, table_id, bet, stakes)."""
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
