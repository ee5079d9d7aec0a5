"""What the tracked files say about themselves: no diary of the work that made them, and
no documentation link that leads nowhere.

Comments and docs say what is and why; git history says when and by whom. So no tracked
file names a past round of the work that made it: by its number, as "this" or "the
previous" one, or by the note that closed it.
Login and database sessions are ordinary words here and stay: the patterns below only
match a session with a number or a word that places it in the work's own past.

Every relative link in README.md and docs/**/*.md must reach a file or folder inside the
repository (a link to a folder beside it, such as ``../shared/``, breaks in any other
checkout), and a ``#fragment`` a heading of the target. A Markdown document named in a
code span by a ``../`` path counts as a link too, since readers follow it the same way.
Both tests are pure: they read the checkout's files and nothing else.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest

from tests.support import REPO_ROOT

# The words are written with \s+ between them, and the examples below with a placeholder,
# so that this file does not match itself.
DIARY = re.compile(
    r"\bsessions?\s+[0-9]"  # one with a number, or a range of them
    r"|\b(?:this|previous|last|earlier|working)\s+session\b"
    r"|\bsession's\s+(?:end|start|machine)\b"
    r"|\bother\s+sessions'"
    r"|\bclosing\s+note\b"
    r"|\bturns?\s+of\s+work\b",
    re.IGNORECASE,
)
LOCK_FILES = re.compile(r"(\.lock|-lock\.json|\.lockb)$")

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
DOC_PATH_IN_CODE = re.compile(r"^\.\./\S*\.md(?:#\S*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def tracked_files() -> list[str]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    return [name for name in out.decode().split("\0") if name]


def text_of(path: Path) -> str | None:
    """The file's text, or None for a binary file (a NUL byte or not UTF-8)."""
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def diary_lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.splitlines(), 1):
        if DIARY.search(line):
            yield number, line.strip()


def test_no_tracked_file_keeps_a_diary_of_working_sessions() -> None:
    found = []
    for name in tracked_files():
        path = REPO_ROOT / name
        if LOCK_FILES.search(name) or not path.is_file():
            continue
        text = text_of(path)
        if text is None:
            continue
        found += [f"{name}:{number}: {line}" for number, line in diary_lines(text)]
    assert not found, "diary words about working sessions:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        "Measured in {S} 18 on a quiet machine.",
        "the runs of {S}s 16-18",
        "repeated at this {S}'s end",
        "as the previous {S} found",
        "the closing {N} says so",
        "on the {S}'s machine",
        "while other {S}s' builds ran",
    ],
)
def test_the_diary_pattern_finds_working_sessions(line: str) -> None:
    assert list(diary_lines(line.format(S="session", N="note")))


@pytest.mark.parametrize(
    "line",
    [
        "One session per request, shared by whatever the request calls.",
        "every other session of the account ends (its sockets close)",
        "another session of the same account is untouched",
        "Sessions are opaque tokens in the buraco_session cookie.",
        "session_days: int = 30",
        "await db.session.commit()",
    ],
)
def test_the_diary_pattern_leaves_login_and_database_sessions_alone(line: str) -> None:
    assert not list(diary_lines(line))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed,
    spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    result = set()
    for line in prose_lines(text):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def prose_lines(text: str) -> Iterator[str]:
    """The lines outside fenced code blocks."""
    fence = None
    for line in text.splitlines():
        match = FENCE.match(line)
        if match:
            if fence is None:
                fence = match.group(1)
            elif match.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield line


def references(text: str) -> Iterator[tuple[int, str]]:
    """(line number, target) of every link, image and reference definition outside code,
    and of every ``../`` path to a Markdown document in a code span."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if match:
            if fence is None:
                fence = match.group(1)
            elif match.group(1) == fence:
                fence = None
            continue
        if fence is not None:
            continue
        for span in CODE_SPAN.finditer(line):
            if DOC_PATH_IN_CODE.match(span.group(2).strip()):
                yield number, span.group(2).strip()
        prose = CODE_SPAN.sub("", line)
        for link in INLINE_LINK.finditer(prose):
            yield number, link.group(1)
        definition = REFERENCE_LINK.match(prose)
        if definition:
            yield number, definition.group(1)


def broken(doc: Path, target: str) -> str | None:
    """Why ``target``, linked from ``doc``, does not resolve inside the repository."""
    if SCHEME.match(target):
        return None  # http(s), mailto: not this test's business
    path_part, _, fragment = target.partition("#")
    if path_part:
        resolved = (doc.parent / unquote(path_part)).resolve()
        if not resolved.is_relative_to(REPO_ROOT):
            return "leaves the repository"
        if not resolved.exists():
            return "no such file"
    else:
        resolved = doc
    if not (fragment and resolved.suffix == ".md" and resolved.is_file()):
        return None
    if unquote(fragment).lower() not in anchors(resolved.read_text(encoding="utf-8")):
        return f"no heading #{fragment}"
    return None


def documents() -> list[Path]:
    names = tracked_files()
    return sorted(
        REPO_ROOT / name
        for name in names
        if name == "README.md" or (name.startswith("docs/") and name.endswith(".md"))
    )


def test_every_link_in_the_docs_resolves_inside_the_repository() -> None:
    problems = []
    for doc in documents():
        for number, target in references(doc.read_text(encoding="utf-8")):
            reason = broken(doc, target)
            if reason:
                problems.append(f"{doc.relative_to(REPO_ROOT)}:{number}: {target}: {reason}")
    assert not problems, "links that do not resolve:\n" + "\n".join(problems)


def test_the_link_check_tells_good_links_from_bad(tmp_path: Path) -> None:
    doc = REPO_ROOT / "docs" / "example.md"  # never written: broken() only reads targets
    assert broken(doc, "architecture.md") is None
    assert broken(doc, "architecture.md#failure-model") is None
    assert broken(doc, "decisions/README.md") is None
    assert broken(doc, "../README.md") is None
    assert broken(doc, "https://example.org/nowhere") is None
    assert broken(doc, "architecture.md#no-such-heading") == "no heading #no-such-heading"
    assert broken(doc, "no-such-file.md") == "no such file"
    assert broken(doc, "../../shared/RULES.md") == "leaves the repository"
    text = "\n".join(
        [
            "See [the rules](rules.md#modules) and ![a chart](img/c.png).",
            "Not a link: `[x](nowhere.md)`; a document outside: `../shared/DESIGN.md`.",
            "```",
            "[inside a fence](nowhere.md)",
            "```",
            "[ref]: operations.md",
        ]
    )
    assert list(references(text)) == [
        (1, "rules.md#modules"),
        (1, "img/c.png"),
        (2, "../shared/DESIGN.md"),
        (6, "operations.md"),
    ]


def test_heading_anchors_follow_github() -> None:
    text = "# Architecture\n## The path of a move\n## Settings (`app/core/config.py`)\n## Q\n## Q\n"
    assert anchors(text) == {
        "architecture",
        "the-path-of-a-move",
        "settings-appcoreconfigpy",
        "q",
        "q-1",
    }
