"""GET /api/users/{id}/tournaments: a player's finished tournaments and places, for the
profile; written straight into Postgres in the shapes the runner leaves behind."""

from __future__ import annotations

from datetime import timedelta

import httpx
from fastapi import FastAPI

from app.core.db import utcnow
from app.tournaments.models import Entrant, Match, Payout, Tournament
from tests.economy.helpers import new_users


def _tournament(name: str, state: str, minutes_ago: int) -> Tournament:
    now = utcnow()
    return Tournament(
        kind="sitgo",
        format="knockout",
        players=2,
        preset="burraco",
        name=name,
        state=state,
        max_entrants=4,
        min_entrants=4,
        buy_in=0,
        fee_bps=0,
        guaranteed=0,
        prize_table=[10_000],
        rounds=2,
        hands=1,
        round_seconds=600,
        duplicate=False,
        allow_bots=True,
        bot_fill_seconds=60,
        turbo=False,
        created_at=now - timedelta(hours=2),
        started_at=now - timedelta(hours=1),
        finished_at=now - timedelta(minutes=minutes_ago) if state == "finished" else None,
        late_registration_seconds=0,
        current_round=2,
        pool=0,
        seed="0" * 32,
        version=5,
    )


def _match(tid: int, round_no: int, table_no: int, a: int, b: int, winner: int) -> Match:
    return Match(
        tournament_id=tid,
        round_no=round_no,
        table_no=table_no,
        side_a=a,
        side_b=b,
        state="done",
        mp_a=300 if winner == a else 100,
        mp_b=300 if winner == b else 100,
        vp_a=15 if winner == a else 5,
        vp_b=15 if winner == b else 5,
        hands_played=1,
        winner=winner,
        abandoned=[],
        deals=[],
    )


async def test_a_players_finished_tournaments_with_places_and_prizes(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    maker = app.state.sessionmaker
    me, other = await new_users(maker, 2)
    async with maker() as db:
        won, lost, running = (
            _tournament("Copa A", "finished", 30),
            _tournament("Copa B", "finished", 10),
            _tournament("Copa C", "running", 0),
        )
        db.add_all([won, lost, running])
        await db.flush()
        for t, people in ((won, (me, other)), (lost, (other, me)), (running, (me, other))):
            rows = [
                Entrant(tournament_id=t.id, user_id=people[0], name="Ana", seed=1),
                Entrant(tournament_id=t.id, user_id=people[1], name="Bea", seed=2),
                Entrant(tournament_id=t.id, name="Bot Uno", bot=True, seed=3),
                Entrant(tournament_id=t.id, name="Bot Dos", bot=True, seed=4),
            ]
            db.add_all(rows)
            await db.flush()
            a, b, c, d = (e.id for e in rows)
            if t is running:
                continue
            # Seed 1 beats 4, 2 beats 3, then 1 beats 2 in the final.
            db.add_all([_match(t.id, 1, 1, a, d, a), _match(t.id, 1, 2, b, c, b)])
            db.add(_match(t.id, 2, 1, a, b, a))
            db.add(
                Payout(
                    tournament_id=t.id,
                    place=1,
                    entrant_id=a,
                    user_id=people[0],
                    amount=700,
                    state="paid",
                )
            )
            db.add(
                Payout(
                    tournament_id=t.id,
                    place=2,
                    entrant_id=b,
                    user_id=people[1],
                    amount=300,
                    state="paid",
                )
            )
        # A registration given up in another finished tournament does not count.
        gone = _tournament("Copa D", "finished", 5)
        db.add(gone)
        await db.flush()
        db.add(Entrant(tournament_id=gone.id, user_id=me, name="Ana", state="left"))
        await db.commit()

    r = await client.get(f"/api/users/{me}/tournaments")
    assert r.status_code == 200, r.text
    got = [(x["name"], x["place"], x["of"], x["prize"]) for x in r.json()]
    assert got == [("Copa B", 2, 4, 300), ("Copa A", 1, 4, 700)]
    assert r.json()[0]["format"] == "knockout"

    nobody = await new_users(maker, 1)
    assert (await client.get(f"/api/users/{nobody[0]}/tournaments")).json() == []
    bad = await client.get("/api/users/0/tournaments")
    assert bad.status_code == 422
    assert bad.json()["error"]["code"] == "validation_error"
