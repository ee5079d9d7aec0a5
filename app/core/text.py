"""Text people type that others will see (names, table names, chat): one validator.

NFKC-normalised (full-width and compatibility forms fold to their plain letters), then
refused with 422 when it holds a control or format character: NUL and the other C0/C1
controls, bidi overrides and isolates (U+202A..U+202E, U+2066..U+2069) that make a
name read backwards, zero-width characters, surrogates and private-use code points. In
chat, line breaks and tabs become spaces and the emoji joiners (ZWJ, ZWNJ) are allowed.
"""

from __future__ import annotations

import functools
import sys
import unicodedata
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co"})
_CHAT_SPACES = frozenset("\n\r\t")
_CHAT_JOINERS = frozenset("\u200c\u200d")  # inside emoji sequences and some scripts


def clean_text(value: str, *, multiline: bool = False) -> str:
    """Normalise ``value``; ValueError naming the first character that is not allowed."""
    text = unicodedata.normalize("NFKC", value)
    if multiline:
        text = "".join(" " if c in _CHAT_SPACES else c for c in text)
    for c in text:
        if unicodedata.category(c) in REFUSED_CATEGORIES and not (multiline and c in _CHAT_JOINERS):
            name = unicodedata.name(c, "a control character")
            raise ValueError(f"must not contain U+{ord(c):04X} ({name})")
    return text.strip()


@functools.cache
def schema_pattern(multiline: bool) -> str:
    """The JSON Schema ``pattern`` of such text: none of the characters ``clean_text``
    refuses, nor unassigned ones, nor those NFKC writes as several (a string of them could
    outgrow its limit once normalised). Tighter than the check itself, never looser, so
    a request valid by the schema is accepted (tests/ops/test_schemathesis_api.py).

    Written as the class of the characters allowed, not as the negation of those
    refused: both match the same strings, but the refused ones are mostly the ~830,000
    unassigned code points, and a generator that builds its alphabet from a class
    character by character (Hypothesis's ``from_regex``, which the API's fuzz tests
    use) took about 8 s on the negation against 1 s on this."""
    allowed = _CHAT_SPACES | _CHAT_JOINERS if multiline else frozenset()
    ranges: list[tuple[int, int]] = []
    for cp in range(sys.maxunicode + 1):
        c = chr(cp)
        if c not in allowed and (
            unicodedata.category(c) in _SCHEMA_REFUSED or len(unicodedata.normalize("NFKC", c)) != 1
        ):
            continue
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return (
        "^[" + "".join(_escape(a) + ("" if a == b else "-" + _escape(b)) for a, b in ranges) + "]*$"
    )


_SCHEMA_REFUSED = REFUSED_CATEGORIES | {"Cn"}


def _escape(cp: int) -> str:
    return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"


@dataclass(frozen=True, slots=True)
class Clean:
    """``Annotated[str, Clean(40)]``: clean_text, then the length limit re-checked on the
    normalised text (NFKC can lengthen a string)."""

    max_length: int
    multiline: bool = False

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self._check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {**handler(schema), "pattern": schema_pattern(self.multiline)}

    def _check(self, value: str) -> str:
        text = clean_text(value, multiline=self.multiline)
        if len(text) > self.max_length:
            raise ValueError(f"at most {self.max_length} characters")
        return text


# The shared types: use these for any stored text a person typed.
Name = Annotated[str, Field(min_length=1, max_length=32), Clean(32)]
TableName = Annotated[str, Field(max_length=40), Clean(40)]
ChatText = Annotated[str, Field(min_length=1, max_length=1000), Clean(1000, multiline=True)]
