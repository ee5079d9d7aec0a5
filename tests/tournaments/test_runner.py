"""Tournaments played through to the prizes on real tables (bots at every seat, no
delay): a knockout Sit & Go filled with bots, a Swiss with a bye, a scheduled one
cancelled under its minimum. The runner's steps are driven by the app's own tick."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import select, update

from app.core.db import utcnow
from app.core.errors import AppError
from app.economy.notify import Outbox
from app.tournaments import money, pairing
from app.tournaments.models import Match, Payout, Tournament
from app.tournaments.runner import TournamentRunner
from app.tournaments.schemas import ScheduledIn, SitGoIn
from app.tournaments.service import create_scheduled, create_sitgo, detail, player_results
from app.users.models import User
from tests.economy.helpers import balance, coins, new_users

BUY_IN = 10_000


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {
        "bot_delay_seconds": 0,
        "tournament_tick_seconds": 0.2,
        "tournament_fee_bps": 1_000,
        "db_pool_size": 10,
    }


async def _open(app: FastAPI, spec: SitGoIn, people: int) -> tuple[int, list[int]]:
    maker = app.state.sessionmaker
    users = await new_users(maker, people)
    async with maker() as db:
        t = await create_sitgo(db, app.state.settings, users[0], spec)
        t.bot_fill_seconds = 0  # bots at once (the API's minimum is 5 s)
        for u in users:
            user = await db.get(User, u)
            assert user is not None
            await money.register(db, app.state.settings, Outbox(), t.id, user)
        await db.commit()
        return t.id, users


async def _leave_every_table(app: FastAPI, tid: int, users: list[int], until: float) -> None:
    """The people walk away from each table as it opens: a bot plays for them."""
    svc = app.state.tables
    left: set[tuple[str, int]] = set()
    while time.monotonic() < until:
        async with app.state.sessionmaker() as db:
            state = await db.scalar(select(Tournament.state).where(Tournament.id == tid))
            stmt = select(Match.table_id).where(
                Match.tournament_id == tid, Match.state == "playing"
            )
            tables = [t for t in (await db.execute(stmt)).scalars() if t]
        if state in ("finished", "cancelled"):
            return
        for table_id in tables:
            for u in users:
                if (table_id, u) in left:
                    continue
                try:
                    await svc.abandon(table_id, u)
                    left.add((table_id, u))
                except AppError:
                    pass
        await asyncio.sleep(0.1)


async def _played_out(app: FastAPI, tid: int, users: list[int], seconds: float = 90) -> Tournament:
    await _leave_every_table(app, tid, users, time.monotonic() + seconds)
    async with app.state.sessionmaker() as db:
        t = await db.get(Tournament, tid)
        assert t is not None
        return t


async def test_a_knockout_sitgo_filled_with_bots_plays_to_its_prizes(app: FastAPI) -> None:
    maker = app.state.sessionmaker
    spec = SitGoIn(entrants=4, buy_in=BUY_IN, hands=1, turbo=True, allow_bots=True)
    tid, users = await _open(app, spec, 2)
    start = await coins(maker, users[0])
    t = await _played_out(app, tid, users)
    assert t.state == "finished", t.state
    async with maker() as db:
        matches = list(
            (await db.execute(select(Match).where(Match.tournament_id == tid))).scalars()
        )
        payouts = list(
            (await db.execute(select(Payout).where(Payout.tournament_id == tid))).scalars()
        )
        shown = await detail(db, tid, users[0])
    assert sorted((m.round_no, m.state) for m in matches) == [(1, "done"), (1, "done"), (2, "done")]
    assert all(m.hands_played >= 1 for m in matches)
    pool = 2 * BUY_IN * 9 // 10
    assert sum(p.amount for p in payouts) == pool
    assert all(p.state == "paid" for p in payouts)
    assert await balance(maker, money.escrow(tid).key) == 0
    assert [s["place"] for s in shown.standings] == [1, 2, 3, 4]
    assert shown.standings[0]["out_in"] is None
    # the profile's results: each person's place (or none) and prize
    async with maker() as db:
        for u in users:
            (mine,) = await player_results(db, u)
            paid = [p for p in payouts if p.user_id == u]
            assert mine["id"] == tid
            assert mine["place"] == (paid[0].place if paid else None)
            assert mine["prize"] == sum(p.amount for p in paid)
    # each person got exactly what the payouts say
    for u in users:
        won = sum(p.amount for p in payouts if p.user_id == u)
        before = start if u == users[0] else start
        assert await coins(maker, u) == before + won


async def test_a_swiss_with_an_odd_field_gives_byes_and_repeats_nobody(app: FastAPI) -> None:
    maker = app.state.sessionmaker
    spec = SitGoIn(
        format="swiss", entrants=4, rounds=3, hands=1, turbo=True, allow_bots=True, duplicate=True
    )
    tid, users = await _open(app, spec, 1)
    t = await _played_out(app, tid, users)
    assert t.state == "finished", t.state
    async with maker() as db:
        matches = list(
            (await db.execute(select(Match).where(Match.tournament_id == tid))).scalars()
        )
        shown = await detail(db, tid, users[0])
    rounds = [[(m.side_a, m.side_b) for m in matches if m.round_no == r] for r in (1, 2, 3)]
    assert pairing.repeats(rounds) == 0
    assert len(shown.standings) == 4
    assert all(len(m.deals) == m.hands_played for m in matches)
    # duplicate: the two tables of a round were dealt the same cards (same first hand)
    assert shown.duplicate


async def _scheduled_now(app: FastAPI, spec: ScheduledIn, users: list[int]) -> int:
    """A scheduled tournament with ``users`` registered, its start time moved to now."""
    async with app.state.sessionmaker() as db:
        t = await create_scheduled(db, app.state.settings, spec)
        for u in users:
            user = await db.get(User, u)
            assert user is not None
            await money.register(db, app.state.settings, Outbox(), t.id, user)
        await db.commit()
        tid = t.id
    async with app.state.sessionmaker() as db:
        await db.execute(update(Tournament).where(Tournament.id == tid).values(starts_at=utcnow()))
        await db.commit()
    return int(tid)


async def test_a_scheduled_tournament_under_its_minimum_is_cancelled_and_refunded(
    app: FastAPI,
) -> None:
    maker = app.state.sessionmaker
    users = await new_users(maker, 2)
    spec = ScheduledIn(
        name="Copa",
        min_entrants=4,
        max_entrants=8,
        buy_in=BUY_IN,
        starts_at=utcnow() + timedelta(hours=1),
    )
    tid = await _scheduled_now(app, spec, users)
    paid = await coins(maker, users[0])
    runner: TournamentRunner = app.state.tournaments
    await asyncio.gather(*(runner.step(tid) for _ in range(20)))
    async with maker() as db:
        state = await db.scalar(select(Tournament.state).where(Tournament.id == tid))
    assert state == "cancelled"
    for u in users:
        assert await coins(maker, u) == paid + BUY_IN
    assert await balance(maker, money.escrow(tid).key) == 0


async def test_duplicate_tables_deal_the_same_cards_and_keep_them_secret(app: FastAPI) -> None:
    from app.tables.storage.meta import bot_seat
    from app.tournaments.tables import open_match_table

    svc = app.state.tables
    deadline = time.time() + 600

    async def table(no: int, secret: str | None) -> Any:
        table_id = await open_match_table(
            svc,
            tournament_id=99,
            round_no=1,
            table_no=no,
            name="dup",
            preset="burraco",
            players=2,
            turbo=False,
            hands=3,
            deadline=deadline,
            deal_secret=secret,
            seats=[bot_seat(0), bot_seat(1)],
        )
        _, meta, _ = await svc.load(table_id)
        return meta

    one, two, other = await table(1, "s3cret"), await table(2, "s3cret"), await table(3, None)
    assert one.hands[0].deal == two.hands[0].deal
    assert one.hands[0].deal != other.hands[0].deal
    assert one.tournament == "99:1:1" and one.hand_limit == 3
    public = one.public()
    assert "deal_seed" not in public
    assert all("deal" not in h for h in public["hands"])
    # made twice (another process, or a retry): the same table, started once
    again = await table(1, "s3cret")
    assert again.game_id == one.game_id


async def test_at_the_round_deadline_the_hand_in_play_ends_the_match(app: FastAPI) -> None:
    from app.tables.storage.meta import bot_seat
    from app.tournaments.tables import open_match_table

    svc = app.state.tables
    finished: list[Any] = []

    async def seen(meta: Any, state: Any) -> None:
        if meta.tournament == "98:1:1":
            finished.append((meta, state))

    svc.finished_hooks.append(seen)
    await open_match_table(
        svc,
        tournament_id=98,
        round_no=1,
        table_no=1,
        name="deadline",
        preset="burraco",
        players=2,
        turbo=True,
        hands=10,
        deadline=time.time() - 1,  # the limit is already past: only the first hand is played
        deal_secret=None,
        seats=[bot_seat(0), bot_seat(1)],
    )
    until = time.monotonic() + 90
    while not finished and time.monotonic() < until:
        await asyncio.sleep(0.2)
    assert finished, "the match did not end"
    meta, state = finished[0]
    assert state.hand_no == 1 and meta.hand_limit == 10
    assert len(meta.hand_points) == 1


def test_the_abandonment_rule() -> None:
    from app.tournaments.runner import _score

    t = Tournament(hands=2, format="swiss")
    m = Match(side_a=1, side_b=2, mp_a=900, mp_b=100)
    vp_a, vp_b, winner = _score(t, m, set())
    assert vp_a > vp_b and vp_a + vp_b == 20 and winner == 1
    # the side that was ahead left: 0 VP, the other at least a bye's 14, and goes through
    assert _score(t, m, {0}) == (0, max(20 - vp_a, 14), 2)
    assert _score(t, m, {1}) == (vp_a, 0, 1)
    assert _score(t, m, {0, 1})[:2] == (0, 0)


async def test_a_pairs_sitgo_seats_partners_together_and_splits_their_prize(app: FastAPI) -> None:
    maker = app.state.sessionmaker
    spec = SitGoIn(players=4, entrants=4, buy_in=BUY_IN, hands=1, turbo=True, allow_bots=True)
    tid, users = await _open(app, spec, 3)
    t = await _played_out(app, tid, users, seconds=150)
    assert t.state == "finished", t.state
    async with maker() as db:
        entrants = await money.active_entrants(db, tid)
        matches = list(
            (await db.execute(select(Match).where(Match.tournament_id == tid))).scalars()
        )
        payouts = list(
            (await db.execute(select(Payout).where(Payout.tournament_id == tid))).scalars()
        )
    teams: dict[int | None, int] = {}
    for e in entrants:
        teams[e.team] = teams.get(e.team, 0) + 1
    assert len(entrants) == 8 and sorted(teams.values()) == [2, 2, 2, 2]
    assert {m.side_a for m in matches} | {m.side_b for m in matches} <= set(teams)
    assert len(matches) == 3
    # 1st and 2nd places are paid, each to both partners (half each)
    assert sorted(p.place for p in payouts) == [1, 1, 2, 2]
    assert sum(p.amount for p in payouts) == 3 * BUY_IN * 9 // 10
    assert await balance(maker, money.escrow(tid).key) == 0


async def test_a_duplicate_rounds_games_replay_only_once_the_whole_round_is_over(
    app: FastAPI, client: Any
) -> None:
    """In a duplicate round every table plays the same deals: a finished table's replay
    would show the tables still playing their cards. So it is refused (409 round_live)
    while any match of its round is unfinished, and served once all are."""
    from app.tables.storage.models import Game

    spec = SitGoIn(
        format="swiss", entrants=4, rounds=1, hands=1, turbo=True, allow_bots=True, duplicate=True
    )
    tid, users = await _open(app, spec, 1)
    t = await _played_out(app, tid, users)
    assert t.state == "finished", t.state
    async with app.state.sessionmaker() as db:
        games = list(
            (await db.execute(select(Game.id).where(Game.table_id.like(f"t{tid}r1m%")))).scalars()
        )
    assert len(games) == 2
    assert (await client.post("/api/auth/guest")).status_code == 201
    paths = ("", "/verify", "/replay", "/replay/frames", "/replay.txt")
    for path in paths:  # the round is over: every table's replay opens
        r = await client.get(f"/api/games/{games[0]}{path}")
        assert r.status_code == 200, (path, r.text)

    async with app.state.sessionmaker() as db:  # the other table of the round still playing
        await db.execute(
            update(Match)
            .where(Match.tournament_id == tid, Match.round_no == 1, Match.table_no == 2)
            .values(state="playing")
        )
        await db.commit()
    for game in games:
        for path in paths:
            r = await client.get(f"/api/games/{game}{path}")
            assert r.status_code == 409, (path, r.text)
            assert r.json()["error"]["code"] == "round_live"

    # a tournament that is not duplicate deals each table its own cards: no wait
    async with app.state.sessionmaker() as db:
        await db.execute(update(Tournament).where(Tournament.id == tid).values(duplicate=False))
        await db.commit()
    assert (await client.get(f"/api/games/{games[0]}/replay")).status_code == 200


async def test_a_swiss_late_registration_joins_from_the_next_round_until_its_window_ends(
    app: FastAPI,
) -> None:
    """A scheduled Swiss with late registration: someone who registers after the start
    pays like everyone, is not in the round being played, is paired from the next one
    and ranked with the others; once the window is over registration is closed."""
    maker = app.state.sessionmaker
    users = await new_users(maker, 6)
    on_time, late, too_late = users[:4], users[4], users[5]
    spec = ScheduledIn(
        name="Tardía",
        format="swiss",
        min_entrants=4,
        max_entrants=8,
        rounds=2,
        hands=1,
        turbo=True,
        buy_in=BUY_IN,
        starts_at=utcnow() + timedelta(hours=1),
        late_registration_seconds=600,
    )
    tid = await _scheduled_now(app, spec, on_time)
    runner: TournamentRunner = app.state.tournaments
    assert await runner.maybe_start(tid)

    held = await balance(maker, money.escrow(tid).key)
    async with maker() as db:  # round 1 is being played: still within the window
        user = await db.get(User, late)
        assert user is not None
        entrant = await money.register(db, app.state.settings, Outbox(), tid, user)
        await db.commit()
        late_side = entrant.id
    assert await balance(maker, money.escrow(tid).key) == held + BUY_IN  # paid like all

    async with maker() as db:  # the window is over
        started = utcnow() - timedelta(seconds=601)
        await db.execute(update(Tournament).where(Tournament.id == tid).values(started_at=started))
        await db.commit()
        user = await db.get(User, too_late)
        assert user is not None
        with pytest.raises(AppError) as refused:
            await money.register(db, app.state.settings, Outbox(), tid, user)
        assert refused.value.code == "registration_closed"
        await db.rollback()

    t = await _played_out(app, tid, users[:5], seconds=120)
    assert t.state == "finished", t.state
    async with maker() as db:
        matches = list(
            (await db.execute(select(Match).where(Match.tournament_id == tid))).scalars()
        )
        shown = await detail(db, tid, late)
    sides = {
        r: [s for m in matches if m.round_no == r for s in (m.side_a, m.side_b)] for r in (1, 2)
    }
    assert late_side not in sides[1]
    assert late_side in sides[2]  # paired, or given the bye of an odd field
    assert len(shown.standings) == 5
    rounds = [[(m.side_a, m.side_b) for m in matches if m.round_no == r] for r in (1, 2)]
    assert pairing.repeats(rounds) == 0
