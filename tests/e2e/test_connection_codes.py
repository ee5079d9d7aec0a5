"""How the page handles each deliberate WebSocket close (docs/protocol.md): 4003 (bad
origin) shows a readable reason and does not retry; 4008 (opened elsewhere) explains and
offers a reconnect button; 4001 (session ended) shows the sign-in page; 1012 after a
server_restart frame says "restarting" and reconnects by itself; reconnects wait a
full-jitter exponential backoff."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.helpers import as_guest

ES = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())


def signed_in(new_context: Any) -> tuple[Any, list]:
    """A guest's page whose sockets pass through the test (to close them as the server
    would), once its first socket is open."""
    page = new_context(390, 844).new_page()
    routes: list = []

    def through(ws: Any) -> None:
        server = ws.connect_to_server()
        routes.append((ws, server))

    page.route_web_socket("**/ws*", through)
    as_guest(page)
    page.wait_for_function("() => window.__buraco.socket.state === 'open'")
    return page, routes


def close_from_server(routes: list, code: int, reason: str, before: str | None = None) -> None:
    ws, server = routes[-1]
    if before:
        ws.send(before)
    ws.close(code=code, reason=reason)
    server.close()


def test_bad_origin_shows_the_reason_and_does_not_retry(new_context) -> None:
    page, routes = signed_in(new_context)
    close_from_server(routes, 4003, "bad_origin")
    page.wait_for_selector(".banner:not([hidden])")
    text = page.text_content(".banner") or ""
    assert ES["conn.badOrigin"] in text, text
    page.wait_for_timeout(2500)
    assert len(routes) == 1, "reconnected after a refused origin"


def test_opened_elsewhere_offers_a_reconnect(new_context) -> None:
    page, routes = signed_in(new_context)
    close_from_server(routes, 4008, "too_many_sockets")
    page.wait_for_selector("#reconnect")
    assert ES["conn.otherTab"] in (page.text_content(".banner") or "")
    page.wait_for_timeout(1500)
    assert len(routes) == 1
    page.click("#reconnect")
    page.wait_for_selector(".banner", state="hidden")
    assert len(routes) == 2


def test_session_ended_shows_the_sign_in_page(new_context) -> None:
    page, routes = signed_in(new_context)
    close_from_server(routes, 4001, "session_ended")
    page.wait_for_selector("#play-guest")


def test_server_restart_says_so_and_reconnects(new_context) -> None:
    page, routes = signed_in(new_context)
    # The banner may be up for a moment only (the first reconnect waits 0-400 ms): what
    # it said is recorded as it shows, not polled for.
    page.evaluate("""() => {
      const b = document.querySelector('.banner');
      window.__banners = [];
      new MutationObserver(() => { if (!b.hidden) window.__banners.push(b.textContent); })
        .observe(b, { attributes: true, childList: true, subtree: true, characterData: true });
    }""")
    close_from_server(routes, 1012, "", before=json.dumps({"type": "server_restart"}))
    page.wait_for_function(
        "(text) => window.__banners.some((said) => said.includes(text))", arg=ES["conn.restart"]
    )
    page.wait_for_selector(".banner", state="hidden", timeout=5000)
    assert len(routes) == 2


def test_too_slow_reconnects_with_full_jitter_backoff(new_context) -> None:
    page, routes = signed_in(new_context)
    close_from_server(routes, 4009, "too_slow")
    page.wait_for_selector(".banner", state="hidden", timeout=5000)
    assert len(routes) == 2
    waits = page.evaluate("""() => {
      const b = window.__buraco.backoff;
      return { top: [0, 1, 2, 3, 10, 20].map((n) => b(n, () => 0.999999)),
               low: [0, 5].map((n) => b(n, () => 0)),
               spread: new Set(Array.from({ length: 50 }, () => b(4))).size };
    }""")
    assert waits["top"][:4] == [400, 800, 1600, 3200] and waits["top"][4:] == [15000, 15000], waits
    assert waits["low"] == [0, 0]
    assert waits["spread"] > 20  # random, not the same wait for everyone
