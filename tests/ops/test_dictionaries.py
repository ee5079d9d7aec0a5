"""The client's five dictionaries (frontend/src/i18n/*.json) agree with each other and
with the glossary: the same keys and placeholders everywhere, one name per game term in
each language (Italian and Polish once named the discard pile and the muerto two ways),
and no number written into a sentence, where Intl could not format it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

I18N = Path(__file__).resolve().parents[2] / "frontend/src/i18n"
LANGS = ("es", "en", "pt", "it", "pl")
DICTS = {lang: json.loads((I18N / f"{lang}.json").read_text()) for lang in LANGS}
GLOSSARY = json.loads((I18N / "glossary.json").read_text())

# Where each term is the thing itself: the labels the table shows for it.
TERM_KEYS = {"pile": "table.pile", "muerto": "table.muerto", "stock": "table.stock"}


def _placeholders(text: str) -> set[str]:
    """The parameters a message takes ("{side}", "{n, plural, ...}"), not the words of its
    plural forms ("one {cerró}")."""
    forms = r"(?<!zero )(?<!one )(?<!two )(?<!few )(?<!many )(?<!other )(?<!=\d )"
    return set(re.findall(forms + r"\{(\w+)(?=[,}])", text))


def test_every_language_has_the_same_keys_and_placeholders() -> None:
    keys = set(DICTS["es"])
    for lang in LANGS[1:]:
        assert set(DICTS[lang]) == keys, (lang, set(DICTS[lang]) ^ keys)
        for key, text in DICTS["es"].items():
            mine, spanish = _placeholders(DICTS[lang][key]), _placeholders(text)
            # A count only some languages inflect for ("n": "cerró"/"cerraron", but
            # "went out" either way) may be used by some and not others; nothing else.
            assert mine ^ spanish <= {"n"}, (lang, key, mine, spanish)


@pytest.mark.parametrize("lang", LANGS)
def test_one_name_per_game_term(lang: str) -> None:
    words = GLOSSARY[lang]
    texts = DICTS[lang]
    for term, key in TERM_KEYS.items():
        assert words["terms"][term].lower() in texts[key].lower(), (lang, term, texts[key])
    for term, patterns in words.get("avoid", {}).items():
        for pattern in patterns:
            bad = {k: v for k, v in texts.items() if re.search(pattern, v, re.IGNORECASE)}
            assert not bad, f"{lang}: the {term} is called {words['terms'][term]!r}: {bad}"


def test_italian_and_polish_name_the_pile_and_the_muerto_one_way() -> None:
    # Every sentence about the pile or the muerto in Spanish uses the glossary's one word
    # in Italian and Polish (a stem, for Polish's cases: stos, stosu, stosem...).
    stems = {
        "it": {"pozo": "scart", "muerto": "pozzett"},
        "pl": {"pozo": "stos", "muerto": "muerto"},
    }
    for lang, pairs in stems.items():
        for key, text in DICTS["es"].items():
            for es_word, stem in pairs.items():
                if re.search(rf"\b{es_word}s?\b", text, re.IGNORECASE):
                    assert stem in DICTS[lang][key].lower(), (lang, key, DICTS[lang][key])


def test_no_number_of_four_digits_written_into_a_sentence() -> None:
    # 1000 in a sentence would stay "1000" beside Intl's "20.000": numbers are parameters.
    for lang in LANGS:
        bad = {k: v for k, v in DICTS[lang].items() if re.search(r"\d{4,}", v)}
        assert not bad, (lang, bad)
