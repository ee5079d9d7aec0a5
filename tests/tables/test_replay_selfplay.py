"""200 bot games through the engine, each recorded as the table service records a game
(commands on the events, seeded and cut deals), archived, read back as a replay and
checked by the offline verifier; the verifier catches tampering; the frames and the
score sheet come from the same replay."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.rules.deal import deal_to_dict
from app.rules.replay import Mismatch, frames, main, score_sheet, verify
from tests.tables.replay_support import PRESETS, play_recorded_game


@pytest.fixture(scope="module")
def four_hands() -> dict[str, Any]:
    return play_recorded_game(7, "burraco", 2, target=1500)


def test_200_bot_games_verify() -> None:
    hands = 0
    for i in range(200):
        preset = PRESETS[i % len(PRESETS)]
        players = (2, 4, 2, 3 if preset == "brasil" else 4)[i % 4]
        replay = play_recorded_game(1000 + i, preset, players, target=1200 if i % 5 == 0 else 0)
        summary = verify(replay)
        assert summary.startswith(f"OK g{1000 + i}:"), summary
        hands += len(replay["hands"])
    assert hands > 200  # some games ran over several hands


def test_the_cli_verifies_a_file_and_names_a_mismatch(
    tmp_path: Path, four_hands: dict[str, Any]
) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(four_hands))
    out = subprocess.run(
        [sys.executable, "-m", "app.rules.replay", "verify", str(good)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("OK g7:") and out.stdout.count("\n") == 1
    bad = copy.deepcopy(four_hands)
    bad["totals"][0] += 10
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    out = subprocess.run(
        [sys.executable, "-m", "app.rules.replay", "verify", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 1 and "final scores mismatch" in out.stdout


def _fails(replay: dict[str, Any], words: str) -> None:
    with pytest.raises(Mismatch, match=words):
        verify(replay)


def test_a_tampered_seed_fails_the_commitment(four_hands: dict[str, Any]) -> None:
    bad = copy.deepcopy(four_hands)
    seed = bad["hands"][1]["server_seed"]
    bad["hands"][1]["server_seed"] = ("0" if seed[0] != "0" else "1") + seed[1:]
    _fails(bad, "hand 2: commitment mismatch")


def test_a_tampered_cut_or_client_seed_fails_the_deal(four_hands: dict[str, Any]) -> None:
    bad = copy.deepcopy(four_hands)
    bad["hands"][0]["cut"] = bad["hands"][0]["cut"] % 90 + 5
    _fails(bad, "hand 1: deal mismatch")
    bad = copy.deepcopy(four_hands)
    bad["hands"][0]["client_seeds"] = ["sneaky", None]
    _fails(bad, "hand 1: deal mismatch")
    bad = copy.deepcopy(four_hands)
    bad["hands"][0]["cut"] = 2
    _fails(bad, "hand 1: the cut is not a legal position")


def test_a_tampered_command_is_named_by_its_move(four_hands: dict[str, Any]) -> None:
    bad = copy.deepcopy(four_hands)
    moves = bad["hands"][0]["moves"]
    n = next(m["n"] for m in moves if m["command"] and m["command"]["type"] == "discard")
    hand = bad["hands"][0]["moves"][0]["events"][0]["hands"][moves[n]["seat"]]
    other = next(c for c in ["JK", "AS", "KH", "5D", "9C"] if c not in hand)
    moves[n]["command"]["card"] = other
    with pytest.raises(Mismatch, match=f"hand 1, move {n}: "):
        verify(bad)


def test_a_tampered_event_or_score(four_hands: dict[str, Any]) -> None:
    bad = copy.deepcopy(four_hands)
    bad["hands"][0]["moves"][1]["events"][0]["seat"] = 5
    _fails(bad, "hand 1, move 1: event mismatch")
    bad = copy.deepcopy(four_hands)
    bad["winner_team"] = 1 - (bad["winner_team"] or 0)
    _fails(bad, "final scores mismatch")
    bad = copy.deepcopy(four_hands)
    del bad["hands"][0]["moves"][-1]
    _fails(bad, "hand 1: the moves do not end the hand")


def test_the_cli_refuses_what_is_not_a_replay(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"format": "other"}')
    assert main(["verify", str(path)]) == 1
    path.write_text("not json")
    assert main(["verify", str(path)]) == 1
    assert main(["check"]) == 2


def test_frames_follow_the_contract(four_hands: dict[str, Any]) -> None:
    body = frames(four_hands)
    assert body["version"] == 1 and body["game_id"] == "g7"
    assert body["players"][1] == {
        "seat": 1,
        "team": 1,
        "name": "Bot 1",
        "bot": True,
        "user_id": None,
    }
    assert len(body["hands"]) == len(four_hands["hands"]) >= 2
    for hand, source in zip(body["hands"], four_hands["hands"], strict=True):
        assert hand["cut"] == source["cut"] and hand["cutter"] == source["cutter"]
        assert hand["dealer"] == source["dealer"] and hand["cut_by"] == "bot"
        assert hand["commitment"] == source["commitment"]
        assert hand["server_seed"] == source["server_seed"]
        assert [f["n"] for f in hand["frames"]] == list(range(len(source["moves"])))
        deal = hand["frames"][0]
        assert deal["seat"] is None and deal["command"] is None
        assert deal["events"][0]["type"] == "hand_started"
        state = deal["state"]
        assert state["viewer"] is None and state["hand"] is None
        assert [len(h) for h in state["hands"]] == [11, 11]
        assert [len(m) for m in state["muerto_cards"]] == [11, 11]
        last = hand["frames"][-1]
        assert last["events"][-1]["type"] == "hand_ended"
        assert hand["hand_scores"] == [s["total"] for s in last["events"][-1]["scores"]]
        assert hand["totals"] == last["events"][-1]["totals"]
    assert body["hands"][-1]["totals"] == body["totals"] == four_hands["totals"]


def test_the_score_sheet(four_hands: dict[str, Any]) -> None:
    text = score_sheet(four_hands)
    assert "Side 1: P0" in text and "Side 2: Bot 1" in text
    assert text.count("\nHand ") == len(four_hands["hands"])
    totals = four_hands["totals"]
    assert f"Total side 1: {totals[0]}" in text and f"Total side 2: {totals[1]}" in text
    assert f"Winner: side {four_hands['winner_team'] + 1}" in text


def test_the_fairness_check_reads_seeded_and_older_hands() -> None:
    """GET /verify's check: a seeded hand by its seed, seeds and cut; a hand archived
    with a deal and a salt (stacked test deals, games before seeds) as before."""
    from app.rules.deal import deal_commitment, random_deal
    from app.rules.ruleset import PRESETS as RULESETS
    from app.tables.storage.archive import verify as fairness
    from app.tables.storage.models import Game

    replay = play_recorded_game(3, "burraco", 2)
    seeded = {k: v for k, v in replay["hands"][0].items() if k != "moves"}
    deal = random_deal(RULESETS["burraco"], 0, random.Random(1))
    legacy = {
        "hand_no": 2,
        "commitment": deal_commitment(deal, "ab" * 8),
        "deal": deal_to_dict(deal),
        "salt": "ab" * 8,
        "revealed": True,
    }
    game = Game(id="g", rules=replay["rules"], hands=[seeded, legacy])
    out = fairness(game)
    assert out["ok"] and [h["ok"] for h in out["hands"]] == [True, True]
    assert out["hands"][0]["scheme"] == "seed" and out["hands"][0]["cut"] == seeded["cut"]
    assert out["hands"][1]["scheme"] == "deal"
    tampered = dict(seeded, cut=seeded["cut"] % 90 + 5)
    assert not fairness(Game(id="g", rules=replay["rules"], hands=[tampered]))["ok"]
    salted = dict(legacy, salt="cd" * 8)
    assert not fairness(Game(id="g", rules=replay["rules"], hands=[salted]))["ok"]
