"""``EconomyTables``: the live tables' ``TableHooks`` backed by the ledger.

Each call is its own transaction: it commits, then pushes the changed wallets (and any
notification) to the players. Every call is idempotent (see app/economy/bets.py), and a
refusal is an ``AppError`` with a stable code after which nothing has moved.

Wiring (in create_app's lifespan)::

    app.state.table_hooks = EconomyTables(app.state.sessionmaker, settings, Notifier(redis))
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.db import current_session, unit_of_work, utcnow
from app.economy import bets, fastsettle, integrity, settlement, stakes
from app.economy.ledger import DuplicateTransfer
from app.economy.models import GameBet
from app.economy.notify import Notifier, Outbox
from app.tables.play.hooks import GameResult

T = TypeVar("T")
log = logging.getLogger("app.economy")


class _Unpaid(Exception):
    def __init__(self, users: list[int]) -> None:
        super().__init__(users)
        self.users = users


class EconomyTables:
    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        settings: Settings,
        notifier: Notifier,
    ) -> None:
        self.sessionmaker = sessionmaker
        self.settings = settings
        self.notifier = notifier
        self.engine: AsyncEngine = sessionmaker.kw["bind"]
        self._postgres = self.engine.dialect.name == "postgresql"

    async def _run(self, work: Callable[[AsyncSession, Outbox], Awaitable[T]]) -> T:
        """One transaction on the request's or job's own session (``unit_of_work``: never
        a second pooled connection while the caller holds one): commit, then push."""
        outbox = Outbox()
        async with unit_of_work(self.sessionmaker) as db:
            try:
                value = await work(db, outbox)
                await db.commit()
            except BaseException:
                await db.rollback()
                raise
            await self._push(outbox, db)
            return value

    async def _push(self, outbox: Outbox, db: AsyncSession | None) -> None:
        """After the commit: a push that fails (Redis away) must not turn a done movement
        into an error (the caller would undo or retry it); clients re-read on reconnect."""
        try:
            await outbox.flush(db, self.notifier)
        except Exception:
            log.warning("pushes after a commit failed", exc_info=True)

    async def _settle_fast(self, result: GameResult) -> bool:
        """PostgreSQL: the settlement is one statement on the driver's connection, in its
        own implicit transaction (see fastsettle). False: the generic path must do it:
        inside a request or job that holds a session (it runs on that session, and a
        second connection is never checked out), or when the chip-dumping checks could
        hold any of the winnings (read first on the same connection, one statement)."""
        if current_session() is not None:
            return False
        outbox = Outbox()
        try:
            async with self.engine.connect() as conn:
                raw = (await conn.get_raw_connection()).driver_connection
                if await self._may_hold(raw, result):
                    return False
                done = await fastsettle.settle_game(raw, outbox, result)
        except DuplicateTransfer:
            if not await self._game_recorded(result.game_id):
                raise
            return True
        if done is None:
            return False
        if outbox.needs_reads():  # not so far: the statement returned all it pushes
            async with unit_of_work(self.sessionmaker) as db:
                await self._push(outbox, db)
        else:
            await self._push(outbox, None)
        return True

    async def _game_recorded(self, game_id: str) -> bool:
        async with unit_of_work(self.sessionmaker) as db:
            return await db.get(GameBet, game_id) is not None

    async def charge_special_table(self, user_id: int, table_id: str) -> None:
        await self._run(
            lambda db, box: bets.charge_special_table(db, self.settings, box, user_id, table_id)
        )

    async def refund_special_table(self, user_id: int, table_id: str) -> None:
        await self._run(lambda db, box: bets.refund_special_table(db, box, user_id, table_id))

    async def reserve_seat(self, user_id: int, table_id: str, bet: int) -> None:
        await self._run(
            lambda db, box: bets.reserve_seat(db, self.settings, box, user_id, table_id, bet)
        )

    async def release_seat(self, user_id: int, table_id: str) -> None:
        await self._run(lambda db, box: bets.release_seat(db, box, user_id, table_id))

    async def start_game(
        self, game_id: str, table_id: str, bet: int, users: list[int]
    ) -> list[int]:
        async def escrow(db: AsyncSession, outbox: Outbox) -> list[int]:
            failed = await bets.start_game(db, self.settings, outbox, game_id, table_id, bet, users)
            if failed:
                raise _Unpaid(failed)  # rolled back: nothing moved
            return failed

        try:
            await self._run(escrow)
        except _Unpaid as unpaid:
            return unpaid.users
        except (DuplicateTransfer, IntegrityError):
            # Lost a race with a concurrent start of the same game: same answer as a
            # replay. Anything else (an unknown user, say) is a real error.
            if not await self._game_recorded(game_id):
                raise
        return []

    async def abort_start(self, result: GameResult) -> bool:
        return await self._run(lambda db, box: settlement.abort_start(db, box, result))

    async def void_lost_game(self, result: GameResult) -> bool:
        """The reconciler's repair of a game whose table was lost (settlement.py)."""
        return await self._run(lambda db, box: settlement.void_and_notify(db, box, result))

    async def _may_hold(self, raw: Any, result: GameResult) -> bool:
        """Whether the chip-dumping checks could hold any of this game's winnings: then
        the generic path settles it (integrity.py), checking under row locks; the
        one-statement fast path pays wallets only. ``raw``: the fast path's own asyncpg
        connection, read in no transaction (a session's BEGIN and COMMIT, and a second
        connection, would halve the settlements a second)."""
        if result.winner_team is None or result.bet <= 0:
            return False
        who = await stakes.people_raw(raw, set(result.teams))
        return integrity.reviewable(self.settings, result, who, utcnow())

    async def settle_game(self, result: GameResult) -> None:
        if self._postgres and current_session() is None and await self._settle_fast(result):
            return
        try:
            await self._run(lambda db, box: settlement.settle_game(db, box, result, self.settings))
        except (DuplicateTransfer, IntegrityError):
            if not await self._game_recorded(result.game_id):
                raise  # not a lost race with a concurrent settlement
