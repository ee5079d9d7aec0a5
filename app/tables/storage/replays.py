"""A finished game's replay (docs/replay.md), built from its archived log, and who may
read it: the players always; anyone a public table's game once it is over; nobody a
game still being played (its hands are hidden), whose id answers 409 ``game_live``."""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import AppError
from app.rules.replay import FORMAT, VERSION
from app.rules.ruleset import ruleset_from_dict
from app.tables.storage.archive import played_in
from app.tables.storage.meta import TableMeta
from app.tables.storage.models import Game
from app.tables.storage.store import TableStore

GAME_KEY_TTL = 7 * 86400  # a live game's id -> its table, for the refusal

_HAND_FIELDS = (
    "scheme",
    "commitment",
    "server_seed",
    "client_seeds",
    "first",
    "dealer",
    "cutter",
    "cut",
    "cut_by",
    "deal",
    "salt",
)


def k_game(game_id: str) -> str:
    return f"game_table:{game_id}"


async def remember_live_game(redis: Redis, game_id: str, table_id: str) -> None:
    await redis.set(k_game(game_id), table_id, ex=GAME_KEY_TTL)


def not_found() -> AppError:
    return AppError("game_not_found", "There is no finished game with that id.", 404)


async def load_for_replay(db: AsyncSession, store: TableStore, game_id: str, viewer: int) -> Game:
    """The finished game ``viewer`` may replay, else 404 (unknown, or private and not
    theirs), 409 ``game_live`` (a known game, or table, still being played) or 409
    ``game_archiving`` (just over, its archive not written yet: asked again shortly, it
    is there)."""
    game = await db.get(Game, game_id)
    if game is not None:
        if game.private and not played_in(game, viewer):
            raise not_found()
        return game
    raw = await store.redis.get(k_game(game_id))
    table_id = raw.decode() if isinstance(raw, bytes) else (raw or game_id)
    loaded = await store.load(table_id)
    if loaded is None or loaded.meta is None:
        raise not_found()
    meta = TableMeta.model_validate_json(loaded.meta)
    if meta.game_id is None or not meta.may_watch(viewer):
        raise not_found()
    if meta.status == "finished":  # over, its archive not written yet: a moment more
        raise AppError(
            "game_archiving",
            "That game has just ended and is being saved; its replay opens in a moment.",
            409,
        )
    if meta.status in ("starting", "playing"):
        raise AppError(
            "game_live",
            "That game is still being played; its replay opens when it is over.",
            409,
        )
    raise not_found()


def build_replay(game: Game) -> dict[str, Any]:
    """The replay document of an archived game (docs/replay.md)."""
    rules = ruleset_from_dict(game.rules)
    if not any(r.get("k") == "g" and "c" in r for r in game.events):
        raise AppError(
            "replay_unavailable", "This game was archived without its moves; it has no replay.", 409
        )
    fairness = {h["hand_no"]: h for h in game.hands}
    hands: list[dict[str, Any]] = []
    for record in game.events:
        if record.get("k") != "g":
            continue
        event = record["e"]
        if event.get("type") == "hand_started":
            fair = fairness.get(event["hand_no"], {})
            hand = {"hand_no": event["hand_no"]}
            hand |= {k: fair.get(k) for k in _HAND_FIELDS}
            hand["scheme"] = fair.get("scheme") or "deal"
            hand["moves"] = [{"n": 0, "seat": None, "command": None, "events": [event]}]
            hands.append(hand)
        elif not hands:
            continue
        elif "c" in record:
            moves = hands[-1]["moves"]
            moves.append(
                {
                    "n": len(moves),
                    "seat": record.get("s"),
                    "command": record["c"],
                    "events": [event],
                }
            )
        else:
            hands[-1]["moves"][-1]["events"].append(event)
    return {
        "format": FORMAT,
        "version": VERSION,
        "game_id": game.id,
        "table_id": game.table_id,
        "preset": game.preset,
        "rules": game.rules,
        "players": [
            {
                "seat": i,
                "team": rules.team_of(i),
                "name": (s or {}).get("name", ""),
                "bot": bool((s or {}).get("bot")),
                "user_id": (s or {}).get("user_id"),
            }
            for i, s in enumerate(game.seats)
        ],
        "started_at": game.started_at.isoformat(),
        "ended_at": game.ended_at.isoformat() if game.ended_at else None,
        "hands": hands,
        "totals": list(game.totals or []),
        "winner_team": game.winner_team,
    }
