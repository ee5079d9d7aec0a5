"""A finished game's replay (docs/replay.md): check it offline, step through it, score it.

``verify(replay)`` recomputes every deal from its revealed seed, client seeds and cut
(``fairdeal.py``), checks the commitments, applies every command again through the
engine and compares the events and the final scores; it needs nothing but app.rules::

    python -m app.rules.replay verify GAME.json

exits 0 with a one-line summary, or 1 naming the first mismatch.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

from . import commands as C
from . import fairdeal
from .cards import NAME
from .deal import deal_commitment, deal_from_dict, deal_to_dict
from .engine import apply
from .errors import RuleViolation
from .ruleset import RuleSet, ruleset_from_dict
from .serialize import command_from_dict, event_to_dict
from .state import State, initial_state, next_first
from .views import view_for

FORMAT = "buraco-replay"
VERSION = 1


class Mismatch(Exception):
    """The replay disagrees with what the engine recomputes (``str``: where and what)."""


def _plain(value: Any) -> Any:
    """JSON's view of a value (tuples become lists), to compare like with like."""
    return json.loads(json.dumps(value))


def hand_deal(rules: RuleSet, hand: dict[str, Any]) -> C.Deal:
    """The deal a hand record commits to, checked against its commitment."""
    no = hand.get("hand_no")
    if hand.get("scheme") == "seed":
        seed = str(hand.get("server_seed") or "")
        try:
            recomputed = fairdeal.commitment(seed)
        except ValueError:
            raise Mismatch(f"hand {no}: the server seed is not 32 bytes of hex") from None
        if recomputed != hand.get("commitment"):
            raise Mismatch(f"hand {no}: commitment mismatch (SHA-256 of the seed is {recomputed})")
        first = int(hand["first"])
        if hand.get("cutter") != fairdeal.cutter_of(first, rules.players):
            raise Mismatch(f"hand {no}: the cutter is not the seat to the dealer's right")
        try:
            deal = fairdeal.derive_deal(
                rules, seed, list(hand.get("client_seeds") or []), int(hand["cut"]), first
            )
        except (ValueError, TypeError):
            raise Mismatch(f"hand {no}: the cut is not a legal position") from None
        if hand.get("deal") and _plain(deal_to_dict(deal)) != _plain(hand["deal"]):
            raise Mismatch(f"hand {no}: deal mismatch (the seeds and the cut deal otherwise)")
        return deal
    deal = deal_from_dict(hand["deal"])
    if deal_commitment(deal, str(hand.get("salt") or "")) != hand.get("commitment"):
        raise Mismatch(f"hand {no}: commitment mismatch (deal and salt)")
    return deal


def replay_states(replay: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any], State]]:
    """Apply the replay: yields (hand index, move, state after it) for every move of every
    hand, the deal (move 0) first, raising Mismatch at the first disagreement."""
    if replay.get("format") != FORMAT or replay.get("version") != VERSION:
        raise Mismatch(f"not a {FORMAT} version {VERSION} file")
    rules = ruleset_from_dict(replay["rules"])
    state = initial_state(rules)
    for h, hand in enumerate(replay["hands"]):
        no = hand.get("hand_no")
        if no != state.hand_no + 1:
            raise Mismatch(f"hand {no}: hands out of order")
        deal = hand_deal(rules, hand)
        if state.hand_no and deal.first != next_first(state):
            raise Mismatch(f"hand {no}: the first seat does not move round")
        moves = hand.get("moves") or []
        if not moves or moves[0].get("n") != 0:
            raise Mismatch(f"hand {no}: move 0 (the deal) is missing")
        for i, move in enumerate(moves):
            where = f"hand {no}, move {i}"
            if move.get("n") != i:
                raise Mismatch(f"{where}: moves out of order")
            if i == 0:
                events, state = apply(state, C.SYSTEM, deal)
            else:
                try:
                    cmd = command_from_dict(move["command"])
                    events, state = apply(state, move["seat"], cmd)
                except (RuleViolation, ValueError, KeyError, TypeError) as exc:
                    raise Mismatch(f"{where}: the engine refuses the command ({exc})") from None
            if _plain([event_to_dict(e) for e in events]) != _plain(move.get("events")):
                raise Mismatch(f"{where}: event mismatch")
            yield h, move, state
        if state.hand_no != no or state.phase in ("draw", "play"):
            raise Mismatch(f"hand {no}: the moves do not end the hand")


def verify(replay: dict[str, Any]) -> str:
    """The one-line summary of a replay that checks out; raises Mismatch otherwise."""
    state: State | None = None
    moves = 0
    for _, _, after in replay_states(replay):
        state = after
        moves += 1
    if state is None:
        raise Mismatch("the replay has no hands")
    if list(state.totals) != list(replay.get("totals") or []):
        raise Mismatch(f"final scores mismatch: the engine counts {list(state.totals)}")
    winner = state.match_winner if state.match_winner >= 0 else None
    if winner != replay.get("winner_team"):
        raise Mismatch(f"final scores mismatch: the engine's winner is {winner}")
    return (
        f"OK {replay.get('game_id')}: {len(replay['hands'])} hands, {moves - len(replay['hands'])}"
        f" moves, totals {list(state.totals)}, commitments, deals, events and scores match"
    )


def frame_state(state: State) -> dict[str, Any]:
    """A spectator's view with every hand and muerto shown (the replay viewer's frame)."""
    view = view_for(state, None)
    view["hands"] = [[NAME[c] for c in h] for h in state.hands]
    view["muerto_cards"] = [[NAME[c] for c in m] for m in state.muertos]
    return view


def frames(replay: dict[str, Any]) -> dict[str, Any]:
    """Every hand, move by move, with the table after each move (docs/replay.md,
    "Frames"). The replay is checked on the way (Mismatch)."""
    hands: list[dict[str, Any]] = []
    for h, move, state in replay_states(replay):
        if h == len(hands):
            hand = replay["hands"][h]
            hands.append(
                {
                    "hand_no": hand["hand_no"],
                    "dealer": hand.get("dealer")
                    if hand.get("dealer") is not None
                    else fairdeal.dealer_of(int(hand.get("first") or 0), state.rules.players),
                    "cutter": hand.get("cutter"),
                    "cut": hand.get("cut"),
                    "cut_by": hand.get("cut_by"),
                    "commitment": hand["commitment"],
                    "server_seed": hand.get("server_seed") or "",
                    "frames": [],
                }
            )
        hands[h]["frames"].append(
            {
                "n": move["n"],
                "seat": move.get("seat"),
                "command": move.get("command"),
                "events": move.get("events") or [],
                "state": frame_state(state),
            }
        )
        hands[h]["hand_scores"] = list(state.hand_scores)
        hands[h]["totals"] = list(state.totals)
    return {
        "game_id": replay.get("game_id"),
        "version": VERSION,
        "players": replay["players"],
        "rules": replay["rules"],
        "totals": replay.get("totals") or [],
        "winner_team": replay.get("winner_team"),
        "hands": hands,
    }


def score_sheet(replay: dict[str, Any]) -> str:
    """A plain-text score sheet: per hand each side's melds, canastas and points as the
    engine scores them, then the totals."""
    rules = ruleset_from_dict(replay["rules"])
    names = {p["seat"]: p["name"] for p in replay["players"]}
    sides = [
        " & ".join(names.get(s, f"seat {s}") for s in range(rules.players) if rules.team_of(s) == t)
        for t in range(rules.teams)
    ]
    lines = [
        f"Buraco - {replay.get('preset') or ''} - game {replay.get('game_id')}",
        f"Played {replay.get('started_at') or ''} to {replay.get('ended_at') or ''}",
        "",
    ]
    lines += [f"Side {t + 1}: {sides[t]}" for t in range(rules.teams)]
    last: State | None = None
    for _, move, state in replay_states(replay):
        last = state
        ended = [e for e in move.get("events") or [] if e.get("type") == "hand_ended"]
        if not ended:
            continue
        end = ended[0]
        lines += ["", f"Hand {state.hand_no} ({end['reason']})"]
        for t, score in enumerate(end["scores"]):
            kinds = ", ".join(score["canastas"]) or "none"
            lines.append(
                f"  Side {t + 1}: {len(state.melds[t])} melds; canastas: {kinds};"
                f" table {score['table']}, canastas {score['canasta_bonus']},"
                f" closing {score['close_bonus']}, hand {score['hand']},"
                f" muerto {score['muerto_penalty']}; hand total {score['total']};"
                f" running total {state.totals[t]}"
            )
    lines.append("")
    totals = list(last.totals) if last is not None else []
    lines += [f"Total side {t + 1}: {v}" for t, v in enumerate(totals)]
    winner = replay.get("winner_team")
    lines.append(
        f"Winner: side {winner + 1} ({sides[winner]})" if winner is not None else "No winner"
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] != "verify":
        print("usage: python -m app.rules.replay verify FILE.json", file=sys.stderr)
        return 2
    try:
        with open(args[1], encoding="utf-8") as f:
            replay = json.load(f)
        print(verify(replay))
    except (OSError, ValueError) as exc:
        print(f"FAILED: cannot read {args[1]}: {exc}")
        return 1
    except Mismatch as exc:
        print(f"FAILED: {exc}")
        return 1
    except (KeyError, TypeError, AttributeError) as exc:
        print(f"FAILED: the file is not a complete replay (missing or bad {exc})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
