"""The tournament runner: idempotent steps that any process may take.

Every ``tournament_tick_seconds`` each process tries to claim the tick (one atomic
``SET NX PX`` on Redis, as the reconciler claims its period); the one that wins looks at
every tournament not yet over and takes the step it is due:

* ``registering``: a full Sit & Go starts (a Sit & Go that allows bots fills its empty
  places with bots once ``bot_fill_seconds`` have passed since it opened); a scheduled
  tournament at its start time starts, or is cancelled with every entrant refunded when
  it has fewer than its minimum.
* ``running``: a match whose table finished gets its result (the table service's
  finished hook records it at once; the tick is the backstop); a round whose matches
  are all done is followed by the next one, or by the final ranking and the prizes.
* ``paying``: the prizes not yet paid are paid (money.pay).

Each step reads and writes Postgres under the tournament's row lock, checks that what
it is about to do has not been done (the round number, a match's state), and makes
tables with ids fixed by the match: a process that dies anywhere leaves a state the
next tick (on any process) carries on from.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.db import utcnow
from app.core.errors import AppError
from app.core.tasks import cancel_and_wait
from app.economy.notify import Notifier, Outbox
from app.rules.state import State
from app.tables.play.service import TableService
from app.tables.storage.meta import BOT_NAMES, TableMeta
from app.tables.storage.store import LOBBY_CHANNEL
from app.tournaments import money, service
from app.tournaments.models import Entrant, Match, Tournament
from app.tournaments.pairing import (
    BYE_VP,
    Pair,
    knockout_first_round,
    knockout_next_round,
    swiss_first_round,
    swiss_round,
)
from app.tournaments.scoring import round_victory_points as victory_points
from app.tournaments.seeding import draw_key, ratings_for
from app.tournaments.tables import open_match_table, parse_table_id, parse_tag, seats_for

log = logging.getLogger("app.tournaments.runner")

CLAIM_KEY = "tournaments:tick"
Maker = async_sessionmaker[AsyncSession]


async def replay_gate(table_id: str, db: AsyncSession) -> None:
    """A game of a duplicate tournament replays once its whole round is over: until then
    other tables are playing the same deals, and its replay would show them their cards."""
    try:
        tournament_id, round_no, _ = parse_table_id(table_id)
    except ValueError:
        return  # not a tournament's table
    duplicate = await db.scalar(select(Tournament.duplicate).where(Tournament.id == tournament_id))
    if not duplicate:
        return
    playing = await db.scalar(
        select(func.count())
        .select_from(Match)
        .where(
            Match.tournament_id == tournament_id,
            Match.round_no == round_no,
            Match.state != "done",
        )
    )
    if playing:
        raise AppError(
            "round_live",
            "Other tables of this round are still playing the same deals; its replay opens"
            " when the round is over.",
            409,
        )


class TournamentRunner:
    def __init__(self, maker: Maker, svc: TableService, notifier: Notifier) -> None:
        self.maker = maker
        self.svc = svc
        self.notifier = notifier
        self.settings: Settings = svc.settings
        self.task: asyncio.Task[None] | None = None
        self.kicked: set[asyncio.Task[None]] = set()
        svc.finished_hooks.append(self.on_table_finished)
        svc.replay_gates.append(replay_gate)

    def kick(self, tournament_id: int) -> None:
        """Take the tournament's next step now, in a task of its own (a request's session
        is never shared with it), rather than at the next tick."""
        task = asyncio.create_task(self._kicked(tournament_id), name=f"tournament-{tournament_id}")
        self.kicked.add(task)
        task.add_done_callback(self.kicked.discard)

    async def _kicked(self, tournament_id: int) -> None:
        try:
            await self.publish(tournament_id)
            await self.step(tournament_id)
        except Exception:
            log.warning("tournament %s: step failed", tournament_id, exc_info=True)

    # ------------------------------------------------------------ the periodic job

    async def start(self) -> None:
        """The periodic job, unless this process leaves the ticks to others
        (``tournament_runner``); a step kicked by a request runs either way."""
        if self.settings.tournament_runner:
            self.task = asyncio.create_task(self._loop(), name="tournaments")

    async def stop(self) -> None:
        await cancel_and_wait(self.task)
        for task in list(self.kicked):  # a kicked step holds a session: done before dispose
            await cancel_and_wait(task)

    async def _loop(self) -> None:
        tick = self.settings.tournament_tick_seconds
        while True:
            await asyncio.sleep(tick)
            try:
                if await self.svc.redis.set(
                    CLAIM_KEY, self.svc.proc_id, nx=True, px=max(int(tick * 900), 1)
                ):
                    await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("tournament tick failed", exc_info=True)

    async def run_once(self) -> list[int]:
        async with self.maker() as db:
            stmt = select(Tournament.id).where(
                Tournament.state.in_(("registering", "running", "paying", "cancelling"))
            )
            ids = [int(i) for i in (await db.execute(stmt.order_by(Tournament.id))).scalars()]
        for tournament_id in ids:
            try:
                await self.step(tournament_id)
            except Exception:
                log.warning("tournament %s: step failed", tournament_id, exc_info=True)
        return ids

    async def step(self, tournament_id: int) -> None:
        async with self.maker() as db:
            state = await db.scalar(select(Tournament.state).where(Tournament.id == tournament_id))
        if state == "registering":
            await self.maybe_start(tournament_id)
        elif state == "running":
            await self.advance(tournament_id)
        elif state in ("paying", "cancelling"):
            await money.repair(self.maker, self.notifier)
            await self.publish(tournament_id)

    # ------------------------------------------------------------ starting

    async def maybe_start(self, tournament_id: int) -> bool:
        async with self.maker() as db:
            t = await money.locked_tournament(db, tournament_id)
            if t.state != "registering":
                return False
            entrants = await money.active_entrants(db, t.id)
            now, need = utcnow(), money.places(t)
            if t.kind == "sitgo":
                if len(entrants) < need:
                    waited = (now - t.created_at).total_seconds()
                    if not (t.allow_bots and entrants and waited >= t.bot_fill_seconds):
                        return False
                    for i in range(need - len(entrants)):
                        name = f"Bot {BOT_NAMES[i % len(BOT_NAMES)]}"
                        db.add(Entrant(tournament_id=t.id, name=name, bot=True, paid=0))
                    await db.flush()
                    entrants = await money.active_entrants(db, t.id)
            else:
                if t.starts_at is None or t.starts_at > now:
                    return False
                per_side = 2 if t.players == 4 else 1
                if len(entrants) < t.min_entrants * per_side:
                    await money.cancel(db, Outbox(), t.id)
                    await db.commit()
                    await self.publish(t.id)
                    return False
                if len(entrants) % per_side:  # a pairs tournament: the last one has no partner
                    await money.refund_entrant(db, Outbox(), t, entrants.pop())
            await self._seed(db, t, entrants)
            t.state, t.started_at, t.current_round = "running", now, 1
            t.version += 1
            sides = service.sides_of(t, entrants)
            first = knockout_first_round if t.format == "knockout" else swiss_first_round
            self._add_round(db, t, 1, first(sides))
            await db.commit()
        await self.publish(tournament_id)
        await self.open_tables(tournament_id)
        return True

    async def _seed(self, db: AsyncSession, t: Tournament, entrants: list[Entrant]) -> None:
        """Seeds by rating (the strongest 1), ties drawn with the tournament's secret; at
        4 players seed k partners seed n+1-k, and the pair's number is its first id."""
        people = [e.user_id for e in entrants if e.user_id is not None]
        ratings = await ratings_for(db, people, t.preset, t.players)
        for e in entrants:
            e.rating = ratings.get(e.user_id, 0.0) if e.user_id is not None else 0.0
        ordered = sorted(entrants, key=lambda e: (-e.rating, draw_key(t.seed, e.id)))
        for n, e in enumerate(ordered, start=1):
            e.seed = n
        if t.players == 4:
            half = len(ordered) // 2
            for k in range(half):
                a, b = ordered[k], ordered[len(ordered) - 1 - k]
                a.team = b.team = min(a.id, b.id)
        await db.flush()

    def _add_round(self, db: AsyncSession, t: Tournament, round_no: int, pairs: list[Pair]) -> None:
        deadline = utcnow() + timedelta(seconds=t.round_seconds)
        for table_no, (a, b) in enumerate(pairs, start=1):
            bye = b is None
            db.add(
                Match(
                    tournament_id=t.id,
                    round_no=round_no,
                    table_no=table_no,
                    side_a=a,
                    side_b=b,
                    state="done" if bye else "pending",
                    deadline=deadline,
                    vp_a=BYE_VP if bye and t.format == "swiss" else 0,
                    vp_b=0,
                    mp_a=0,
                    mp_b=0,
                    hands_played=0,
                    winner=a if bye else None,
                    abandoned=[],
                    deals=[],
                    finished_at=utcnow() if bye else None,
                )
            )

    # ------------------------------------------------------------ tables

    async def open_tables(self, tournament_id: int) -> None:
        """Every pending match of the current round gets its table (once) and its
        players are told."""
        async with self.maker() as db:
            t = await db.get(Tournament, tournament_id)
            if t is None or t.state != "running":
                return
            stmt = select(Match).where(
                Match.tournament_id == t.id,
                Match.round_no == t.current_round,
                Match.state == "pending",
            )
            pending = list((await db.execute(stmt)).scalars().all())
            if not pending:
                return
            entrants = await money.active_entrants(db, t.id)
            members = _members(t, entrants)
            info = (t.id, t.name, t.preset, t.players, t.turbo, t.hands, t.duplicate, t.seed)
        tid, name, preset, players, turbo, hands, duplicate, secret = info
        for m in pending:
            a, b = members[m.side_a], members[m.side_b or 0]
            assert m.deadline is not None
            table_id = await open_match_table(
                self.svc,
                tournament_id=tid,
                round_no=m.round_no,
                table_no=m.table_no,
                name=f"{name} · R{m.round_no} M{m.table_no}",
                preset=preset,
                players=players,
                turbo=turbo,
                hands=hands,
                deadline=m.deadline.timestamp(),
                deal_secret=secret if duplicate else None,
                seats=seats_for(players, a, b),
            )
            async with self.maker() as db:
                row = await _locked_match(db, tid, m.round_no, m.table_no)
                if row is not None and row.state == "pending":
                    row.state, row.table_id = "playing", table_id
                await db.commit()
            for user_id, _ in a + b:
                if user_id is not None:
                    await self.notifier.publish(
                        user_id,
                        {
                            "type": "tournament_round",
                            "tournament_id": tid,
                            "round_no": m.round_no,
                            "table_id": table_id,
                        },
                    )

    # ------------------------------------------------------------ results

    async def on_table_finished(self, meta: TableMeta, state: State) -> None:
        """The table service's finished hook: a match's result, once."""
        if meta.tournament is None:
            return
        if await self.record(meta, state):
            # The next step in a task of its own: the move that ended the game is not
            # kept waiting while the next round's tables are made.
            tournament_id, _, _ = parse_tag(meta.tournament)
            self.kick(tournament_id)

    async def record(self, meta: TableMeta, state: State | None) -> bool:
        """Write the match's result from its finished table (``state`` None: the table
        was lost, a draw with no Match Points). True when this call wrote it."""
        assert meta.tournament is not None
        tid, round_no, table_no = parse_tag(meta.tournament)
        async with self.maker() as db:
            t = await db.get(Tournament, tid)
            m = await _locked_match(db, tid, round_no, table_no)
            if t is None or m is None or m.state == "done":
                return False
            totals = state.totals if state is not None else (0, 0)
            m.mp_a, m.mp_b = int(totals[0]), int(totals[1])
            m.hands_played = state.hand_no if state is not None else 0
            m.deals = [list(p) for p in meta.hand_points]
            left = [s.user_id for s in meta.seats if s is not None and s.abandoned and s.user_id]
            m.abandoned = [int(u) for u in left]
            team_left = {i % 2 for i, s in enumerate(meta.seats) if s is not None and s.abandoned}
            m.vp_a, m.vp_b, m.winner = _score(t, m, team_left)
            m.state, m.finished_at = "done", utcnow()
            t.version += 1
            await db.commit()
        return True

    async def _check_tables(self, t: Tournament, matches: list[Match]) -> None:
        for m in matches:
            if m.state != "playing" or m.table_id is None:
                continue
            try:
                loaded = await self.svc.store.load(m.table_id, "")
            except Exception:
                continue  # Redis cannot tell: look again next tick
            if loaded is None or loaded.meta is None:
                lost = TableMeta.model_validate(
                    {
                        "id": m.table_id,
                        "name": "",
                        "host": 0,
                        "preset": t.preset,
                        "rules": {},
                        "players": t.players,
                        "bet": 0,
                        "seats": [],
                        "created_at": 0,
                        "tournament": f"{t.id}:{m.round_no}:{m.table_no}",
                    }
                )
                await self.record(lost, None)
                continue
            meta = TableMeta.model_validate_json(loaded.meta)
            if meta.status == "finished":
                await self.svc.finish(m.table_id)  # settles and records (idempotent)
            elif meta.status == "closed":
                await self.record(meta, None)

    # ------------------------------------------------------------ rounds

    async def advance(self, tournament_id: int) -> None:
        async with self.maker() as db:
            t = await db.get(Tournament, tournament_id)
            if t is None or t.state != "running":
                return
            matches = await _matches(db, t.id, t.current_round)
        if any(m.state == "pending" for m in matches):
            await self.open_tables(tournament_id)
        await self._check_tables(t, matches)
        async with self.maker() as db:
            t = await money.locked_tournament(db, tournament_id)
            if t.state != "running":
                return
            done = await _matches(db, t.id, t.current_round)
            if not done or any(m.state != "done" for m in done):
                return
            entrants = await money.active_entrants(db, t.id)
            everything = await _matches(db, t.id, None)
            last = t.current_round >= t.rounds if t.format == "swiss" else len(done) == 1
            if last:
                await self._finish(db, t, entrants, everything)
            else:
                await self._next_round(db, t, entrants, done, everything)
            await db.commit()
            state = t.state
        await self.publish(tournament_id)
        if state == "paying":
            await money.pay(self.maker, self.notifier, tournament_id)
            await self.publish(tournament_id)
        else:
            await self.open_tables(tournament_id)

    async def _next_round(
        self,
        db: AsyncSession,
        t: Tournament,
        entrants: list[Entrant],
        done: list[Match],
        everything: list[Match],
    ) -> None:
        late = [e for e in entrants if e.seed is None]  # Swiss late registrations
        if late:
            top = max((e.seed or 0 for e in entrants), default=0)
            for n, e in enumerate(sorted(late, key=lambda e: e.id), start=top + 1):
                e.seed = n
            await db.flush()
        if t.format == "knockout":
            winners = [m.winner for m in sorted(done, key=lambda m: m.table_no)]
            pairs = knockout_next_round([w for w in winners if w is not None])
        else:
            order = service.ranking(t, entrants, everything)
            met = [(m.side_a, m.side_b) for m in everything if m.side_b is not None]
            byes = [m.side_a for m in everything if m.side_b is None]
            pairs = swiss_round([line.side for line in order], met, byes)
        t.current_round += 1
        t.version += 1
        self._add_round(db, t, t.current_round, pairs)
        await db.flush()

    async def _finish(
        self, db: AsyncSession, t: Tournament, entrants: list[Entrant], everything: list[Match]
    ) -> None:
        order = service.ranking(t, entrants, everything)
        by_side: dict[int, list[Entrant]] = {}
        for e in entrants:
            side = e.team if t.players == 4 and e.team is not None else e.id
            by_side.setdefault(side, []).append(e)
        await money.award(db, t, [by_side[line.side] for line in order if line.side in by_side])

    # ------------------------------------------------------------ pushes

    async def publish(self, tournament_id: int) -> None:
        async with self.maker() as db:
            t = await db.get(Tournament, tournament_id)
            if t is None:
                return
            message: dict[str, Any] = {
                "type": "tournament",
                "id": t.id,
                "state": t.state,
                "current_round": t.current_round,
                "version": t.version,
            }
            people = [e.user_id for e in await money.active_entrants(db, t.id) if e.user_id]
        await self.notifier.publish_channel(LOBBY_CHANNEL, message)
        for user_id in people:
            await self.notifier.publish(user_id, message)


def _score(t: Tournament, m: Match, team_left: set[int]) -> tuple[int, int, int | None]:
    """(VP a, VP b, who goes through). Abandonment: a side with a player who left the
    match scores 0 VP and its opponents at least a bye's 14 (both left: 0 each); in a
    knockout the side that left is out. Otherwise VP by the table; a knockout tie goes
    to the better seed (side a)."""
    vp_a, vp_b = victory_points(m.mp_a, m.mp_b, t.hands)
    if team_left == {0, 1}:
        vp_a, vp_b = 0, 0
    elif 0 in team_left:
        vp_a, vp_b = 0, max(vp_b, BYE_VP)
    elif 1 in team_left:
        vp_a, vp_b = max(vp_a, BYE_VP), 0
    winner: int | None
    if 1 in team_left and 0 not in team_left:
        winner = m.side_a
    elif 0 in team_left and 1 not in team_left:
        winner = m.side_b
    else:
        winner = m.side_a if m.mp_a >= m.mp_b else m.side_b
    return vp_a, vp_b, winner


def _members(t: Tournament, entrants: list[Entrant]) -> dict[int, list[tuple[int | None, str]]]:
    out: dict[int, list[tuple[int | None, str]]] = {}
    for e in sorted(entrants, key=lambda e: e.seed or 0):
        side = e.team if t.players == 4 and e.team is not None else e.id
        out.setdefault(side, []).append((e.user_id, e.name))
    return out


async def _locked_match(
    db: AsyncSession, tournament_id: int, round_no: int, table_no: int
) -> Match | None:
    stmt = (
        select(Match)
        .where(
            Match.tournament_id == tournament_id,
            Match.round_no == round_no,
            Match.table_no == table_no,
        )
        .with_for_update()
    )
    return (await db.execute(stmt)).scalar_one_or_none()


async def _matches(db: AsyncSession, tournament_id: int, round_no: int | None) -> list[Match]:
    stmt = select(Match).where(Match.tournament_id == tournament_id)
    if round_no is not None:
        stmt = stmt.where(Match.round_no == round_no)
    return list((await db.execute(stmt.order_by(Match.round_no, Match.table_no))).scalars())
