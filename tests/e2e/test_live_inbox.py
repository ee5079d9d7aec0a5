"""The friends page and the notifications centre, left open, take in what arrives: a
friend request shows with its Accept button, a request of ours accepted moves the player
into our friends, and a notification joins the centre's list with its buttons, all
without leaving the page (its toast says it arrived; the open page must not be the one
place it is missing)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.helpers import ask_friend, register

ES = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())
SENT = ES["friends.requestSent"]

# A mark on the page's window: still there afterwards means the page was not reloaded.
MARK = "() => { window.__stay = 1; }"
MARKED = "() => window.__stay === 1"


def test_open_friends_and_notifications_pages_take_in_what_arrives(new_context) -> None:
    ana = new_context().new_page()
    bea = new_context(390, 844).new_page()
    cris = new_context().new_page()
    ana_name = register(ana, "ana")
    bea_name = register(bea, "bea")
    cris_name = register(cris, "cris")

    # Bea's friends page is open, with no request, when Ana's arrives.
    bea.goto("/#/friends")
    bea.wait_for_selector("#fr-req")
    assert bea.locator("[data-accept]").count() == 0
    bea.evaluate(MARK)
    ask_friend(ana, bea_name, SENT)
    bea.wait_for_selector(f"[data-accept='{ana_name}']")
    assert bea.evaluate(MARKED) and bea.url.endswith("#/friends")

    # Ana's friends page (open since she asked) shows Bea among her friends once Bea
    # accepts, and Bea's own page shows Ana.
    ana.evaluate(MARK)
    assert ana.locator(f"[data-challenge='{bea_name}']").count() == 0
    bea.click(f"[data-accept='{ana_name}']")
    bea.wait_for_selector(f"[data-challenge='{ana_name}']")
    ana.wait_for_selector(f"[data-challenge='{bea_name}']")
    assert ana.evaluate(MARKED) and ana.url.endswith("#/friends")

    # Bea's notifications centre is open when Cris's request arrives: it joins the list
    # with its Accept button, and answering it there makes them friends.
    bea.goto("/#/notifications")
    bea.wait_for_selector("[data-kind='friend_request']")
    assert bea.locator("[data-kind='friend_request']").count() == 1
    bea.evaluate(MARK)
    ask_friend(cris, bea_name, SENT)
    bea.wait_for_function(
        "() => document.querySelectorAll('[data-kind=friend_request]').length === 2"
    )
    newest = bea.locator("[data-kind='friend_request']").first
    assert cris_name in newest.inner_text()
    newest.locator(".btn.primary").click()
    bea.wait_for_selector("[data-kind='friend_request'] >> nth=0 >> .btn.primary", state="detached")
    assert bea.evaluate(MARKED) and bea.url.endswith("#/notifications")
    friends = bea.evaluate("() => fetch('/api/friends').then(r => r.json())")
    assert sorted(f["nickname"] for f in friends) == sorted([ana_name, cris_name])
