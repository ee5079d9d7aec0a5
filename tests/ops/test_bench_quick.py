"""``benchmarks/quick.py`` (``make bench-quick``, run by CI) lists every benchmark, so a
new one cannot be left out of CI's smallest runs; the runs themselves are CI's step."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import quick  # noqa: E402


def test_every_benchmark_has_its_smallest_run_listed() -> None:
    assert quick.left_out() == []
    assert {"engine.py", "economy.py", "friends.py", "load.py"} <= quick.entry_points()
    for name in quick.QUICK:
        assert (REPO / "benchmarks" / name).is_file(), name


def test_a_benchmark_missing_from_the_list_is_reported(tmp_path: Path) -> None:
    (tmp_path / "engine.py").write_text('if __name__ == "__main__":\n    pass\n')
    (tmp_path / "newbench.py").write_text('if __name__ == "__main__":\n    pass\n')
    (tmp_path / "helpers.py").write_text("def helper() -> None:\n    pass\n")
    assert quick.left_out(tmp_path) == ["newbench.py"]


def test_an_unknown_name_is_refused_before_anything_runs() -> None:
    run = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "quick.py"), "nosuch.py"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert "no such benchmark: nosuch.py" in run.stderr
