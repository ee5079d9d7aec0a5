"""A table page's socket is routed by its table (/ws?table=ID; the balancer hashes it:
docs/decisions/0028-sockets-routed-by-table.md). Opening a table from the lobby swaps
the lobby's socket for one routed by the table, without the lost-connection banner, and
the game is played on it; a reloaded table page opens the routed one at once."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.e2e.helpers import as_guest, draw_and_discard, short_hand_table

# Whether the banner was ever shown, recorded by the page itself from the start.
WATCH_BANNER = """() => {
  window.__bannerShown = false;
  const banner = document.querySelector('.banner');
  new MutationObserver(() => { if (!banner.hidden) window.__bannerShown = true; })
    .observe(banner, { attributes: true, attributeFilter: ['hidden'] });
}"""


def routed_by(url: str) -> str | None:
    parts = urlsplit(url)
    assert parts.path == "/ws", url
    return parse_qs(parts.query).get("table", [None])[0]


def test_a_table_page_plays_on_a_socket_routed_by_its_table(new_context) -> None:
    page = new_context(390, 844).new_page()
    sockets: list = []
    page.on("websocket", lambda ws: sockets.append(ws))
    as_guest(page)
    page.wait_for_function("() => window.__buraco.socket.state === 'open'")
    assert [routed_by(ws.url) for ws in sockets] == [None]  # the lobby's

    page.evaluate(WATCH_BANNER)
    short_hand_table(page)
    table = page.url.rsplit("/", 1)[-1]
    page.wait_for_function("() => window.__buraco.socket.state === 'open'")
    assert [routed_by(ws.url) for ws in sockets] == [None, table]
    assert sockets[0].is_closed()
    assert page.evaluate("() => window.__bannerShown") is False

    # The game runs on the routed socket.
    page.click("#add-bots")
    page.wait_for_selector("#hand .card")
    page.wait_for_function("() => !document.querySelector('#act-draw').disabled", timeout=20000)
    draw_and_discard(page)
    assert len(sockets) == 2

    # A reloaded table page opens the routed socket straight away.
    sockets.clear()
    page.reload()
    page.wait_for_selector("#hand .card")
    page.wait_for_function("() => window.__buraco.socket.state === 'open'")
    assert [routed_by(ws.url) for ws in sockets] == [table]

    # Back to the lobby: the socket stays as it is (no swap to watch the lobby).
    page.goto("/#/")
    page.wait_for_selector("#play-now")
    page.wait_for_timeout(300)
    assert [routed_by(ws.url) for ws in sockets] == [table]
