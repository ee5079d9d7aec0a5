"""``python -m app.ops tournaments``: an operator's scheduled tournaments from the shell.

``create`` takes the admin API's fields as options and checks them the same way
(``ScheduledIn``); ``list`` prints the latest; ``cancel ID`` cancels one that has not
started, refunding every entrant once. JSON on stdout; a refusal is
``{"error": {"code", "message"}}`` with exit status 1.
"""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from app.core.config import get_settings
from app.core.db import create_engine, create_sessionmaker
from app.core.errors import AppError
from app.economy.notify import Outbox
from app.tournaments import money, service
from app.tournaments.schemas import ScheduledIn


def add_parser(sub: Any) -> None:
    cmd = sub.add_parser("tournaments", help="scheduled tournaments: create, list, cancel")
    actions = cmd.add_subparsers(dest="action", required=True)
    make = actions.add_parser("create", help="a scheduled tournament")
    make.add_argument("--name", required=True)
    make.add_argument("--starts-at", required=True, help="ISO time with a zone")
    make.add_argument("--format", default="swiss", choices=["swiss", "knockout"])
    make.add_argument("--players", type=int, default=2, choices=[2, 4])
    make.add_argument("--preset", default="burraco")
    make.add_argument("--min", type=int, default=4, dest="min_entrants")
    make.add_argument("--max", type=int, default=64, dest="max_entrants")
    make.add_argument("--buy-in", type=int, default=0)
    make.add_argument("--fee-bps", type=int, default=None)
    make.add_argument("--guaranteed", type=int, default=0)
    make.add_argument("--rounds", type=int, default=5)
    make.add_argument("--hands", type=int, default=2)
    make.add_argument("--round-seconds", type=int, default=1800)
    make.add_argument("--late-seconds", type=int, default=0)
    make.add_argument("--registration-opens-at", default=None)
    make.add_argument("--duplicate", action="store_true")
    make.add_argument("--turbo", action="store_true")
    actions.add_parser("list", help="the latest 100")
    stop = actions.add_parser("cancel", help="cancel before the start, refunding everyone")
    stop.add_argument("id", type=int)


def _spec(args: argparse.Namespace) -> ScheduledIn:
    return ScheduledIn(
        name=args.name,
        format=args.format,
        players=args.players,
        preset=args.preset,
        min_entrants=args.min_entrants,
        max_entrants=args.max_entrants,
        buy_in=args.buy_in,
        fee_bps=args.fee_bps,
        guaranteed=args.guaranteed,
        rounds=args.rounds,
        hands=args.hands,
        round_seconds=args.round_seconds,
        late_registration_seconds=args.late_seconds,
        duplicate=args.duplicate,
        turbo=args.turbo,
        starts_at=datetime.fromisoformat(args.starts_at),
        registration_opens_at=(
            datetime.fromisoformat(args.registration_opens_at)
            if args.registration_opens_at
            else None
        ),
    )


async def run(args: argparse.Namespace) -> tuple[int, Any]:
    settings = get_settings()
    engine = create_engine(settings.database_url, pool_size=1)
    try:
        async with create_sessionmaker(engine)() as db:
            if args.action == "list":
                found = await service.listing(db, None, None)
                return 0, [t.model_dump(mode="json") for t in found]
            if args.action == "create":
                t = await service.create_scheduled(db, settings, _spec(args))
                await db.commit()
                return 0, (await service.one(db, t.id, None)).model_dump(mode="json")
            await money.cancel(db, Outbox(), args.id)
            await db.commit()
            return 0, (await service.one(db, args.id, None)).model_dump(mode="json")
    except AppError as exc:
        return 1, {"error": {"code": exc.code, "message": exc.message}}
    except (ValidationError, ValueError) as exc:
        return 1, {"error": {"code": "invalid_tournament", "message": str(exc)}}
    finally:
        await engine.dispose()
