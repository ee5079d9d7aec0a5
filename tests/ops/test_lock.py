"""The lock files (requirements/*.lock, `make lock`) pin every dependency with hashes, at
pyproject.toml's versions, and the runtime lock holds no embedded-mode or dev package."""

from __future__ import annotations

import re
import tomllib

import pytest

from tests.support import REPO_ROOT

LOCKS = REPO_ROOT / "requirements"
PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)(\[[^\]]*\])?==([^\s;]+)")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked(name: str) -> dict[str, str]:
    """name -> version; asserts each entry has at least one hash."""
    text = (LOCKS / name).read_text()
    entries: dict[str, str] = {}
    for block in re.split(r"\n(?=\S)", text):
        m = PIN.match(block)
        if m:
            assert "--hash=sha256:" in block, block.splitlines()[0]
            entries[_norm(m.group(1))] = m.group(3)
    assert entries, name
    return entries


def pins(requirements: list[str]) -> dict[str, str]:
    out = {}
    for req in requirements:
        m = PIN.match(req)
        if m:
            out[_norm(m.group(1))] = m.group(3)
    return out


@pytest.mark.parametrize(
    ("lock", "groups"),
    [
        ("runtime.lock", ()),
        ("dev.lock", ("embedded", "dev")),
    ],
)
def test_every_direct_dependency_is_locked_at_its_pin(lock: str, groups: tuple[str, ...]) -> None:
    project = PYPROJECT["project"]
    wanted = pins(project["dependencies"])
    for group in groups:
        wanted |= pins(project["optional-dependencies"][group])
    have = locked(lock)
    assert {name: have.get(name) for name in wanted} == wanted


def test_runtime_lock_has_no_embedded_or_dev_packages() -> None:
    runtime = locked("runtime.lock")
    for name in (
        "fakeredis",
        "lupa",
        "aiosqlite",
        "watchfiles",
        "pytest",
        "mypy",
        "ruff",
        "uv",
        "pip",
        "setuptools",
    ):
        assert name not in runtime, name


def test_build_lock_and_installs_use_the_locks() -> None:
    assert {"mypy", "setuptools"} <= set(locked("build.lock"))
    makefile = (REPO_ROOT / "Makefile").read_text()
    assert "--require-hashes -r $(DEV_LOCK)" in makefile
    assert "lock:" in makefile
    dockerfile = (REPO_ROOT / "Dockerfile").read_text()
    assert "--require-hashes" in dockerfile and "requirements/runtime.lock" in dockerfile
    for line in dockerfile.splitlines():
        if line.startswith("FROM "):
            image = line.split()[1]
            assert re.search(r":\d+\.\d+\.\d+", image) or "@sha256:" in image, image
    assert "FROM node:22." in dockerfile
