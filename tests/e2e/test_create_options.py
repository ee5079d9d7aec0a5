"""A level-1 player is offered no option the server refuses: "Crear partida" shows
private, turbo and pairs locked, with what they need, and the server indeed refuses
each of them while the dialog's own choices create a table."""

from __future__ import annotations

from tests.e2e.helpers import CREATE_TABLE_JS, register


def test_level_one_sees_special_options_locked(gate_context, artifacts) -> None:
    page = gate_context(390, 844).new_page()
    register(page, "novata")
    options = page.evaluate("() => fetch('/api/lobby/options').then(r => r.json())")
    assert options["level"] == 1
    page.click("#create-table")
    page.wait_for_selector("#ct-submit")  # the dialog loads on first use
    page.wait_for_function("() => document.querySelector('#ct-private-lock').textContent !== ''")
    for name, box in (("private", "#ct-private"), ("turbo", "#ct-turbo")):
        assert options["options"][name]["locked"]
        assert page.is_disabled(box)
        assert "nivel 2" in page.text_content(f"{box}-lock")
    four = page.locator("#ct-players option[value='4']")  # pairs
    assert options["options"]["pairs"]["locked"]
    assert four.is_disabled()
    assert "nivel 2" in four.text_content()
    page.screenshot(path=str(artifacts / "create-locked-390.png"))

    # What is locked is refused by the server...
    base = {"name": "x", "preset": "cerrado", "players": 2}
    for extra in ({"private": True}, {"turbo": True}):
        status, code = page.evaluate(CREATE_TABLE_JS, {**base, **extra})
        assert status == 403 and code == "level_too_low", (extra, status, code)
    # ...and what the dialog offers is accepted.
    page.fill("#ct-name", "Mesa abierta")
    page.click("#ct-submit")
    page.wait_for_selector("#wait-title")
