"""Creating tournaments and reading them for the API (docs/tournaments.md)."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.config import Settings
from app.core.db import utcnow
from app.core.errors import AppError
from app.tournaments import money, prizes
from app.tournaments.models import Entrant, Match, Payout, Tournament
from app.tournaments.pairing import knockout_rounds
from app.tournaments.schemas import DetailOut, ScheduledIn, SitGoIn, TournamentOut
from app.tournaments.standings import Line, Result, knockout_order, swiss_order

STATES = {
    "upcoming": ("registering",),
    "running": ("running", "paying"),
    "finished": ("finished", "cancelled"),
}


def _rounds(fmt: str, sides: int, asked: int) -> int:
    if fmt == "knockout":
        return knockout_rounds(sides)
    return asked or knockout_rounds(sides) + 1


async def create_sitgo(
    db: AsyncSession, settings: Settings, user_id: int | None, spec: SitGoIn
) -> Tournament:
    t = Tournament(
        kind="sitgo",
        format=spec.format,
        players=spec.players,
        preset=spec.preset,
        name=spec.name,
        state="registering",
        max_entrants=spec.entrants,
        min_entrants=spec.entrants,
        buy_in=spec.buy_in,
        fee_bps=settings.tournament_fee_bps if spec.buy_in else 0,
        guaranteed=0,
        prize_table=prizes.table_for(spec.entrants),
        rounds=_rounds(spec.format, spec.entrants, spec.rounds),
        hands=spec.hands,
        round_seconds=spec.round_seconds,
        duplicate=spec.duplicate,
        allow_bots=spec.allow_bots,
        bot_fill_seconds=spec.bot_fill_seconds,
        turbo=spec.turbo,
        created_by=user_id,
        created_at=utcnow(),
        late_registration_seconds=0,
        current_round=0,
        pool=0,
        seed=secrets.token_hex(16),
        version=0,
    )
    db.add(t)
    await db.flush()
    return t


async def create_scheduled(db: AsyncSession, settings: Settings, spec: ScheduledIn) -> Tournament:
    if spec.starts_at <= utcnow():
        raise AppError("starts_in_past", "The start time must be in the future.", 422)
    fmt_rounds = _rounds(spec.format, spec.max_entrants, spec.rounds)
    t = Tournament(
        kind="scheduled",
        format=spec.format,
        players=spec.players,
        preset=spec.preset,
        name=spec.name,
        state="registering",
        max_entrants=spec.max_entrants,
        min_entrants=spec.min_entrants,
        buy_in=spec.buy_in,
        fee_bps=settings.tournament_fee_bps if spec.fee_bps is None else spec.fee_bps,
        guaranteed=spec.guaranteed,
        prize_table=spec.prize_table or [],
        rounds=fmt_rounds,
        hands=spec.hands,
        round_seconds=spec.round_seconds,
        duplicate=spec.duplicate,
        allow_bots=False,
        bot_fill_seconds=60,
        turbo=spec.turbo,
        created_by=None,
        created_at=utcnow(),
        registration_opens_at=spec.registration_opens_at,
        starts_at=spec.starts_at,
        late_registration_seconds=spec.late_registration_seconds,
        current_round=0,
        pool=0,
        seed=secrets.token_hex(16),
        version=0,
    )
    db.add(t)
    await db.flush()
    return t


# ---------------------------------------------------------------- reading


def summary(t: Tournament, entrants: int, mine: bool) -> TournamentOut:
    shares = t.prize_table or prizes.table_for(max(entrants, t.min_entrants))
    pool = t.pool
    if t.state in ("registering", "running"):  # fixed when the prizes are awarded
        pool, _ = prizes.pool_of(entrants * t.buy_in, t.fee_bps, t.guaranteed)
    places = entrants if t.state != "registering" else max(entrants, t.min_entrants)
    return TournamentOut(
        id=t.id,
        kind=t.kind,
        format=t.format,
        name=t.name,
        state=t.state,
        players=t.players,
        preset=t.preset,
        entrants=entrants,
        max_entrants=t.max_entrants,
        min_entrants=t.min_entrants,
        buy_in=t.buy_in,
        pool=pool,
        prizes=prizes.split(pool, shares, max(places, 1)) if pool else [],
        rounds=t.rounds,
        hands=t.hands,
        round_seconds=t.round_seconds,
        current_round=t.current_round,
        duplicate=t.duplicate,
        allow_bots=t.allow_bots,
        starts_at=t.starts_at,
        registration_open=money.registration_open(t),
        registered=mine,
        fee_bps=t.fee_bps,
        guaranteed=t.guaranteed,
        late_registration_seconds=t.late_registration_seconds,
        turbo=t.turbo,
        started_at=t.started_at,
        finished_at=t.finished_at,
        version=t.version,
    )


async def listing(db: AsyncSession, status: str | None, user_id: int | None) -> list[TournamentOut]:
    stmt = select(Tournament)
    if status is not None:
        if status not in STATES:
            raise AppError("invalid_status", "status is one of upcoming, running, finished.", 422)
        stmt = stmt.where(Tournament.state.in_(STATES[status]))
    stmt = stmt.order_by(Tournament.id.desc()).limit(100)
    found = list((await db.execute(stmt)).scalars().all())
    ids = [t.id for t in found]
    counts: dict[int, int] = {}
    mine: set[int] = set()
    if ids:
        active = Entrant.state != "left"
        count_stmt = (
            select(Entrant.tournament_id, func.count())
            .where(Entrant.tournament_id.in_(ids), active)
            .group_by(Entrant.tournament_id)
        )
        counts = {int(i): int(n) for i, n in (await db.execute(count_stmt)).all()}
        if user_id is not None:
            mine_stmt = select(Entrant.tournament_id).where(
                Entrant.tournament_id.in_(ids), Entrant.user_id == user_id, active
            )
            mine = {int(i) for i in (await db.execute(mine_stmt)).scalars()}
    return [summary(t, counts.get(t.id, 0), t.id in mine) for t in found]


async def one(db: AsyncSession, tournament_id: int, user_id: int | None) -> TournamentOut:
    t = await db.get(Tournament, tournament_id) if 0 < tournament_id < 2**62 else None
    if t is None:
        raise money.not_found()
    entrants = await money.active_entrants(db, t.id)
    return summary(t, len(entrants), any(e.user_id == user_id for e in entrants))


def sides_of(t: Tournament, entrants: list[Entrant]) -> list[int]:
    """The sides in seed order: entrant ids, or pair numbers at 4 players."""
    seeded = sorted(entrants, key=lambda e: (e.seed or 10**6, e.id))
    if t.players == 4:
        out: list[int] = []
        for e in seeded:
            if e.team is not None and e.team not in out:
                out.append(e.team)
        return out
    return [e.id for e in seeded]


def results_of(matches: list[Match]) -> list[Result]:
    return [
        Result(m.round_no, m.side_a, m.side_b, m.mp_a, m.mp_b, m.vp_a, m.vp_b, m.winner)
        for m in matches
        if m.state == "done"
    ]


def ranking(t: Tournament, entrants: list[Entrant], matches: list[Match]) -> list[Line]:
    sides = sides_of(t, entrants)
    order = knockout_order if t.format == "knockout" else swiss_order
    return order(sides, results_of(matches))


def side_names(t: Tournament, entrants: list[Entrant]) -> dict[int, dict[str, Any]]:
    names: dict[int, dict[str, Any]] = {}
    for e in entrants:
        side = e.team if t.players == 4 and e.team is not None else e.id
        entry = names.setdefault(side, {"side": side, "names": [], "user_ids": [], "bots": 0})
        entry["names"].append(e.name)
        entry["user_ids"].append(e.user_id)
        entry["bots"] += int(e.bot)
    return names


async def detail(db: AsyncSession, tournament_id: int, user_id: int | None) -> DetailOut:
    t = await db.get(Tournament, tournament_id) if 0 < tournament_id < 2**62 else None
    if t is None:
        raise money.not_found()
    entrants = await money.active_entrants(db, t.id)
    match_stmt = (
        select(Match).where(Match.tournament_id == t.id).order_by(Match.round_no, Match.table_no)
    )
    matches = list((await db.execute(match_stmt)).scalars().all())
    pay_stmt = select(Payout).where(Payout.tournament_id == t.id).order_by(Payout.place)
    payouts = list((await db.execute(pay_stmt)).scalars().all())
    names = side_names(t, entrants)
    standings = []
    if t.state not in ("registering", "cancelled"):
        for place, line in enumerate(ranking(t, entrants, matches), start=1):
            standings.append(
                {
                    "place": place,
                    **names.get(line.side, {"side": line.side}),
                    "vp": line.vp,
                    "opponents_vp": line.opponents_vp,
                    "mp_diff": line.mp_diff,
                    "played": line.played,
                    "byes": line.byes,
                    "out_in": line.out_in,
                }
            )
    rounds: dict[int, list[dict[str, Any]]] = {}
    for m in matches:
        rounds.setdefault(m.round_no, []).append(
            {
                "table_no": m.table_no,
                "a": names.get(m.side_a, {"side": m.side_a}),
                "b": None if m.side_b is None else names.get(m.side_b, {"side": m.side_b}),
                "state": m.state,
                "table_id": m.table_id,
                "deadline": m.deadline,
                "mp": [m.mp_a, m.mp_b],
                "vp": [m.vp_a, m.vp_b],
                "hands_played": m.hands_played,
                "winner": m.winner,
                "deals": m.deals if t.duplicate and m.state == "done" else [],
            }
        )
    base = summary(t, len(entrants), any(e.user_id == user_id for e in entrants))
    return DetailOut(
        **base.model_dump(),
        entrants_list=[
            {"id": e.id, "name": e.name, "user_id": e.user_id, "bot": e.bot, "seed": e.seed}
            for e in entrants
        ],
        standings=standings,
        rounds_list=[{"round_no": r, "matches": ms} for r, ms in sorted(rounds.items())],
        payouts=[
            {"place": p.place, "user_id": p.user_id, "amount": p.amount, "state": p.state}
            for p in payouts
        ],
    )


async def player_results(db: AsyncSession, user_id: int) -> list[dict[str, Any]]:
    """A player's finished tournaments, newest first (for the profile): the place and the
    prize when the place was paid, else ``place`` null (out of the prizes)."""
    stmt = (
        select(
            Tournament.id,
            Tournament.name,
            Tournament.format,
            Tournament.kind,
            Tournament.finished_at,
            Payout.place,
            Payout.amount,
        )
        .join(Entrant, Entrant.tournament_id == Tournament.id)
        .outerjoin(
            Payout,
            (Payout.tournament_id == Tournament.id) & (Payout.entrant_id == Entrant.id),
        )
        .where(
            Entrant.user_id == user_id,
            Entrant.state != "left",
            Tournament.state == "finished",
        )
        .order_by(Tournament.finished_at.desc(), Tournament.id.desc())
        .limit(20)
    )
    return [
        {
            "id": int(r.id),
            "name": r.name,
            "format": r.format,
            "kind": r.kind,
            "finished_at": r.finished_at,
            "place": r.place,
            "prize": int(r.amount or 0),
        }
        for r in (await db.execute(stmt)).all()
    ]
