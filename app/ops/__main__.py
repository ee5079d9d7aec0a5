"""``python -m app.ops integrity [--all] [--release USER_ID]``: the chip-dumping report
(flagged pairs, figures, held winnings and actions) as JSON on stdout, from the database
the ``BURACO_`` settings name; ``--release`` first releases one winner's held winnings
(exactly once, as the admin endpoint does).

``python -m app.ops tournaments create|list|cancel``: scheduled tournaments, with the
admin API's checks (app/ops/tournaments.py, docs/tournaments.md)."""

from __future__ import annotations

import argparse
import asyncio
import sys

import orjson

from app.core.config import get_settings
from app.core.db import create_engine, create_sessionmaker
from app.economy import holds
from app.economy.integrity_report import report
from app.economy.notify import Outbox
from app.ops import tournaments


async def integrity(include_released: bool, release: int | None) -> dict[str, object]:
    settings = get_settings()
    engine = create_engine(settings.database_url, pool_size=1)
    try:
        async with create_sessionmaker(engine)() as db:
            out: dict[str, object] = {}
            if release is not None:
                done = await holds.release(db, Outbox(), release)
                await db.commit()
                out["released"] = {
                    "user_id": done.user_id,
                    "games": done.games,
                    "coins": done.coins,
                }
            out.update(await report(db, include_released=include_released))
            return out
    finally:
        await engine.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.ops")
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser("integrity", help="chip-dumping report: flagged pairs and holds")
    cmd.add_argument("--all", action="store_true", help="released flags too")
    cmd.add_argument("--release", type=int, metavar="USER_ID", help="release a winner's holds")
    tournaments.add_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "tournaments":
        code, found = asyncio.run(tournaments.run(args))
        sys.stdout.write(orjson.dumps(found, option=orjson.OPT_INDENT_2).decode() + "\n")
        return code
    out = asyncio.run(integrity(args.all, args.release))
    sys.stdout.write(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
