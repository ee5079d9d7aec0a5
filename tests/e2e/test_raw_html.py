"""The client never parses a string as markup: names, chat, cards and table names come
from the server, so every element is built node by node (dom.ts h(), Preact's h(),
textContent). A new raw-HTML sink anywhere in frontend/ fails here, naming the line."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FRONTEND = ROOT / "frontend"
SOURCES = ("*.ts", "*.tsx", "*.js", "*.jsx", "*.html")

# Every way the DOM (or Preact) turns a string into markup or script.
SINK = re.compile(
    r"innerHTML|outerHTML|insertAdjacentHTML|document\s*\.\s*write(?:ln)?\b|DOMParser"
    r"|createContextualFragment|srcdoc|dangerouslySetInnerHTML|setHTML(?:Unsafe)?\b"
    r"|parseHTMLUnsafe|\.\s*html\s*\(|new\s+Function\b|\beval\s*\("
    r"|setAttribute\(\s*[\"'`]on|\[\s*[\"'`](?:innerHTML|outerHTML)",
    re.IGNORECASE,
)


def _files() -> list[Path]:
    found = [FRONTEND / "index.html"]
    for pattern in SOURCES:
        found += (FRONTEND / "src").rglob(pattern)
    return sorted(p for p in found if "node_modules" not in p.parts)


def sinks(text: str) -> list[tuple[int, str]]:
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), 1)
        if SINK.search(line)
    ]


def test_the_client_has_no_raw_html_sink() -> None:
    files = _files()
    assert len(files) > 30  # the scan sees the whole client
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line}"
        for path in files
        for number, line in sinks(path.read_text())
    ]
    assert not found, "\n".join(found)


def test_the_scan_catches_each_sink() -> None:
    for line in (
        "corner.innerHTML = `${c.rank}<br>`;",
        "el.outerHTML = x;",
        'el.insertAdjacentHTML("beforeend", name);',
        "document.write(name);",
        "document.writeln(name);",
        'new DOMParser().parseFromString(s, "text/html");',
        "range.createContextualFragment(s);",
        'frame.setAttribute("srcdoc", s);',
        'h("div", { dangerouslySetInnerHTML: { __html: s } });',
        "el.setHTMLUnsafe(s);",
        "Document.parseHTMLUnsafe(s);",
        'el["innerHTML"] = s;',
        'el.setAttribute("onclick", s);',
        "eval(s);",
        'new Function("return " + s);',
    ):
        assert sinks(line), line
    for line in ("el.textContent = name;", 'h("span", { "data-raw": "" }, name);'):
        assert not sinks(line), line
