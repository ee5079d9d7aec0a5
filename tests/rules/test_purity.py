"""The rules engine is pure (DESIGN.md convention 1): it imports only the standard library
and itself, never touches the module-level ``random``, asyncio or a clock."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import app.rules

RULES_DIR = Path(app.rules.__file__).parent
MODULES = sorted(RULES_DIR.glob("*.py"))
# Standard-library modules the engine must not use even though they are stdlib.
FORBIDDEN_STDLIB = {"random", "asyncio", "time", "datetime", "threading", "socket", "sched"}
# Calls that read a clock, whatever the module is called locally.
CLOCK_CALLS = {
    "time",
    "time_ns",
    "monotonic",
    "monotonic_ns",
    "perf_counter",
    "perf_counter_ns",
    "process_time",
    "now",
    "utcnow",
    "today",
    "localtime",
    "gmtime",
}
# The conformance and replay CLIs read files and print: the modules allowed I/O.
IO_MODULES = {"conformance.py", "replay.py"}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imports(tree: ast.Module) -> list[tuple[int, str]]:
    """(level, absolute-or-relative module name) of every import, at any depth."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((0, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module or ""))
    return out


def test_the_engine_has_modules_to_check() -> None:
    names = {p.name for p in MODULES}
    assert {"engine.py", "evolve.py", "cards.py", "views.py", "deal.py", "greedy.py"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_imports_only_stdlib_and_itself(path: Path) -> None:
    bad = []
    for level, module in _imports(_tree(path)):
        if level > 0:
            continue  # relative: app.rules itself
        top = module.split(".")[0]
        if module == "app.rules" or module.startswith("app.rules."):
            continue
        if top not in sys.stdlib_module_names:
            bad.append(module)
    assert not bad, f"{path.name} imports outside the standard library: {bad}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_random_asyncio_or_clock_modules(path: Path) -> None:
    bad = [
        module
        for level, module in _imports(_tree(path))
        if level == 0 and module.split(".")[0] in FORBIDDEN_STDLIB
    ]
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_clock_calls_or_dynamic_imports(path: Path) -> None:
    tree = _tree(path)
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in CLOCK_CALLS:
                owner = func.value
                owner_name = owner.id if isinstance(owner, ast.Name) else ""
                if owner_name in {"time", "datetime", "date", "dt"}:
                    bad.append(f"line {node.lineno}: {owner_name}.{func.attr}()")
            if isinstance(func, ast.Name) and func.id in {"__import__", "exec", "eval"}:
                bad.append(f"line {node.lineno}: {func.id}()")
            if isinstance(func, ast.Attribute) and func.attr == "import_module":
                bad.append(f"line {node.lineno}: import_module()")
        # ``random`` by name at all (e.g. a module handed in under that name and used
        # as the module-level generator)
        if isinstance(node, ast.Name) and node.id == "random":
            bad.append(f"line {node.lineno}: the name 'random'")
        if isinstance(node, ast.Name) and node.id in {"asyncio", "time", "datetime"}:
            bad.append(f"line {node.lineno}: the name {node.id!r}")
    assert not bad, f"{path.name}: {bad}"


@pytest.mark.parametrize(
    "path", [p for p in MODULES if p.name not in IO_MODULES], ids=lambda p: p.name
)
def test_no_io_outside_the_conformance_cli(path: Path) -> None:
    bad = []
    for node in ast.walk(_tree(path)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"open", "print", "input"}
        ):
            bad.append(f"line {node.lineno}: {node.func.id}()")
    assert not bad, f"{path.name}: {bad}"


def test_checker_catches_a_forbidden_import() -> None:
    """The AST walk above sees imports inside functions and from-imports too."""
    tree = ast.parse(
        "def f():\n    import random\n    from time import monotonic\n"
        "    from . import cards\n    import pydantic\n"
    )
    found = _imports(tree)
    assert (0, "random") in found and (0, "time") in found and (0, "pydantic") in found
    assert (1, "") in found


def test_importing_the_engine_loads_only_stdlib() -> None:
    """At run time too: import every engine module in a clean interpreter and list every
    module that is neither standard library nor app.rules (nor the app package)."""
    names = ", ".join(f"app.rules.{p.stem}" for p in MODULES if p.stem != "__init__")
    code = (
        "import sys\n"
        f"import {names}\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] not in sys.stdlib_module_names"
        " and m != 'app' and not m.startswith('app.rules') and not m.startswith('_'))\n"
        "print('\\n'.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-c", code],
        capture_output=True,
        text=True,
        cwd=str(RULES_DIR.parent.parent),
        check=True,
    )
    assert out.stdout.strip() == "", f"non-stdlib modules loaded: {out.stdout}"
