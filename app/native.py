"""The rules engine compiled with mypyc: build it, and tell whether it is in use.

``app/rules`` is plain, typed Python (standard library only). mypyc, the compiler that
ships with mypy, turns those same modules into C extension modules placed beside the
sources (``app/rules/*.so`` and their shared library ``app/rules/_compiled__mypyc*.so``),
which Python then imports instead of the ``.py`` files. Nothing changes in behaviour;
GreedyBot hands, ``apply`` and the views run about three times faster (docs/rules.md,
"Compiled engine"). Without a C compiler everything still works on the sources.

The build writes ``app/rules/_compiled.json`` with a hash of the sources it compiled.
``status()`` compares it with the sources now on disk, so an edit to a rules module
without a rebuild is seen ("stale": the test suite refuses to run on it, and
``make test``/``make run`` rebuild first).

    python -m app.native build     # compile (what ``make native`` runs)
    python -m app.native status    # compiled | pure | stale
    python -m app.native clean     # back to the sources alone
    python -m app.native sources app.rules.conformance PATH...   # a module on the sources
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import shutil
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "app" / "rules"
STAMP = RULES / "_compiled.json"
GROUP = "app.rules._compiled"  # the shared library: app/rules/_compiled__mypyc*.so
# Not compiled: the package marker, and the conformance CLI (file reading and printing).
SKIP = {"__init__.py", "conformance.py", "replay.py"}  # (CLIs run with -m)
BUILD_DIR = ROOT / "build" / "mypyc"

MYPY_CONFIG = """[mypy]
check_untyped_defs = True
no_implicit_optional = True
strict_equality = True
"""

COMPILED = "compiled"
PURE = "pure"
STALE = "stale"


def sources(rules: Path = RULES) -> list[Path]:
    """The rules modules mypyc compiles."""
    return sorted(p for p in rules.glob("*.py") if p.name not in SKIP)


def _ext_suffix() -> str:
    return str(sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def artifacts(rules: Path = RULES) -> list[Path]:
    """The extension modules a build left in app/rules (any Python version)."""
    return sorted(p for p in rules.iterdir() if p.suffix in (".so", ".pyd") and p.is_file())


def fingerprint(rules: Path = RULES) -> str:
    """A hash of the compiled modules' sources and of what the build depends on."""
    digest = hashlib.sha256()
    digest.update(_ext_suffix().encode())
    for path in sources(rules):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def status(rules: Path = RULES) -> str:
    """``compiled`` when a build of exactly these sources is in place, ``pure`` when no
    build is, ``stale`` when a build of other sources (or another Python) is."""
    built = artifacts(rules)
    if not built:
        return PURE
    try:
        stamp = json.loads((rules / STAMP.name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return STALE
    if stamp.get("fingerprint") != fingerprint(rules):
        return STALE
    wanted = {p.stem + _ext_suffix() for p in sources(rules)}
    if not wanted <= {p.name for p in built}:
        return STALE
    return COMPILED


def loaded() -> bool:
    """Is the imported rules engine the compiled one?"""
    from app.rules import engine

    return not (engine.__file__ or "").endswith(".py")


class _Sources(importlib.abc.MetaPathFinder):
    """Imports the rules modules from their ``.py`` files, even beside a build."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != "app.rules":
            return None
        source = RULES / f"{name}.py"
        return (
            importlib.util.spec_from_file_location(fullname, source) if source.is_file() else None
        )


def use_sources() -> None:
    """Run on the Python sources of the rules engine, compiled or not (tests comparing
    the two, ``benchmarks/engine.py --pure``). Call it before anything imports them."""
    if any(name.startswith("app.rules.") for name in sys.modules):
        raise RuntimeError("the rules engine is imported already")
    if not any(isinstance(f, _Sources) for f in sys.meta_path):
        sys.meta_path.insert(0, _Sources())


def running_stale() -> bool:
    """Does this process run a build of other sources than app/rules holds now?"""
    return loaded() and status() == STALE


def describe() -> str:
    """One line for logs and benchmarks: which rules engine this process runs."""
    state = status()
    if loaded():
        if state == STALE:  # imported, then the sources changed (or a build from elsewhere)
            return (
                "rules engine: compiled by mypyc from OTHER sources than app/rules now"
                " holds (make native)"
            )
        return "rules engine: compiled by mypyc"
    why = {PURE: "no build (make native)", STALE: "the build is stale (make native)"}
    return f"rules engine: Python sources ({why.get(state, 'sources forced')})"


def clean() -> None:
    for path in artifacts():
        path.unlink()
    STAMP.unlink(missing_ok=True)


# A finished build is also kept in a cache outside the checkout, under a key of exactly
# what it was built from (the sources' fingerprint, which holds the Python ABI, and the
# mypyc and compiler in use), so a fresh clone of the same sources on this machine (CI)
# takes it in a second instead of compiling for nearly two minutes.
CACHE_ENV = "BURACO_NATIVE_CACHE"  # a folder; "off" for none


def cache_root() -> Path | None:
    chosen = os.environ.get(CACHE_ENV, "")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "buraco-native"


def cache_key(rules: Path = RULES) -> str:
    from mypy.version import __version__ as mypy_version  # dev/build dependency only

    digest = hashlib.sha256()
    for part in (fingerprint(rules), mypy_version, str(sysconfig.get_config_var("CC"))):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()[:32]


def store_in_cache(key: str, rules: Path = RULES) -> None:
    """Keep this build (its extension modules and stamp) under ``key``."""
    root = cache_root()
    if root is None:
        return
    target = root / key
    if target.exists():
        return
    staging = root / f".{key}.{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for path in [*artifacts(rules), rules / STAMP.name]:
        shutil.copy2(path, staging / path.name)
    try:
        staging.rename(target)  # whole or not at all
    except OSError:  # another build stored it first
        shutil.rmtree(staging, ignore_errors=True)


def restore_from_cache(key: str, rules: Path = RULES) -> bool:
    """Put the build kept under ``key`` in place; True when it is then in use as a
    build of exactly these sources (``status`` checks it like any other)."""
    root = cache_root()
    cached = root / key if root is not None else None
    if cached is None or not (cached / STAMP.name).is_file():
        return False
    for path in artifacts(rules):
        path.unlink()
    for path in cached.iterdir():
        shutil.copy2(path, rules / path.name)
    if status(rules) == COMPILED:
        return True
    for path in artifacts(rules):
        path.unlink()
    (rules / STAMP.name).unlink(missing_ok=True)
    return False


def build(quiet: bool = True) -> None:
    """Compile the rules modules in place (mypyc, then the C compiler). Raises on
    failure, leaving the sources alone in use."""
    from mypyc.build import mypycify  # dev/build dependency only
    from setuptools import Distribution

    key = cache_key()
    if restore_from_cache(key):
        return
    clean()
    paths = [str(p.relative_to(ROOT)) for p in sources()]
    # mypy's settings for the build, not the project's (whose plugins need packages a
    # build-only environment, like the Docker builder's, does not have)
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    config = BUILD_DIR / "mypy.ini"
    config.write_text(MYPY_CONFIG, encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        extensions = mypycify(
            ["--config-file", str(config), *paths],
            opt_level="3",
            group_name=GROUP,
            target_dir=str(BUILD_DIR / "c"),
        )
        dist = Distribution({"name": "buraco-rules-compiled", "ext_modules": extensions})
        dist.script_args = [
            "build_ext",
            "--inplace",
            "--build-temp",
            str(BUILD_DIR / "temp"),
            "--build-lib",
            str(BUILD_DIR / "lib"),
        ]
        if quiet:
            dist.script_args.insert(0, "--quiet")
        dist.parse_command_line()
        dist.run_commands()
    except BaseException:
        clean()
        raise
    finally:
        os.chdir(cwd)
    STAMP.write_text(
        json.dumps(
            {
                "fingerprint": fingerprint(),
                "python": sys.version.split()[0],
                "modules": [p.stem for p in sources()],
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    if status() != COMPILED:  # pragma: no cover - a build that left something out
        clean()
        raise RuntimeError("the compiled rules engine is incomplete; using the sources")
    with contextlib.suppress(OSError):  # a cache that cannot be written is no cache
        store_in_cache(key)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else "status"
    if command == "status":
        print(status())
        return 0
    if command == "sources" and len(args) >= 2:
        # run a module of the rules engine (e.g. the conformance CLI) on the sources
        import runpy

        use_sources()
        sys.argv = args[1:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        return 0
    if command == "clean":
        clean()
        shutil.rmtree(BUILD_DIR, ignore_errors=True)
        print(status())
        return 0
    if command == "build":
        try:
            build(quiet="--verbose" not in args)
        except Exception as exc:  # no compiler, a mypyc error...: say so, run on sources
            print(
                f"rules engine not compiled ({type(exc).__name__}: {exc});"
                " it runs on the Python sources, about 3x slower",
                file=sys.stderr,
            )
            return 1
        except SystemExit as exc:  # setuptools reports a failed compiler this way
            print(
                f"rules engine not compiled (the C build failed: {exc});"
                " it runs on the Python sources, about 3x slower",
                file=sys.stderr,
            )
            return 1
        print(f"rules engine compiled: {len(sources())} modules ({status()})")
        return 0
    print(
        "usage: python -m app.native [build|status|clean|sources MODULE ARGS...]", file=sys.stderr
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
