"""The compiled rules engine's cache (app/native.py): a build kept under the key of its
sources comes back in place as a build of exactly those sources, and never for others."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app import native


def fake_rules(tmp_path: Path, body: str) -> Path:
    """A rules folder with two modules and a stand-in for their build."""
    rules = tmp_path / "rules"
    rules.mkdir()
    for name in ("engine", "state"):
        (rules / f"{name}.py").write_text(f"X = {body!r}\n")
        (rules / f"{name}{native._ext_suffix()}").write_bytes(b"built from " + body.encode())
    stamp = {"fingerprint": native.fingerprint(rules)}
    (rules / native.STAMP.name).write_text(json.dumps(stamp))
    assert native.status(rules) == native.COMPILED
    return rules


def test_a_cached_build_comes_back_only_for_its_own_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path / "cache"))
    rules = fake_rules(tmp_path, "one")
    key = native.cache_key(rules)
    native.store_in_cache(key, rules)
    native.store_in_cache(key, rules)  # twice: kept once, no error
    for path in native.artifacts(rules):
        path.unlink()
    (rules / native.STAMP.name).unlink()
    assert native.status(rules) == native.PURE
    assert native.restore_from_cache(key, rules)
    assert native.status(rules) == native.COMPILED
    assert (rules / f"engine{native._ext_suffix()}").read_bytes() == b"built from one"
    # Other sources: another key, nothing kept under it.
    (rules / "engine.py").write_text("X = 'two'\n")
    other = native.cache_key(rules)
    assert other != key
    assert not native.restore_from_cache(other, rules)
    # The old build under the new sources' name (a cache tampered with) is refused and
    # taken away, so the sources run rather than a stale build.
    (tmp_path / "cache" / key).rename(tmp_path / "cache" / other)
    assert not native.restore_from_cache(other, rules)
    assert native.status(rules) == native.PURE


def test_off_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native.CACHE_ENV, "off")
    rules = fake_rules(tmp_path, "one")
    native.store_in_cache(native.cache_key(rules), rules)
    assert native.cache_root() is None
    assert not native.restore_from_cache(native.cache_key(rules), rules)
