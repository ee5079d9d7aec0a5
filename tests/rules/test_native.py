"""The rules engine compiled by mypyc (app/native.py): CI tests the compiled engine, a
stale build is seen, and the compiled modules play exactly as the Python sources do."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app import native
from app.rules.ruleset import PRESET_PLAYERS

CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
FORCED_SOURCES = os.environ.get("BURACO_RULES_PURE", "") == "1"
ROOT = Path(native.__file__).resolve().parent.parent


@pytest.mark.skipif(not CI or FORCED_SOURCES, reason="CI builds the compiled engine")
def test_ci_tests_the_compiled_engine() -> None:
    assert native.status() == native.COMPILED
    assert native.loaded(), native.describe()


def test_loaded_matches_the_module_files() -> None:
    from app.rules import bots, engine

    compiled = native.loaded()
    for module in (engine, bots):
        assert (module.__file__ or "").endswith(".py") is not compiled
    if compiled:
        assert native.status() == native.COMPILED
        assert native.describe() == "rules engine: compiled by mypyc"


def test_a_stale_build_in_use_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native, "loaded", lambda: True)
    monkeypatch.setattr(native, "status", lambda rules=native.RULES: native.STALE)
    assert native.running_stale()
    assert "OTHER sources" in native.describe()
    monkeypatch.setattr(native, "status", lambda rules=native.RULES: native.COMPILED)
    assert not native.running_stale()
    assert native.describe() == "rules engine: compiled by mypyc"
    monkeypatch.setattr(native, "loaded", lambda: False)
    assert native.describe().startswith("rules engine: Python sources")


def test_status_sees_a_stale_build(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    for source in native.sources():
        shutil.copy(source, rules / source.name)
    shutil.copy(native.RULES / "conformance.py", rules / "conformance.py")
    assert native.status(rules) == native.PURE  # no build

    suffix = native._ext_suffix()
    for source in native.sources(rules):
        (rules / f"{source.stem}{suffix}").write_bytes(b"")
    (rules / native.STAMP.name).write_text(
        json.dumps({"fingerprint": native.fingerprint(rules)}), encoding="utf-8"
    )
    assert native.status(rules) == native.COMPILED

    # an edit to a compiled module's source: stale until rebuilt
    engine = rules / "engine.py"
    engine.write_text(engine.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert native.status(rules) == native.STALE
    # the modules not compiled do not count
    engine.write_text(
        engine.read_text(encoding="utf-8").removesuffix("\n# edited\n"), encoding="utf-8"
    )
    assert native.status(rules) == native.COMPILED
    (rules / "conformance.py").write_text("# edited\n", encoding="utf-8")
    assert native.status(rules) == native.COMPILED
    # a module missing from the build, or no stamp at all: stale
    (rules / f"bots{suffix}").unlink()
    assert native.status(rules) == native.STALE
    (rules / f"bots{suffix}").write_bytes(b"")
    (rules / native.STAMP.name).unlink()
    assert native.status(rules) == native.STALE


# Seeded GreedyBot hands of every preset and player count, each final state hashed: the
# compiled engine (when this process runs it) must give the very same as the sources. The
# same code runs here and, on the sources, in a fresh interpreter.
HASHES = """
import hashlib, json, random
from app.rules import commands as C
from app.rules.bots import play_hand
from app.rules.greedy import GreedyBot
from app.rules.deal import random_deal
from app.rules.engine import apply
from app.rules.ruleset import PRESET_PLAYERS, make_ruleset
from app.rules.serialize import state_to_dict
from app.rules.state import initial_state

def hashes(hands):
    out = {}
    for preset, counts in PRESET_PLAYERS.items():
        for players in counts:
            rules = make_ruleset(preset, players)
            digest = hashlib.sha256()
            for seed in range(hands):
                deal = random_deal(rules, first=seed % players, rng=random.Random(seed))
                state = apply(initial_state(rules), C.SYSTEM, deal)[1]
                final = play_hand(state, [GreedyBot() for _ in range(players)])
                digest.update(json.dumps(state_to_dict(final), sort_keys=True).encode())
            out[f"{preset}/{players}"] = digest.hexdigest()
    return out
"""
HANDS = 10


def test_compiled_and_sources_play_the_same_hands() -> None:
    code = (
        "from app import native\nnative.use_sources()\n"
        + HASHES
        + f"print(json.dumps(hashes({HANDS})))\n"
        + "from app.rules import engine\nassert engine.__file__.endswith('.py')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    sources = json.loads(result.stdout)
    here: dict[str, object] = {}
    exec(HASHES, here)  # this process's engine: compiled when a build is in place
    assert sources == here["hashes"](HANDS)  # type: ignore[operator]
    assert len(sources) == sum(len(c) for c in PRESET_PLAYERS.values())


def test_use_sources_refuses_once_the_engine_is_imported() -> None:
    with pytest.raises(RuntimeError):
        native.use_sources()
