"""The rules package stays in files a reader can hold in mind (DESIGN.md convention 14):
one concept a file, none over 800 lines."""

from __future__ import annotations

from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "app" / "rules"
MAX_LINES = 800


def test_no_rules_module_is_over_800_lines() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in RULES.glob("*.py")}
    assert len(sizes) > 10
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}
