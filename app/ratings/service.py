"""Updating ratings when a game is over, once, and reading them.

``rate_game`` runs after the game is archived (``RatedArchive``, wired in
app/main.py), in one transaction keyed by the game id: the game's ``RatingEvent`` row is
claimed first (INSERT ... ON CONFLICT DO NOTHING), so the same game settled twice, or
twenty times at once, changes ratings once, and a process that dies half-way leaves no
trace (the claim rolls back with everything else) for the retried finish to redo.

The rules (docs/ratings.md, docs/decisions/0019-openskill-ratings.md):

- only games between people count: a bot in any seat from the start, a guest in any
  seat, a void game, or a preset outside every family leaves ratings alone (the event
  says why);
- a player who abandoned is ranked last (2 players, 3-4 individual); in pairs the team's
  result stands, except that an abandoner whose partner went on to win gains nothing;
- the first ``FULL_WEIGHT_GAMES`` rated games between the same set of accounts in 24
  hours count fully; each further one counts half as much as the one before, and from
  the weight ``MIN_WEIGHT`` down they count nothing (anti-boosting).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.db import unit_of_work, utcnow
from app.economy.sql import insert_for, insert_ignore, table_of
from app.ratings.families import family_of, format_of
from app.ratings.models import Rating, RatingEvent
from app.tables.storage.meta import TableMeta
from app.tables.storage.models import Game
from app.users.models import User

log = logging.getLogger("app.ratings")

MODEL = PlackettLuce()  # mu 25, sigma 25/3, tau 25/300
PROVISIONAL_GAMES = 10  # a rating is provisional until this many rated games
FULL_WEIGHT_GAMES = 3  # rated games between the same accounts in WINDOW at full weight
WINDOW = timedelta(hours=24)
MIN_WEIGHT = 0.1  # a game weighing less than this changes nothing


def display_rating(mu: float, sigma: float) -> int:
    """The number players see: 1000 + 40 x (mu - 3 sigma), the conservative ordinal
    scaled. A newcomer shows 1000; an average player who has settled shows about 1500,
    a strong one 1800 and more. Never below 0."""
    return max(0, round(1000 + 40 * (mu - 3 * sigma)))


def skill_rating(mu: float) -> int:
    """The estimate quick play matches on: 1500 + 40 x (mu - 25), the same scale
    without the uncertainty, so a newcomer (1500) meets average players."""
    return round(1500 + 40 * (mu - MODEL.mu))


def is_provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def weight_for(previous: int) -> float:
    """The anti-boosting weight of a game after ``previous`` rated games between the
    same accounts in the last 24 hours: 1, 1, 1, then 1/2, 1/4, 1/8, then 0."""
    if previous < FULL_WEIGHT_GAMES:
        return 1.0
    weight = 0.5 ** (previous - FULL_WEIGHT_GAMES + 1)
    return weight if weight >= MIN_WEIGHT else 0.0


@dataclass(frozen=True, slots=True)
class SeatRating:
    """What a seat shows next to the name: ``rating`` (None for a guest), whether it is
    still provisional, and ``skill`` (quick play's matching estimate)."""

    rating: int | None
    provisional: bool
    skill: int


NEWCOMER = SeatRating(display_rating(MODEL.mu, MODEL.sigma), True, skill_rating(MODEL.mu))
GUEST = SeatRating(None, True, skill_rating(MODEL.mu))


def _people(game: Game) -> list[tuple[int, int, bool]]:
    """(seat, user id, abandoned) for every seat a person sat in."""
    return [
        (i, int(s["user_id"]), bool(s.get("abandoned")))
        for i, s in enumerate(game.seats)
        if s and s.get("user_id") is not None and not s.get("bot")
    ]


async def _why_unrated(db: AsyncSession, game: Game, people: list[tuple[int, int, bool]]) -> str:
    if family_of(game.preset) is None:
        return "unrated_preset"
    if game.status != "finished" or game.winner_team is None:
        return "void"
    if len(people) != len(game.seats):
        return "bots"
    users = {uid for _, uid, _ in people}
    if len(users) < 2:
        return "solo"
    stmt = select(func.count()).where(User.id.in_(users), User.is_guest.is_(True))
    if (await db.execute(stmt)).scalar_one():
        return "guests"
    return ""


def _ranks(game: Game, team_of: dict[int, int], teams: list[int]) -> dict[int, int]:
    """team -> rank (0 best): the winner first, the others by their totals (equal totals
    share a rank)."""
    totals = list(game.totals or [])

    def total(team: int) -> int:
        return int(totals[team]) if team < len(totals) else 0

    others = sorted({total(t) for t in teams if t != game.winner_team}, reverse=True)
    return {t: 0 if t == game.winner_team else 1 + others.index(total(t)) for t in teams}


async def rate_game(db: AsyncSession, game: Game) -> RatingEvent | None:
    """Apply ``game`` to its players' ratings once. Returns the event written, or None
    when the game was rated (or refused) before. The caller commits."""
    people = _people(game)
    users = sorted({uid for _, uid, _ in people})
    family, fmt = family_of(game.preset), format_of(game.rules or {})
    why = await _why_unrated(db, game, people)
    claim = (
        insert_for(db, table_of(RatingEvent))
        .values(
            game_id=game.id,
            family=family,
            format=fmt,
            players_key=",".join(map(str, users))[:200],
            outcome=why or "rated",
            weight=0.0,
            changes={},
            created_at=utcnow(),
        )
        .on_conflict_do_nothing(index_elements=["game_id"])
        .returning(table_of(RatingEvent).c.game_id)
    )
    if (await db.execute(claim)).scalar_one_or_none() is None:
        return None  # this game was done before (or is being done: we waited for it)
    event = await db.get(RatingEvent, game.id)
    assert event is not None
    if why:
        return event
    assert family is not None
    ratings = await _lock_ratings(db, users, family, fmt)
    since = utcnow() - WINDOW
    previous = (
        await db.execute(
            select(func.count()).where(
                RatingEvent.players_key == event.players_key,
                RatingEvent.outcome == "rated",
                RatingEvent.created_at > since,
                RatingEvent.game_id != game.id,
            )
        )
    ).scalar_one()
    weight = weight_for(int(previous))
    event.weight = weight
    if weight == 0.0:
        event.outcome = "repeated"
        return event
    event.changes = _apply(game, people, ratings, weight, fmt)
    return event


async def _lock_ratings(
    db: AsyncSession, users: list[int], family: str, fmt: str
) -> dict[int, Rating]:
    """The players' rating rows, made when missing and locked in user id order (two
    games sharing players wait for each other instead of losing an update)."""
    now = utcnow()
    fresh = [
        {
            "user_id": uid,
            "family": family,
            "format": fmt,
            "mu": MODEL.mu,
            "sigma": MODEL.sigma,
            "ordinal": MODEL.mu - 3 * MODEL.sigma,
            "games": 0,
            "updated_at": now,
        }
        for uid in users
    ]
    await insert_ignore(db, table_of(Rating), fresh, ["user_id", "family", "format"])
    stmt = (
        select(Rating)
        .where(Rating.user_id.in_(users), Rating.family == family, Rating.format == fmt)
        .order_by(Rating.user_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return {r.user_id: r for r in (await db.execute(stmt)).scalars()}


def _apply(
    game: Game,
    people: list[tuple[int, int, bool]],
    ratings: dict[int, Rating],
    weight: float,
    fmt: str,
) -> dict[str, Any]:
    pairs = fmt == "pairs"
    team_of = {seat: (seat % 2 if pairs else seat) for seat, _, _ in people}
    teams = sorted(set(team_of.values()))
    ranks = _ranks(game, team_of, teams)
    quitters = {uid for _, uid, gone in people if gone}
    if not pairs and quitters:  # an abandoner is ranked below everyone who stayed
        last = max(ranks.values()) + 1
        for seat, uid, _ in people:
            if uid in quitters:
                ranks[team_of[seat]] = last
    members: dict[int, list[int]] = {t: [] for t in teams}
    for seat, uid, _ in people:
        members[team_of[seat]].append(uid)
    before = {uid: MODEL.create_rating([r.mu, r.sigma]) for uid, r in ratings.items()}
    result = MODEL.rate(
        [[before[uid] for uid in members[t]] for t in teams], ranks=[ranks[t] for t in teams]
    )
    changes: dict[str, Any] = {}
    now = utcnow()
    for t, team in zip(teams, result, strict=True):
        for uid, after in zip(members[t], team, strict=True):
            if pairs and uid in quitters and ranks[t] == 0:
                continue  # left a partner who then won: no credit
            row = ratings[uid]
            mu = row.mu + weight * (after.mu - row.mu)
            sigma = row.sigma + weight * (after.sigma - row.sigma)
            changes[str(uid)] = [row.mu, row.sigma, mu, sigma]
            row.mu, row.sigma, row.ordinal = mu, sigma, mu - 3 * sigma
            row.games += 1
            row.updated_at = now
    return changes


async def rate_game_id(maker: async_sessionmaker[AsyncSession], game_id: str) -> None:
    """Rate an archived game in its own transaction (idempotent)."""
    async with unit_of_work(maker) as db:
        try:
            game = await db.get(Game, game_id)
            if game is not None:
                await rate_game(db, game)
            await db.commit()
        except IntegrityError:  # SQLite: a racing writer claimed it first
            await db.rollback()
        except BaseException:
            await db.rollback()
            raise


class RatedArchive:
    """The table service's archive step with the rating update after it: the game is
    written, then rated. A rating failure is logged and does not stop the settlement
    that follows (the finish is retried only when the archive itself failed)."""

    def __init__(
        self,
        archive: Callable[[TableMeta, list[Any]], Awaitable[None]],
        maker: async_sessionmaker[AsyncSession],
    ) -> None:
        self.archive = archive
        self.maker = maker

    async def __call__(self, meta: TableMeta, events: list[Any]) -> None:
        await self.archive(meta, events)
        if meta.game_id is None:
            return
        try:
            await rate_game_id(self.maker, meta.game_id)
        except Exception:
            log.exception("rating game %s failed", meta.game_id)


async def seat_ratings(
    db: AsyncSession, users: Iterable[int], preset: str, rules: dict[str, Any]
) -> dict[int, SeatRating]:
    """What each user's seat shows at a table of ``preset`` with ``rules``."""
    ids = sorted(set(users))
    family = family_of(preset)
    found: dict[int, SeatRating] = {uid: NEWCOMER for uid in ids}
    if not ids:
        return found
    guests = set(
        (
            await db.execute(select(User.id).where(User.id.in_(ids), User.is_guest.is_(True)))
        ).scalars()
    )
    if family is not None:
        stmt = select(Rating).where(
            Rating.user_id.in_(ids), Rating.family == family, Rating.format == format_of(rules)
        )
        for r in (await db.execute(stmt)).scalars():
            found[r.user_id] = SeatRating(
                display_rating(r.mu, r.sigma), is_provisional(r.games), skill_rating(r.mu)
            )
    for uid in guests:
        found[uid] = GUEST
    return found
