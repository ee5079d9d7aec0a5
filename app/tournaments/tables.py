"""A match's live table: made through the table service, seated by the tournament.

The table's id is fixed by the match (``t{tournament}r{round}m{table}``), so making it
twice (two processes, or one retried after a crash) makes it once. It has no bet, its
seats are taken from the start (people and the bots of a Sit & Go), it deals ``hands``
hands or stops at the round's time limit (``TableMeta.hand_limit``,
``round_deadline``), and in a duplicate tournament every table of a round deals from
the round's seed (``deal_seed``).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import time

from app.core.errors import AppError
from app.rules.ruleset import make_ruleset
from app.tables.play.service import TableService
from app.tables.storage.meta import Seat, TableMeta, bot_seat, person_seat
from app.tables.storage.store import Conflict

_TABLE_ID = re.compile(r"t(\d+)r(\d+)m(\d+)")
TARGET = 100_000  # out of reach: a match ends by its hands or its time, not its score


def table_id_of(tournament_id: int, round_no: int, table_no: int) -> str:
    return f"t{tournament_id}r{round_no}m{table_no}"


def parse_table_id(table_id: str) -> tuple[int, int, int]:
    """(tournament, round, table) of a match's table id; ValueError for any other id."""
    match = _TABLE_ID.fullmatch(table_id)
    if match is None:
        raise ValueError(table_id)
    return int(match[1]), int(match[2]), int(match[3])


def tag_of(tournament_id: int, round_no: int, table_no: int) -> str:
    return f"{tournament_id}:{round_no}:{table_no}"


def parse_tag(tag: str) -> tuple[int, int, int]:
    a, b, c = tag.split(":")
    return int(a), int(b), int(c)


def round_seed(secret: str, round_no: int) -> str:
    return hashlib.sha256(f"{secret}:round:{round_no}".encode()).hexdigest()[:32]


def seats_for(
    players: int, side_a: list[tuple[int | None, str]], side_b: list[tuple[int | None, str]]
) -> list[Seat | None]:
    """Team 0 (side a) at seats 0 and 2, team 1 (side b) at 1 and 3; ``None`` user: a bot."""
    order = [side_a[0], side_b[0]] if players == 2 else [side_a[0], side_b[0], side_a[1], side_b[1]]
    return [
        bot_seat(i) if user is None else person_seat(user, name)
        for i, (user, name) in enumerate(order)
    ]


async def open_match_table(
    svc: TableService,
    *,
    tournament_id: int,
    round_no: int,
    table_no: int,
    name: str,
    preset: str,
    players: int,
    turbo: bool,
    hands: int,
    deadline: float,
    deal_secret: str | None,
    seats: list[Seat | None],
) -> str:
    """Make the table (once) and start its game. Returns its id."""
    table_id = table_id_of(tournament_id, round_no, table_no)
    try:
        _, meta, _ = await svc.load(table_id)
    except AppError:
        meta = None
    if meta is None:
        overrides = {"target_score": TARGET, **({"pairs": True} if players == 4 else {})}
        rules = make_ruleset(preset, players, overrides)
        host = next((s.user_id for s in seats if s is not None and s.user_id), 0)
        meta = TableMeta(
            id=table_id,
            name=name[:60],
            host=host or 0,
            kind="table",
            preset=preset,
            overrides=overrides,
            rules=rules.to_dict(),
            players=players,
            bet=0,
            turbo=turbo,
            target_score=rules.target_score,
            seats=seats,
            created_at=time.time(),
            tournament=tag_of(tournament_id, round_no, table_no),
            hand_limit=hands,
            round_deadline=deadline,
            deal_seed=round_seed(deal_secret, round_no) if deal_secret else None,
        )
        # Made by another process meanwhile (a version conflict): start it all the same.
        with contextlib.suppress(Conflict):
            await svc.create(meta)
    await svc.maybe_start(table_id)
    return table_id
