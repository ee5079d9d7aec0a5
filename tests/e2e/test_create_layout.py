""" "Crear partida" fits the screen: at 360, 390 and 412 px wide and at 1366x768 no input
or select of the dialog (its house rules open too) runs past the viewport's or the
dialog's right or left edge, the page never scrolls sideways, and every checkbox's name
starts on its own row, beside the box (a long one wraps there, not under it); every
choice of every select is read whole in its box, in every language."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import SELECT_CUT, as_guest

SIZES = [(360, 740), (390, 844), (412, 915), (1366, 768)]

# Every control of the dialog whose box leaves the dialog or the viewport, by id.
OVERFLOWS = """() => {
  const dlg = document.querySelector('.dialog');
  const box = dlg.getBoundingClientRect();
  const vw = document.documentElement.clientWidth;
  const out = [];
  for (const el of dlg.querySelectorAll('input, select, button, textarea')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;  // not shown
    const outside = r.left < -0.5 || r.right > vw + 0.5;
    if (outside || r.left < box.left - 0.5 || r.right > box.right + 0.5) {
      out.push(`${el.id || el.tagName}: ${Math.round(r.left)}..${Math.round(r.right)}`
        + ` (dialog ${Math.round(box.left)}..${Math.round(box.right)}, viewport ${vw})`);
    }
  }
  if (box.left < -0.5 || box.right > vw + 0.5) out.push(`dialog ${box.left}..${box.right}`);
  const page = document.documentElement.scrollWidth;
  if (page > vw) out.push(`page ${page}`);
  return out;
}"""

# Every checkbox of the dialog whose name does not start beside it: the name's first
# line and the box share a row, the name to the right of the box.
CHECK_APART = """() => [...document.querySelectorAll('.dialog .field.check')].flatMap((f) => {
  const box = f.querySelector('input').getBoundingClientRect();
  const label = f.querySelector('label');
  if (box.width === 0) return [];
  const range = document.createRange();
  range.selectNodeContents(label);
  const first = range.getClientRects()[0];
  const beside = first.left >= box.right - 0.5
    && first.top < box.bottom && first.bottom > box.top;
  return beside ? [] : [`${label.textContent}: box ${Math.round(box.left)},${Math.round(box.top)}`
    + ` name ${Math.round(first.left)},${Math.round(first.top)}`];
})"""


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_create_dialog_fits(new_context, artifacts, width: int, height: int) -> None:
    page = new_context(width, height).new_page()
    as_guest(page)
    page.click("#create-table")
    page.wait_for_selector("#ct-submit")
    # The server's answer on the special options (open here) re-renders the dialog.
    page.wait_for_function("() => !document.querySelector('#ct-private').disabled")
    assert page.evaluate(OVERFLOWS) == []
    page.screenshot(path=str(artifacts / f"create-dialog-{width}.png"))
    page.click("#house-toggle")
    page.wait_for_selector("#rule-hand_size")
    assert page.evaluate(OVERFLOWS) == []
    assert page.evaluate(CHECK_APART) == []
    page.locator("#rule-hand_size").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"create-dialog-rules-{width}.png"))
    for lang in ("es", "en", "pt", "it", "pl"):
        page.keyboard.press("Escape")
        page.wait_for_selector(".dialog", state="detached")
        page.evaluate(f"() => window.__buraco.setLang('{lang}')")
        page.wait_for_function(f"() => document.documentElement.lang.startsWith('{lang}')")
        page.click("#create-table")
        page.click("#house-toggle")
        page.wait_for_selector("#rule-ace_to_ace")
        assert page.evaluate(SELECT_CUT, ".dialog select") == [], lang
