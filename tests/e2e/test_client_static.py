"""Checks on the client that need no browser: the five dictionaries agree, every error
code the server can send has a translation, and the first load fits the size budget."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
I18N = ROOT / "frontend/src/i18n"
LANGS = ("es", "en", "pt", "it", "pl")
BUDGET_BYTES = 40 * 1024


def _dicts() -> dict[str, dict[str, str]]:
    return {lang: json.loads((I18N / f"{lang}.json").read_text()) for lang in LANGS}


def _arguments(message: str) -> set[str]:
    """The parameters a message uses: "{n}" and "{n, plural, ...}" both name n; the words
    of a plural's forms ("one {Gana} other {Ganan}") are not parameters."""
    forms = r"(?<!zero )(?<!one )(?<!two )(?<!few )(?<!many )(?<!other )(?<!=\d )"
    return set(re.findall(forms + r"\{(\w+)\s*[,}]", message))


def test_plural_messages_have_an_other_form() -> None:
    for lang, d in _dicts().items():
        for key, value in d.items():
            if ", plural," in value:
                assert re.search(r"\bother \{", value), (lang, key)
                assert value.count("{") == value.count("}"), (lang, key)


def test_every_key_exists_in_all_five_languages() -> None:
    dicts = _dicts()
    keys = set(dicts["es"])
    for lang, d in dicts.items():
        assert set(d) == keys, (lang, sorted(keys ^ set(d))[:10])
        for key, value in d.items():
            assert value.strip(), (lang, key)
            # Same placeholders as Spanish, so no sentence loses a name or a number; a
            # count only some languages inflect for ("n": "cerró"/"cerraron", but "went
            # out" either way) may be used by some and not others (tests/ops/test_dictionaries.py).
            assert _arguments(value) ^ _arguments(dicts["es"][key]) <= {"n"}, (lang, key)


def test_keys_used_by_the_code_exist() -> None:
    keys = set(_dicts()["es"])
    prefixes = {k.split(".")[0] for k in keys}
    used = set()
    for path in (ROOT / "frontend/src").rglob("*.ts"):
        used |= set(re.findall(r"\"([a-z]+\.[A-Za-z0-9_.]+)\"", path.read_text()))
    missing = sorted(k for k in used if k.split(".")[0] in prefixes and k not in keys)
    assert not missing, missing


def test_every_server_error_code_is_translated() -> None:
    keys = set(_dicts()["es"])
    pattern = re.compile(
        r"(?:AppError|RuleViolation|refuse|error_frame|_refuse|bad)\(\s*\"([a-z_]+)\""
    )
    codes = set()
    for path in (ROOT / "app").rglob("*.py"):
        codes |= set(pattern.findall(path.read_text()))
    missing = sorted(c for c in codes if f"err.{c}" not in keys)
    assert not missing, missing


def test_first_load_fits_the_budget(frontend_dist: Path) -> None:
    """Everything index.html loads (JS + CSS), gzipped, within 40 KB; the other
    languages' dictionaries are not part of it."""
    html = (frontend_dist / "index.html").read_text()
    assets = re.findall(r"(?:src|href)=\"/?(assets/[^\"]+\.(?:js|css))\"", html)
    assert assets, "index.html loads no assets"
    total = 0
    for asset in assets:
        data = (frontend_dist / asset).read_bytes()
        size = len(gzip.compress(data, compresslevel=9))
        print(f"\n{asset}: {len(data)} bytes, {size} gzipped")
        total += size
    print(f"first load: {total} bytes gzipped ({total / 1024:.1f} KB of {BUDGET_BYTES // 1024} KB)")
    assert total <= BUDGET_BYTES
    first = "".join((frontend_dist / a).read_text() for a in assets if a.endswith(".js"))
    dicts = _dicts()
    for lang in LANGS[1:]:
        # A sentence only that language has (JSON-escaped as the bundle writes it).
        only = dicts[lang]["table.pileNeedsPlay"]
        assert json.dumps(only, ensure_ascii=False)[1:-1] not in first, lang
    assert json.dumps(dicts["es"]["table.pileNeedsPlay"], ensure_ascii=False)[1:-1] in first
