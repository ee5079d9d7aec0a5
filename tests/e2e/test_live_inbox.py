"""The friends page and the notifications centre, left open, take in what arrives: a
friend request shows with its Accept button, a request of ours accepted moves the player
into our friends, and a notification joins the centre's list with its buttons, all
without leaving the page (its toast says it arrived; the open page must not be the one
place it is missing). A search result offers what fits: "request sent" once asked,
Accept when they asked first, nothing for a friend."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.helpers import ask_friend, register

ES = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())
SENT = ES["friends.requestSent"]

# A mark on the page's window: still there afterwards means the page was not reloaded.
MARK = "() => { window.__stay = 1; }"
MARKED = "() => window.__stay === 1"


def test_open_friends_and_notifications_pages_take_in_what_arrives(new_context, artifacts) -> None:
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
    # Bea is typing a search when it arrives: the repainted page keeps her box's focus,
    # its text and the caret.
    bea.click("#friend-q")
    bea.keyboard.type("zz")
    bea.keyboard.press("ArrowLeft")
    ask_friend(ana, bea_name, SENT)
    bea.wait_for_selector(f"[data-accept='{ana_name}']")
    assert bea.evaluate(MARKED) and bea.url.endswith("#/friends")
    box = bea.evaluate(
        "() => { const e = document.activeElement;"
        " return [e.id, e.value, e.selectionStart, e.isConnected]; }"
    )
    assert box == ["friend-q", "zz", 1, True], box

    # Ana's search result says the request is sent instead of offering it again; Bea's
    # search for Ana offers to accept hers.
    ana.wait_for_selector(f"[data-sent='{bea_name}']")
    assert ana.locator(f"[data-add='{bea_name}']").count() == 0
    bea.fill("#friend-q", ana_name)
    bea.press("#friend-q", "Enter")
    bea.wait_for_selector(f"[data-accept-found='{ana_name}']")
    assert bea.locator(f"[data-add='{ana_name}']").count() == 0
    ana.screenshot(path=str(artifacts / "friends-sent-1280.png"), full_page=True)
    bea.screenshot(path=str(artifacts / "friends-asked-390.png"), full_page=True)

    # Ana's friends page (open since she asked) shows Bea among her friends once Bea
    # accepts, and Bea's own page shows Ana; neither search result offers anything more.
    ana.evaluate(MARK)
    assert ana.locator(f"[data-challenge='{bea_name}']").count() == 0
    bea.click(f"[data-accept-found='{ana_name}']")
    bea.wait_for_selector(f".toast.ok:has-text('{ES['friends.nowFriends']}')")
    bea.wait_for_selector(f"[data-challenge='{ana_name}']")
    # Answered, the request's notification is read: the bell has nothing to count.
    bea.wait_for_function("() => window.__buraco.app.unread === 0")
    assert bea.locator(".nav .badge").count() == 0
    ana.wait_for_selector(f"[data-challenge='{bea_name}']")
    assert ana.evaluate(MARKED) and ana.url.endswith("#/friends")
    ana.wait_for_selector(f"[data-sent='{bea_name}']", state="detached")
    for page, other in ((ana, bea_name), (bea, ana_name)):
        found = page.locator(".friends .list li.person", has_text=other).last
        assert found.locator("button, [data-sent]").count() == 0

    # Bea's notifications centre is open when Cris's request arrives: it joins the list
    # with its Accept button, and answering it there makes them friends.
    bea.goto("/#/notifications")
    bea.wait_for_selector("[data-kind='friend_request']")
    assert bea.locator("[data-kind='friend_request'].read").count() == 1
    bea.evaluate(MARK)
    ask_friend(cris, bea_name, SENT)
    bea.wait_for_function(
        "() => document.querySelectorAll('[data-kind=friend_request]').length === 2"
    )
    newest = bea.locator("[data-kind='friend_request']").first
    assert cris_name in newest.inner_text()
    newest.locator(".btn.primary").click()
    # Answered there, it is read by the answer itself: the bell has nothing to count.
    bea.wait_for_function("() => window.__buraco.app.unread === 0")
    bea.wait_for_selector("[data-kind='friend_request'] >> nth=0 >> .btn.primary", state="detached")
    assert bea.evaluate(MARKED) and bea.url.endswith("#/notifications")
    bea.screenshot(path=str(artifacts / "notifications-live-390.png"), full_page=True)
    friends = bea.evaluate("() => fetch('/api/friends').then(r => r.json())")
    assert sorted(f["nickname"] for f in friends) == sorted([ana_name, cris_name])


def test_a_profile_follows_its_player_asking_and_offers_to_accept(new_context, artifacts) -> None:
    """Bea looks at Dan's profile ("Añadir amigo") when Dan asks to be friends: the
    profile says so and offers Accept, and accepting makes them friends ("Retar")."""
    bea = new_context(390, 844).new_page()
    dan = new_context().new_page()
    register(bea, "bea")
    dan_name = register(dan, "dan")
    bea_id = bea.evaluate("() => window.__buraco.app.me.id")
    dan_id = dan.evaluate("() => window.__buraco.app.me.id")
    bea.goto(f"/#/profile/{dan_id}")
    add = bea.locator(".profile-head button", has_text=ES["friends.add"])
    add.wait_for()
    bea.evaluate(MARK)
    asked = dan.evaluate(
        "async (id) => (await fetch('/api/friends/requests', {method: 'POST',"
        " headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({user_id: id})})).status",
        bea_id,
    )
    assert asked == 201
    bea.wait_for_selector("#profile-accept")
    assert add.count() == 0
    wants = ES["notif.friend_request"].replace("{name}", dan_name)
    assert bea.inner_text("#profile-wants") == wants
    bea.screenshot(path=str(artifacts / "profile-asked-390.png"), full_page=True)
    bea.set_viewport_size({"width": 1366, "height": 768})
    bea.screenshot(path=str(artifacts / "profile-asked-1366.png"))
    bea.click("#profile-accept")
    bea.wait_for_selector(f".toast.ok:has-text('{ES['friends.nowFriends']}')")
    bea.wait_for_selector("#profile-accept", state="detached")
    assert bea.evaluate(MARKED)
    friends = bea.evaluate("() => fetch('/api/friends').then(r => r.json())")
    assert [f["nickname"] for f in friends] == [dan_name]
    # Dan's side: the request's notification to Bea is read, and Dan is told.
    notes = dan.evaluate("() => fetch('/api/notifications').then(r => r.json())")
    assert [n["kind"] for n in notes["items"]] == ["friend_accepted"], notes
    bea.wait_for_function("() => window.__buraco.app.unread === 0")
