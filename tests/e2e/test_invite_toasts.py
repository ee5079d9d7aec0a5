"""Invitations answered from their toast, the "in play" list pushed live, and the online
count that includes you."""

from __future__ import annotations

from tests.e2e.helpers import as_guest, open_table, register, short_hand_table


def _invite(host, guest_name: str) -> str:
    short_hand_table(host, private=True)
    host.fill("#invite-name", guest_name)
    host.click("#invite-send")
    return host.evaluate("() => location.hash.split('/').pop()")


def test_invitation_accepted_from_its_toast(new_context) -> None:
    host, guest = new_context().new_page(), new_context().new_page()
    register(host, "ana")
    guest_name = register(guest, "bea")
    # Alone in the lobby, the count still has one player: you.
    guest.wait_for_function(
        "() => Number(document.querySelector('#online-count')?.textContent) >= 1"
    )
    tid = _invite(host, guest_name)
    guest.click(".toast .toast-accept")
    guest.wait_for_function(f"() => location.hash === '#/table/{tid}'")
    guest.wait_for_selector("#hand .card")
    host.wait_for_selector("#hand .card")


def test_invitation_declined_from_its_toast(new_context) -> None:
    host, guest = new_context().new_page(), new_context().new_page()
    register(host, "carla")
    guest_name = register(guest, "dora")
    tid = _invite(host, guest_name)
    guest.wait_for_selector(".toast .toast-decline")
    declined = f"/api/tables/{tid}/invitation/decline"
    with guest.expect_response(lambda r: r.url.endswith(declined)) as resp:
        guest.click(".toast .toast-decline")
    assert resp.value.ok
    assert guest.locator("#inv-title").count() == 0
    assert guest.evaluate("() => location.hash") in ("", "#/")
    # Declined: sitting now is refused (the table is private and the invitation is gone).
    status = guest.evaluate(
        f"() => fetch('/api/tables/{tid}/sit', {{method: 'POST', headers: {{'Content-Type': "
        f"'application/json'}}, body: '{{}}'}}).then(r => r.status)"
    )
    assert status >= 400


def test_games_in_play_appear_live_in_the_lobby(new_context) -> None:
    watcher, player = new_context().new_page(), new_context().new_page()
    as_guest(watcher)
    as_guest(player)
    tid = open_table(player, name="En vivo")
    player.click("#add-bots")
    player.wait_for_selector("#hand .card")
    # Well under the old 15-second poll: the lobby stream pushed it.
    watcher.wait_for_selector(f"a[href='#/table/{tid}']", timeout=8000)
