"""Finished games go to Postgres once; replays and the provably-fair check read them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.db import unit_of_work
from app.core.errors import AppError
from app.rules import fairdeal
from app.rules.deal import deal_commitment, deal_from_dict, deal_to_dict
from app.rules.replay import Mismatch, hand_deal
from app.rules.ruleset import ruleset_from_dict
from app.tables.storage.meta import TableMeta
from app.tables.storage.models import Game


class GameArchive:
    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession]) -> None:
        self.sessionmaker = sessionmaker

    async def __call__(self, meta: TableMeta, log: list[Any]) -> None:
        """Write the game once (keyed by its id: a second call changes nothing)."""
        assert meta.game_id is not None
        async with unit_of_work(self.sessionmaker) as db:
            if await db.get(Game, meta.game_id) is not None:
                return
            totals: list[int] = []
            winner = None
            for record in reversed(log):
                event = record.get("e") or {}
                if event.get("type") == "hand_ended":
                    totals = list(event["totals"])
                    winner = event["match_winner"] if event["match_over"] else None
                    break
            started = datetime.fromtimestamp(meta.started_at or meta.created_at, UTC)
            db.add(
                Game(
                    id=meta.game_id,
                    table_id=meta.id,
                    preset=meta.preset,
                    rules=meta.rules,
                    seats=[s.model_dump() if s else None for s in meta.seats],
                    bet=meta.bet,
                    hands=[h.model_dump() for h in meta.hands],
                    events=log,
                    totals=totals,
                    winner_team=winner,
                    status="finished",
                    started_at=started,
                    private=meta.private,
                    ended_at=datetime.now(UTC),
                )
            )
            try:
                await db.commit()
            except IntegrityError:
                await db.rollback()  # raced with another process: it is written already


def played_in(game: Game, user_id: int) -> bool:
    return any(s and s.get("user_id") == user_id and not s.get("bot") for s in game.seats)


async def load_game(db: AsyncSession, game_id: str, viewer: int) -> Game:
    """A finished game ``viewer`` may read: a private table's only by its players (to
    anyone else it does not exist, so its id reveals nothing)."""
    game = await db.get(Game, game_id)
    if game is None or (game.private and not played_in(game, viewer)):
        raise AppError("game_not_found", "There is no finished game with that id.", 404)
    return game


def verify(game: Game) -> dict[str, Any]:
    """Recompute each hand's SHA-256: of its revealed server seed (and the deal from the
    seeds and the cut, docs/fairness.md), or of its deal and salt (stacked test deals,
    games archived before seeds)."""
    rules = ruleset_from_dict(game.rules)
    hands = []
    for h in game.hands:
        out = {
            "hand_no": h["hand_no"],
            "commitment": h["commitment"],
            "scheme": h.get("scheme", "deal"),
            "deal": h.get("deal") or {},
            "salt": h.get("salt") or "",
        }
        if out["scheme"] == "seed":
            out |= {k: h.get(k) for k in ("server_seed", "client_seeds", "first", "cutter", "cut")}
            out["cut_by"] = h.get("cut_by")
            try:
                out["recomputed"] = fairdeal.commitment(h.get("server_seed") or "")
                # The record holds what the deal follows from; the deal shown is derived.
                out["deal"] = deal_to_dict(hand_deal(rules, h))
                out["ok"] = True
            except (Mismatch, ValueError, KeyError, TypeError):
                out.setdefault("recomputed", "")
                out["ok"] = False
        else:
            recomputed = deal_commitment(deal_from_dict(h["deal"]), h["salt"])
            out |= {"recomputed": recomputed, "ok": recomputed == h["commitment"]}
        hands.append(out)
    return {"game_id": game.id, "ok": all(h["ok"] for h in hands) and bool(hands), "hands": hands}
