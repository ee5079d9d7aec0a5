"""Source files stay small enough for a reader to hold in mind (DESIGN.md convention
14): no file of code in app/, benchmarks/ or frontend/src/ is over 800 lines. A file
that grows past it is split by concept, not trimmed of its comments."""

from __future__ import annotations

from pathlib import Path

from tests.support import REPO_ROOT

MAX_LINES = 800
ROOTS = ("app", "benchmarks", "frontend/src")
CODE = {".py", ".ts", ".tsx", ".js", ".css", ".html"}


def sources() -> list[Path]:
    return [
        path
        for root in ROOTS
        for path in sorted((REPO_ROOT / root).rglob("*"))
        if path.suffix in CODE and path.is_file() and "node_modules" not in path.parts
    ]


def test_the_roots_hold_code() -> None:
    names = {path.relative_to(REPO_ROOT).as_posix() for path in sources()}
    assert {"app/main.py", "app/rules/engine.py", "benchmarks/load.py"} <= names
    assert any(name.startswith("frontend/src/") and name.endswith(".ts") for name in names)


def test_no_source_file_is_over_800_lines() -> None:
    too_long = {
        path.relative_to(REPO_ROOT).as_posix(): n
        for path in sources()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert too_long == {}, f"split these by concept (at most {MAX_LINES} lines): {too_long}"
