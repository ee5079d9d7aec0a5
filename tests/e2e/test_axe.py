"""Accessibility, checked by axe-core (pinned in frontend/package.json, injected into the
page from frontend/node_modules): no serious or critical violation on the lobby, the table
and the end-of-match sheet, on a phone (390x844) and a laptop (1366x768)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import FRONTEND, _missing
from tests.e2e.helpers import as_guest, open_table
from tests.e2e.test_phone_journeys import (
    GO_OUT,
    go_out_by_taps,
    my_draw,
    phone,
    settle,
    stack_and_start,
    stacked,
)

AXE = FRONTEND / "node_modules/axe-core/axe.min.js"
RUN = """async () => {
  const r = await axe.run(document, { resultTypes: ['violations'] });
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                   nodes: v.nodes.slice(0, 4)
                     .map((n) => n.target.join(' ') + ' :: ' + n.html.slice(0, 1500)) }));
}"""


def serious(page: Any) -> list[dict[str, Any]]:
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    # Colours are read once every finite animation has ended: a sheet mid-entrance is
    # still partly transparent, and axe would measure the contrast of its fade.
    settle(page)
    return page.evaluate(RUN)


@pytest.mark.parametrize(("w", "h"), [(390, 844), (1366, 768)], ids=["phone", "laptop"])
def test_no_serious_accessibility_violation(new_context, artifacts: Path, w: int, h: int) -> None:
    if not AXE.exists():
        _missing("axe-core is not installed (cd frontend && npm ci)")
    # The site's Content-Security-Policy allows no inline script: axe's is the test's own.
    page = phone(new_context, w, h, bypass_csp=True)
    as_guest(page)
    page.wait_for_selector(".wallet-card")
    found = {"lobby": serious(page)}
    tid = open_table(page, 2, "cerrado", {"hand_size": 11, "muertos": 0})
    page.wait_for_selector("#wait-title")
    stack_and_start(page, tid, stacked(2, GO_OUT["mine"], GO_OUT["pile"]))
    assert my_draw(page) == "draw"
    page.wait_for_selector("#pile[data-legal=ready]")
    found["table"] = serious(page)
    go_out_by_taps(page, artifacts, f"axe-{w}x{h}")
    found["sheet"] = serious(page)
    assert not {k: v for k, v in found.items() if v}, found
