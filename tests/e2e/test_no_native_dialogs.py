"""The client never opens the browser's own dialogs: no alert(), confirm() or prompt() in
the built client (each choice, question and message is a sheet or a toast of the page,
which the tests drive and a phone shows in the app's look). The journeys of
test_phone_journeys.py also fail on any native dialog the page opens."""

from __future__ import annotations

import re
from pathlib import Path

# A call of the global function (not a method such as dialog.confirm(...)), written plainly
# or through window / globalThis / self.
BARE = re.compile(r"(?:^|[^\w$.])(alert|confirm|prompt)\s*\(")
QUALIFIED = re.compile(
    r"\b(?:window|globalThis|self|top|parent)\s*(?:\.\s*|\[\s*[\"'])(alert|confirm|prompt)\b"
)


def calls(text: str) -> list[str]:
    return [m.group(0).strip() for m in BARE.finditer(text)] + [
        m.group(0) for m in QUALIFIED.finditer(text)
    ]


def test_the_patterns_find_what_they_look_for() -> None:
    assert calls("if(confirm('x'))") and calls("window.prompt('y')") and calls('self["alert"](1)')
    assert calls("a=1;alert (2)")
    assert not calls("dlg.confirm(x); confirmDialog(t); myprompt(1); x.alert(2)")


def test_the_built_client_opens_no_native_dialog(frontend_dist: Path) -> None:
    scripts = sorted((frontend_dist / "assets").glob("*.js"))
    assert scripts, "the built client has no scripts"
    found = {p.name: calls(p.read_text(errors="replace")) for p in scripts}
    assert not {k: v for k, v in found.items() if v}, found
