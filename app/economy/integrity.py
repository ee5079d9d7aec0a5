"""Chip-dumping detection: which winners of a game have their winnings held.

Read at settlement, from the winners' results within ``integrity_window_seconds`` (since
an operator last released one of their flags), two signals, after lichess's boosting
checks and poker rooms' chip-dump reviews (docs/decisions/0016-chip-dumping.md):

* ``address``: the winner has netted more than ``integrity_address_coins`` from new
  accounts (stakes.py) made from one address, this game included. A ring of fresh
  guests behind one address is that; ordinary new players seldom lose that much to one
  person in a day, and then an operator looks.
* ``pair``: the winner has beaten the same loser ``integrity_pair_games`` times in quick
  games (under ``integrity_quick_game_seconds``) and never lost to them, the loser being
  a new account or one made from the winner's own address.

A pair already flagged and not released keeps its winnings held (``flagged``). Holding
means the winnings (payout less the winner's own stake) go to the winner's
``withheld:{user}`` account in the settlement's own transfer (settlement.py), with a
``winnings_holds`` row; holds.py releases them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import and_, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.core.config import Settings
from app.economy.models import GameBet, GameRecord, IntegrityFlag, WinningsHold
from app.economy.payouts import Outcome, settle
from app.economy.sql import insert_ignore, table_of
from app.economy.stakes import Person, people
from app.tables.play.hooks import GameResult

LOST = ("loss", "abandon")


@dataclass(frozen=True, slots=True)
class Meeting:
    """A past game the winner played against ``other`` on another team."""

    game_id: str
    won: bool  # the winner of the game being settled won it
    other: int
    other_won: bool
    other_delta: int
    seconds: float | None


@dataclass
class Verdict:
    holds: dict[int, int] = field(default_factory=dict)  # winner -> coins held
    reasons: dict[int, list[str]] = field(default_factory=dict)
    # (winner, loser, reason) -> coins the loser lost in this game
    flags: dict[tuple[int, int, str], int] = field(default_factory=dict)


async def assess(
    db: AsyncSession,
    settings: Settings,
    result: GameResult,
    stakes: dict[int, int],
    started_at: datetime,
    now: datetime,
) -> Verdict:
    """What this game's settlement must hold (reads only)."""
    verdict = Verdict()
    if result.winner_team is None or not stakes:
        return verdict
    plan = settle(result, stakes)
    winners = [o for o in plan.outcomes if o.outcome == "win" and o.payout > o.stake]
    losers = [o for o in plan.outcomes if o.outcome in LOST and o.stake > 0]
    if not winners or not losers:
        return verdict
    quick = (now - started_at).total_seconds() < settings.integrity_quick_game_seconds
    for w in winners:
        reasons = await _judge(db, settings, verdict, w, losers, quick, now)
        if reasons:
            verdict.holds[w.user_id] = w.payout - w.stake
            verdict.reasons[w.user_id] = sorted(reasons)
    return verdict


def reviewable(
    settings: Settings, result: GameResult, who: dict[int, Person], now: datetime
) -> bool:
    """Whether ``assess`` could hold anything of this game: a person on a losing side is a
    new account or was made from the same address as a winner. Such games are settled
    by the generic path, which checks each winner under their wallet's row lock. ``who``:
    the game's players (stakes.people, or people_raw on the fast path's connection)."""
    if result.winner_team is None or result.bet <= 0:
        return False
    won = {u for u, t in result.teams.items() if t == result.winner_team}
    addrs = {who[u].addr for u in won if u in who and who[u].addr}
    return any(
        p.is_new(settings, now) or (p.addr is not None and p.addr in addrs)
        for u, p in who.items()
        if u not in won
    )


async def _judge(
    db: AsyncSession,
    settings: Settings,
    verdict: Verdict,
    w: Outcome,
    losers: list[Outcome],
    quick: bool,
    now: datetime,
) -> set[str]:
    since = await _since(db, settings, w.user_id, now)
    met = await _meetings(db, w.user_id, since, settings)
    who = await people(db, {w.user_id} | {o.user_id for o in losers} | {m.other for m in met})
    me = who.get(w.user_id)
    reasons: set[str] = set()
    for reason, loser in _address(settings, who, met, losers, now):
        verdict.flags[(w.user_id, loser.user_id, reason)] = loser.stake
        reasons.add(reason)
    for loser in losers:
        other = who.get(loser.user_id)
        if other is None or me is None:
            continue
        suspect = other.is_new(settings, now) or (other.addr is not None and other.addr == me.addr)
        games = [m for m in met if m.other == loser.user_id]
        quick_wins = sum(1 for m in games if m.won and _quick(m, settings)) + int(quick)
        lopsided = not any(m.other_won for m in games)
        if suspect and lopsided and quick_wins >= settings.integrity_pair_games:
            verdict.flags[(w.user_id, loser.user_id, "pair")] = loser.stake
            reasons.add("pair")
    for loser_id, reason in await _open_flags(db, w.user_id, [o.user_id for o in losers]):
        reasons.add("flagged")
        stake = next(o.stake for o in losers if o.user_id == loser_id)
        verdict.flags.setdefault((w.user_id, loser_id, reason), stake)
    return reasons


def _address(
    settings: Settings,
    who: dict[int, Person],
    met: list[Meeting],
    losers: list[Outcome],
    now: datetime,
) -> list[tuple[str, Outcome]]:
    """The losers of this game from an address whose new accounts have given the winner
    more than the limit, this game included."""

    def ring_addr(user_id: int) -> str | None:
        p = who.get(user_id)
        return p.addr if p is not None and p.addr and p.is_new(settings, now) else None

    net: dict[str, int] = defaultdict(int)
    for m in met:
        addr = ring_addr(m.other)
        if addr is not None and m.won != m.other_won:
            net[addr] -= m.other_delta
    for o in losers:
        addr = ring_addr(o.user_id)
        if addr is not None:
            net[addr] += o.stake
    return [
        ("address", o)
        for o in losers
        if (a := ring_addr(o.user_id)) is not None and net[a] > settings.integrity_address_coins
    ]


def _quick(m: Meeting, settings: Settings) -> bool:
    return m.seconds is not None and m.seconds < settings.integrity_quick_game_seconds


async def _since(db: AsyncSession, settings: Settings, winner: int, now: datetime) -> datetime:
    """The window starts at most a window ago, and after the winner's last release."""
    stmt = select(func.max(IntegrityFlag.released_at)).where(IntegrityFlag.winner_id == winner)
    released = (await db.execute(stmt)).scalar_one_or_none()
    start = now - timedelta(seconds=settings.integrity_window_seconds)
    return max(start, released) if released is not None else start


async def _meetings(
    db: AsyncSession, winner: int, since: datetime, settings: Settings
) -> list[Meeting]:
    mine, theirs = aliased(GameRecord), aliased(GameRecord)
    stmt = (
        select(
            mine.game_id,
            mine.outcome,
            theirs.user_id,
            theirs.outcome,
            theirs.coins_delta,
            GameBet.created_at,
            GameBet.settled_at,
        )
        .join(
            theirs,
            and_(
                theirs.game_id == mine.game_id,
                theirs.user_id != mine.user_id,
                theirs.team != mine.team,
            ),
        )
        .join(GameBet, GameBet.game_id == mine.game_id)
        .where(mine.user_id == winner, mine.created_at >= since, mine.bet > 0)
    )
    return [
        Meeting(
            game_id,
            mine_out == "win",
            other,
            their_out == "win",
            int(delta),
            (settled - started).total_seconds() if settled and started else None,
        )
        for game_id, mine_out, other, their_out, delta, started, settled in (
            await db.execute(stmt)
        ).all()
    ]


async def _open_flags(db: AsyncSession, winner: int, losers: list[int]) -> list[tuple[int, str]]:
    """(loser, reason) of this winner's open flags against these losers."""
    stmt = select(IntegrityFlag.loser_id, IntegrityFlag.reason).where(
        IntegrityFlag.winner_id == winner,
        IntegrityFlag.loser_id.in_(losers),
        IntegrityFlag.state == "open",
    )
    return sorted((int(lo), str(r)) for lo, r in (await db.execute(stmt)).all())


async def record(db: AsyncSession, verdict: Verdict, game_id: str, now: datetime) -> None:
    """Write the flags and the hold rows of a verdict (in the settlement's transaction;
    the ledger movement is the settlement's own)."""
    if verdict.flags:
        rows = [
            {
                "winner_id": w,
                "loser_id": lo,
                "reason": reason,
                "games": 0,
                "coins": 0,
                "state": "open",
                "first_at": now,
                "last_at": now,
            }
            for (w, lo, reason) in sorted(verdict.flags)
        ]
        await insert_ignore(db, table_of(IntegrityFlag), rows, ["winner_id", "loser_id", "reason"])
        for (w, lo, reason), coins in sorted(verdict.flags.items()):
            await db.execute(
                update(table_of(IntegrityFlag))
                .where(
                    table_of(IntegrityFlag).c.winner_id == w,
                    table_of(IntegrityFlag).c.loser_id == lo,
                    table_of(IntegrityFlag).c.reason == reason,
                )
                .values(
                    games=table_of(IntegrityFlag).c.games + 1,
                    coins=table_of(IntegrityFlag).c.coins + coins,
                    state="open",
                    last_at=now,
                )
            )
    holds = [
        {
            "game_id": game_id,
            "user_id": u,
            "amount": amount,
            "reasons": verdict.reasons[u],
            "state": "held",
            "created_at": now,
        }
        for u, amount in sorted(verdict.holds.items())
    ]
    if holds:
        await insert_ignore(db, table_of(WinningsHold), holds, ["game_id", "user_id"])
