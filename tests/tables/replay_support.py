"""Engine-only games recorded as the table service records them (command records on
the events, seeded and cut deals), archived as a Game row and read back as a replay."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from app.rules import commands as C
from app.rules import fairdeal
from app.rules.deal import deal_to_dict
from app.rules.engine import apply
from app.rules.levels import make_bot
from app.rules.ruleset import make_ruleset
from app.rules.state import DRAW, OVER, PLAY, initial_state, next_first
from app.tables.play.service import game_records
from app.tables.storage.models import Game
from app.tables.storage.replays import build_replay

PRESETS = ["abierto", "abierto_sucio", "cerrado", "cerrado_sucio", "burraco", "burako", "brasil"]


def play_recorded_game(seed: int, preset: str, players: int, target: int = 0) -> dict[str, Any]:
    """One bot game through the engine, its deals derived from random seeds, client
    seeds and cuts; returns the replay document ``build_replay`` makes of it."""
    rng = random.Random(seed)
    overrides: dict[str, Any] = {"target_score": target} if target else {}
    rules = make_ruleset(preset, players, overrides)
    bots = [
        make_bot("normal") if s % 2 == 0 else make_bot("easy", seed + s) for s in range(players)
    ]
    state = initial_state(rules)
    log: list[dict[str, Any]] = []
    hands: list[dict[str, Any]] = []
    while state.phase != OVER:
        first = next_first(state) if state.hand_no else rng.randrange(players)
        server_seed = rng.randbytes(32).hex()
        client_seeds = [rng.choice([None, f"s{rng.randrange(10**6)}"]) for _ in range(players)]
        lo, hi = fairdeal.cut_range(fairdeal.deck_size(rules))
        cut = rng.randint(lo, hi)
        deal = fairdeal.derive_deal(rules, server_seed, client_seeds, cut, first)
        hands.append(
            {
                "hand_no": state.hand_no + 1,
                "scheme": "seed",
                "commitment": fairdeal.commitment(server_seed),
                "server_seed": server_seed,
                "client_seeds": client_seeds,
                "first": first,
                "dealer": fairdeal.dealer_of(first, players),
                "cutter": fairdeal.cutter_of(first, players),
                "cut": cut,
                "cut_by": "bot",
                "deal": deal_to_dict(deal),
                "salt": "",
                "revealed": True,
            }
        )
        events, state = apply(state, C.SYSTEM, deal)
        log += game_records(events)
        steps = 0
        while state.phase in (DRAW, PLAY):
            seat = state.turn
            cmd = bots[seat].choose(state, seat)
            events, state = apply(state, seat, cmd)
            log += game_records(events, ((0, seat, cmd),))
            steps += 1
            assert steps < 5000
    game = Game(
        id=f"g{seed}",
        table_id=f"t{seed}",
        preset=preset,
        rules=rules.to_dict(),
        seats=[
            {"user_id": None, "name": f"Bot {s}", "bot": True}
            if s % 2
            else {"user_id": 100 + s, "name": f"P{s}", "bot": False}
            for s in range(players)
        ],
        bet=0,
        hands=hands,
        events=log,
        totals=list(state.totals),
        winner_team=state.match_winner if state.match_winner >= 0 else None,
        status="finished",
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        ended_at=datetime(2026, 1, 1, 1, tzinfo=UTC),
        private=False,
    )
    return build_replay(game)
