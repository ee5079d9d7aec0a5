"""Two players in two browser contexts: one creates a private table and invites the
other, who accepts; they play moves and each sees only their own hand."""

from __future__ import annotations

from tests.e2e.helpers import READ_TABLE, register, short_hand_table

FACE_UP_OUTSIDE_MY_HAND = """() => [...document.querySelectorAll('.opponents .card')]
  .filter(c => !c.classList.contains('back')).length"""


def _my_turn(page) -> bool:
    return page.evaluate(
        "() => !!document.querySelector('#act-draw') && "
        "!document.querySelector('#act-draw').disabled"
    )


def test_private_table_invitation_and_play(new_context, artifacts) -> None:
    host = new_context().new_page()
    guest = new_context().new_page()
    register(host, "ana")
    guest_name = register(guest, "bea")

    short_hand_table(host, private=True)
    host.fill("#invite-name", guest_name)
    host.click("#invite-send")

    # The invitation reaches the other player's lobby live; she accepts it there.
    guest.wait_for_selector("#inv-title")
    guest.click(".invite .btn.primary")
    host.wait_for_selector("#hand .card")
    guest.wait_for_selector("#hand .card")

    a, b = host.evaluate(READ_TABLE), guest.evaluate(READ_TABLE)
    assert len(a["hand"]) == len(b["hand"]) == 20
    for page in (host, guest):
        # The other hand is only backs and a count, never faces.
        assert page.evaluate(FACE_UP_OUTSIDE_MY_HAND) == 0
        assert page.locator(".opponents .backs").count() == 1

    # Four turns: whoever's turn it is draws and discards; the other sees the discard.
    for _ in range(4):
        mover, watcher = (host, guest) if _my_turn(host) else (guest, host)
        if not _my_turn(mover):
            mover.wait_for_function("() => !document.querySelector('#act-draw').disabled")
        size = mover.locator("#hand .card").count()
        mover.click("#act-draw")
        mover.wait_for_function(
            f"() => document.querySelectorAll('#hand .card').length === {size + 1}"
        )
        card = mover.locator("#hand .card").last.get_attribute("data-card")
        mover.locator("#hand .card").last.click()
        mover.click("#act-discard")
        label = mover.locator("#hand .card").last.get_attribute("aria-label")
        assert card and label
        watcher.wait_for_function("() => !document.querySelector('#act-draw').disabled")
        pile = watcher.get_attribute("#pile", "aria-label") or ""
        assert watcher.evaluate(READ_TABLE)["stock"] == mover.evaluate(READ_TABLE)["stock"]
        assert pile, "the watcher sees the pile"
        for page in (host, guest):
            assert page.evaluate(FACE_UP_OUTSIDE_MY_HAND) == 0

    a, b = host.evaluate(READ_TABLE), guest.evaluate(READ_TABLE)
    assert len(a["hand"]) == len(b["hand"]) == 20
    host.screenshot(path=str(artifacts / "table-private-host.png"))
