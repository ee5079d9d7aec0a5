"""Every message the client words gets every parameter it names. A call such as
``t("result.reason.closed", { side })`` whose message also takes ``{n, plural, ...}``
shows the player the raw "{n, plural, one {cerró} other {cerraron}}": this reads every
``t(...)`` and ``tk(...)`` call in frontend/src and checks the parameters it passes
against the placeholders of its key (or of every key its template can build) in all five
dictionaries."""

from __future__ import annotations

import re
from pathlib import Path

from tests.ops.test_dictionaries import DICTS, LANGS, _placeholders

SRC = Path(__file__).resolve().parents[2] / "frontend/src"
OPEN = {"(": ")", "[": "]", "{": "}"}


def _skip_string(src: str, i: int) -> int:
    """The index just past the string literal that starts at i ('...', "..." or `...`,
    whose ${...} parts may hold strings and braces of their own)."""
    quote = src[i]
    i += 1
    while i < len(src):
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == quote:
            return i + 1
        if quote == "`" and src.startswith("${", i):
            i = _skip_group(src, i + 1)
            continue
        i += 1
    return i


def _skip_group(src: str, i: int) -> int:
    """The index just past the bracket that closes the one at i."""
    close = OPEN[src[i]]
    i += 1
    while i < len(src):
        c = src[i]
        if c in "'\"`":
            i = _skip_string(src, i)
        elif src.startswith("//", i):
            i = src.find("\n", i)
        elif src.startswith("/*", i):
            i = src.find("*/", i) + 2
        elif c in OPEN:
            i = _skip_group(src, i)
        elif c == close:
            return i + 1
        else:
            i += 1
    return i


def _split_top(src: str) -> list[str]:
    """A list of arguments or of an object literal's entries, split at its top-level
    commas."""
    parts, start, i = [], 0, 0
    while i < len(src):
        c = src[i]
        if c in "'\"`":
            i = _skip_string(src, i)
        elif c in OPEN:
            i = _skip_group(src, i)
        elif c == ",":
            parts.append(src[start:i].strip())
            start = i = i + 1
        else:
            i += 1
    tail = src[start:].strip()
    return [*parts, tail] if tail else parts


def _keys(expr: str) -> tuple[list[str], list[str]]:
    """The dictionary keys a key argument can be: its string literals, and every key a
    template literal can build (its ${...} parts standing for any word)."""
    keys = DICTS["es"]
    named = [m.group(1) for m in re.finditer(r'"([\w.]+)"', expr) if m.group(1) in keys]
    built: list[str] = []
    for m in re.finditer(r"`([^`]*)`", expr):
        pattern = re.sub(r"\\\$\\\{.*?\\\}", r"[\\w-]+", re.escape(m.group(1)))
        built += [k for k in keys if re.fullmatch(pattern, k)]
    return named, built


def _params(arg: str | None) -> set[str] | None:
    """The names an object literal passes; None when they cannot be known here (a
    variable, a spread)."""
    if arg is None:
        return set()
    arg = arg.strip()
    if not (arg.startswith("{") and arg.endswith("}")):
        return None
    names = set()
    for entry in _split_top(arg[1:-1]):
        if entry.startswith("..."):
            return None
        m = re.match(r"(\w+)\s*(?::|$)", entry)
        if not m:
            return None
        names.add(m.group(1))
    return names


def _calls() -> list[tuple[str, int, str, list[str], set[str] | None]]:
    """Every t(...) and tk(...) call: file, line, source, keys, parameters passed."""
    out = []
    for path in sorted(SRC.rglob("*.ts")):
        src = path.read_text()
        for m in re.finditer(r"(?<![\w.$])(tk?)\(", src):
            fn = m.group(1)
            end = _skip_group(src, m.end() - 1)
            args = _split_top(src[m.end() : end - 1])
            if not args:
                continue
            params_at = 1 if fn == "t" else 2
            param = args[params_at] if len(args) > params_at else None
            named, built = _keys(args[0])
            if fn == "tk" and len(args) > 1:
                named += _keys(args[1])[0]  # the fallback is worded with the same params
            # A key built from a template (`wallet.${currency}`) could be any key of its
            # family, some of which the call never builds: those are held to the call's
            # parameters only when it passes some (it means a worded family then).
            keys = named + (built if param is not None else [])
            line = src.count("\n", 0, m.start()) + 1
            out.append(
                (path.relative_to(SRC).as_posix(), line, src[m.start() : end], keys, _params(param))
            )
    return out


def test_the_scan_finds_the_calls() -> None:
    calls = _calls()
    assert len(calls) > 500, len(calls)
    checked = [c for c in calls if c[3] and c[4] is not None]
    assert len(checked) > 0.8 * len(calls), (len(checked), len(calls))
    # The parser reads the shapes the client writes: shorthand, nested calls, templates.
    assert _params("{ side: x(a, { b: 1 }), n, who: `${a}` }") == {"side", "n", "who"}
    assert _params("{ ...args, n }") is None
    assert "result.reason.closed" in _keys("`result.reason.${r.reason}`")[1]


def test_every_message_gets_every_parameter_it_names() -> None:
    missing = []
    for path, line, call, keys, passed in _calls():
        if passed is None:
            continue
        for key in keys:
            wanted = set().union(*(_placeholders(DICTS[lang][key]) for lang in LANGS))
            if wanted - passed:
                missing.append(f"{path}:{line} {key} lacks {sorted(wanted - passed)}: {call[:120]}")
    assert not missing, "\n".join(missing)
