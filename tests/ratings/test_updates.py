"""Ratings change once per finished game between people, in the right direction."""

from __future__ import annotations

import asyncio

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select, update

from app.ratings import service
from app.ratings.models import RatingEvent
from app.ratings.service import (
    MODEL,
    PROVISIONAL_GAMES,
    RatedArchive,
    display_rating,
    rate_game_id,
    seat_ratings,
    weight_for,
)
from app.tables.storage.archive import GameArchive
from app.users.models import User
from tests.economy.helpers import new_users
from tests.ratings.helpers import all_ratings, event, finish, finished_meta, hand_log, rating


async def test_a_two_player_game_moves_the_winner_up_and_the_loser_down(app: FastAPI) -> None:
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    game = await finish(maker, finished_meta("cerrado", [a, b]), [1200, 300], winner=0)
    won, lost = await rating(maker, a, "cerrado", "2p"), await rating(maker, b, "cerrado", "2p")
    assert won is not None and lost is not None
    assert won.mu > MODEL.mu > lost.mu
    assert won.sigma < MODEL.sigma and lost.sigma < MODEL.sigma
    assert won.games == lost.games == 1
    ev = await event(maker, game)
    assert ev is not None and ev.outcome == "rated" and ev.weight == 1.0
    assert set(ev.changes) == {str(a), str(b)}
    # The family is shared: burraco is an "abierto" game, a separate rating.
    await finish(maker, finished_meta("burraco", [b, a]), [900, 100], winner=0)
    assert (await rating(maker, b, "abierto", "2p")).mu > MODEL.mu  # type: ignore[union-attr]
    assert (await rating(maker, b, "cerrado", "2p")).mu < MODEL.mu  # type: ignore[union-attr]


async def test_a_pairs_game_rates_both_partners_as_a_team(app: FastAPI) -> None:
    maker = app.state.sessionmaker
    a, b, c, d = await new_users(maker, 4)
    # Seats 0 and 2 are team 0, seats 1 and 3 team 1.
    await finish(maker, finished_meta("abierto", [a, b, c, d]), [500, 2100], winner=1)
    r = {u: await rating(maker, u, "abierto", "pairs") for u in (a, b, c, d)}
    assert all(x is not None and x.games == 1 for x in r.values())
    assert r[b].mu > MODEL.mu and r[d].mu > MODEL.mu  # type: ignore[union-attr]
    assert r[a].mu < MODEL.mu and r[c].mu < MODEL.mu  # type: ignore[union-attr]
    assert await rating(maker, a, "abierto", "2p") is None


async def test_three_individuals_are_ranked_by_winner_then_totals(app: FastAPI) -> None:
    maker = app.state.sessionmaker
    a, b, c = await new_users(maker, 3)
    meta = finished_meta("brasil", [a, b, c], pairs=False)
    await finish(maker, meta, [3100, 800, 2500], winner=0)
    mus = {u: (await rating(maker, u, "brasil", "multi")).mu for u in (a, b, c)}  # type: ignore[union-attr]
    assert mus[a] > mus[c] > mus[b]


async def test_an_abandoner_is_ranked_last(app: FastAPI) -> None:
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    # b left and a bot took the seat and won on points: b still loses rating.
    meta = finished_meta("cerrado", [a, b], abandoned=frozenset({b}))
    await finish(maker, meta, [100, 900], winner=1)
    assert (await rating(maker, b, "cerrado", "2p")).mu < MODEL.mu  # type: ignore[union-attr]
    assert (await rating(maker, a, "cerrado", "2p")).mu > MODEL.mu  # type: ignore[union-attr]


async def test_bots_guests_and_void_games_leave_ratings_alone(app: FastAPI) -> None:
    maker = app.state.sessionmaker
    a, b, guest = await new_users(maker, 3)
    async with maker() as db:
        await db.execute(update(User).where(User.id == guest).values(is_guest=True))
        await db.commit()
    with_bot = await finish(maker, finished_meta("cerrado", [a, None]), [900, 0], winner=0)
    with_guest = await finish(maker, finished_meta("cerrado", [a, guest]), [900, 0], winner=0)
    pairs_bot = await finish(maker, finished_meta("cerrado", [a, b, None, None]), [9, 0], winner=0)
    assert await all_ratings(maker) == []
    assert (await event(maker, with_bot)).outcome == "bots"  # type: ignore[union-attr]
    assert (await event(maker, with_guest)).outcome == "guests"  # type: ignore[union-attr]
    assert (await event(maker, pairs_bot)).outcome == "bots"  # type: ignore[union-attr]


@pytest.mark.parametrize("calls", [20])
async def test_the_same_game_twenty_times_at_once_counts_once(app: FastAPI, calls: int) -> None:
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    meta = finished_meta("burako", [a, b])
    game = await finish(maker, meta, [1500, 700], winner=0)
    once = await all_ratings(maker)
    await asyncio.gather(*(rate_game_id(maker, game) for _ in range(calls)))
    await finish(maker, meta, [1500, 700], winner=0)  # the whole finish again
    assert await all_ratings(maker) == once
    # And a game never rated before, rated by twenty at once: exactly one update.
    other = finished_meta("burako", [a, b])

    await GameArchive(maker)(other, hand_log([100, 900], 1))
    await asyncio.gather(*(rate_game_id(maker, other.game_id or "") for _ in range(calls)))
    after = {row[0]: row for row in await all_ratings(maker)}
    assert after[a][5] == after[b][5] == 2
    async with maker() as db:
        assert (await db.execute(select(func.count()).select_from(RatingEvent))).scalar() == 2


async def test_a_failure_half_way_leaves_nothing(app: FastAPI) -> None:
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    meta = finished_meta("cerrado", [a, b])

    await GameArchive(maker)(meta, hand_log([900, 0], 0))
    game_id = meta.game_id or ""
    # The transaction dies after the ratings were written but before the commit.
    real = service._apply

    def dying(*args: object, **kwargs: object) -> object:
        real(*args, **kwargs)  # type: ignore[arg-type]
        raise ConnectionError("the process died")

    service._apply = dying  # type: ignore[assignment]
    try:
        with pytest.raises(ConnectionError):
            await rate_game_id(maker, game_id)
    finally:
        service._apply = real
    assert await all_ratings(maker) == [] and await event(maker, game_id) is None
    await rate_game_id(maker, game_id)  # the retried finish rates it
    assert (await rating(maker, a, "cerrado", "2p")).games == 1  # type: ignore[union-attr]


async def test_provisional_until_ten_games(app: FastAPI) -> None:
    maker = app.state.sessionmaker
    a, b = await new_users(maker, 2)
    rules = finished_meta("cerrado", [a, b]).rules
    for n in range(PROVISIONAL_GAMES):
        async with maker() as db:
            shown = (await seat_ratings(db, [a], "cerrado", rules))[a]
        assert shown.provisional, n
        # Earlier games are moved out of the last 24 hours: anti-boosting is not measured here.
        async with maker() as db:
            await db.execute(
                update(RatingEvent).values(created_at=func.now() - func.make_interval(0, 0, 0, 2))
            )
            await db.commit()
        await finish(maker, finished_meta("cerrado", [a, b]), [900, 100], winner=0)
    async with maker() as db:
        shown = (await seat_ratings(db, [a], "cerrado", rules))[a]
    assert not shown.provisional
    r = await rating(maker, a, "cerrado", "2p")
    assert r is not None and r.games == PROVISIONAL_GAMES
    assert shown.rating == display_rating(r.mu, r.sigma) > display_rating(MODEL.mu, MODEL.sigma)


def test_anti_boosting_weights() -> None:
    assert [weight_for(n) for n in range(8)] == [1, 1, 1, 0.5, 0.25, 0.125, 0, 0]


async def test_repeated_games_between_the_same_accounts_count_less(app: FastAPI) -> None:
    maker = app.state.sessionmaker
    a, b, c = await new_users(maker, 3)
    steps = []
    for _ in range(7):
        before = await rating(maker, a, "cerrado", "2p")
        game = await finish(maker, finished_meta("cerrado", [a, b]), [900, 100], winner=0)
        after = await rating(maker, a, "cerrado", "2p")
        assert after is not None
        steps.append(after.mu - (before.mu if before else MODEL.mu))
        ev = await event(maker, game)
        assert ev is not None
    assert ev.outcome == "repeated" and ev.weight == 0 and steps[-1] == 0
    weights = [
        (await event(maker, g)).weight  # type: ignore[union-attr]
        for g in await _games_of(maker)
    ]
    assert weights == [1, 1, 1, 0.5, 0.25, 0.125, 0]
    # Each full-weight win still moves a up; the weighted ones move it less than a full one would.
    assert steps[3] < steps[2] and steps[4] < steps[3] and steps[5] < steps[4]
    # Another opponent is a new set of accounts: full weight again.
    game = await finish(maker, finished_meta("cerrado", [a, c]), [900, 100], winner=0)
    assert (await event(maker, game)).weight == 1  # type: ignore[union-attr]
    # Games older than 24 hours no longer count.
    async with maker() as db:
        await db.execute(
            update(RatingEvent).values(created_at=func.now() - func.make_interval(0, 0, 0, 2))
        )
        await db.commit()
    game = await finish(maker, finished_meta("cerrado", [b, a]), [900, 100], winner=0)
    assert (await event(maker, game)).weight == 1  # type: ignore[union-attr]


async def _games_of(maker: object) -> list[str]:
    async with maker() as db:  # type: ignore[operator]
        rows = await db.execute(select(RatingEvent.game_id).order_by(RatingEvent.created_at))
        return list(rows.scalars())


def test_the_app_rates_every_archived_game(app: FastAPI) -> None:
    """TableService.finish archives through the rating step (app/main.py)."""
    archive = app.state.tables.archive_game
    assert isinstance(archive, RatedArchive) and isinstance(archive.archive, GameArchive)
