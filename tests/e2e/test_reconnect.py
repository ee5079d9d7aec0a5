"""A lost connection: the page's socket is dropped mid-hand (while the bot plays), a
banner says so, and the page resumes by itself from its last version (watch with
last_v) into exactly the state a freshly loaded page shows."""

from __future__ import annotations

import json

from tests.e2e.helpers import READ_TABLE, as_guest, draw_and_discard, short_hand_table


def _comparable(state: dict) -> dict:
    return {**state, "hand": sorted(state["hand"]), "status": None}


def test_socket_dropped_mid_hand_resumes_in_the_same_state(new_context, artifacts) -> None:
    ctx = new_context()
    page = ctx.new_page()
    routes: list = []
    sent: list[dict] = []

    def through(ws) -> None:
        server = ws.connect_to_server()

        def forward(message) -> None:
            sent.append(json.loads(message))
            server.send(message)

        ws.on_message(forward)
        routes.append((ws, server))

    page.route_web_socket("**/ws*", through)
    as_guest(page)
    short_hand_table(page)
    page.click("#add-bots")
    page.wait_for_selector("#hand .card")
    page.wait_for_function("() => !document.querySelector('#act-draw').disabled", timeout=20000)
    draw_and_discard(page)

    # Drop the connection at once: the bot's turn goes on without us.
    ws, server = routes[-1]
    ws.close()
    server.close()
    page.wait_for_selector(".banner:not([hidden])")
    page.screenshot(path=str(artifacts / "table-reconnecting.png"))
    page.wait_for_selector(".banner", state="hidden", timeout=15000)
    page.wait_for_function("() => !document.querySelector('#act-draw').disabled", timeout=20000)

    resumed = [m for m in sent if m.get("type") == "watch" and m.get("last_v")]
    assert resumed, f"no watch with last_v after the drop: {sent}"
    assert len(routes) >= 2

    fresh = ctx.new_page()
    fresh.goto(page.url)
    fresh.wait_for_selector("#hand .card")
    fresh.wait_for_function("() => !document.querySelector('#act-draw').disabled", timeout=20000)
    # What the pile says it takes comes with the legal commands, asked for after the
    # snapshot: both pages hold theirs before they are compared.
    for p in (page, fresh):
        p.wait_for_selector("#pile[data-legal='ready']")
    assert _comparable(page.evaluate(READ_TABLE)) == _comparable(fresh.evaluate(READ_TABLE))
    fresh.close()

    # And the game goes on from the resumed page.
    draw_and_discard(page)
