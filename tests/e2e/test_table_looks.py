"""What others see at the table: your equipped avatar on your seat, your card back on
your cards, the host's felt, and your emote at your seat; an emote flood is refused
politely."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.helpers import open_table, register

ES = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())

POST = """async ([path, body]) => {
  const r = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body) });
  return r.status;
}"""


# Where the emote bubble is against its seat: inside the avatar's button or not, how much
# of the avatar it covers (px²), whether it is in the viewport, its distance to the seat.
BUBBLE = """(sel) => {
  const seat = document.querySelector(sel);
  const b = seat.querySelector('.emote-bubble').getBoundingClientRect();
  const a = seat.querySelector('.avatar').getBoundingClientRect();
  const s = seat.getBoundingClientRect();
  const w = Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left));
  const h = Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const dx = Math.max(0, s.left - b.right, b.left - s.right);
  const dy = Math.max(0, s.top - b.bottom, b.top - s.bottom);
  return { inButton: !!seat.querySelector('.avatar .emote-bubble'), overlap: w * h,
    inView: b.left >= 0 && b.top >= 0 && b.right <= innerWidth && b.bottom <= innerHeight,
    gap: Math.hypot(dx, dy), bubble: [b.left, b.top, b.right, b.bottom],
    seat: [s.left, s.top, s.right, s.bottom], view: [innerWidth, innerHeight] };
}"""


def test_opponent_sees_avatar_back_felt_and_emote(new_context, artifacts) -> None:
    host, guest = new_context(1366, 768).new_page(), new_context(390, 844).new_page()
    register(host, "lola")
    register(guest, "mia")
    # Lola wears the crown, a golden back and the red felt, bought before sitting.
    for sku in ("avatar_corona", "back_dorado", "felt_rojo", "emote_risa"):
        assert host.evaluate(POST, ["/api/shop/buy", {"sku": sku}]) in (200, 201), sku
    tid = open_table(host, name="Mesa con estilo")
    assert guest.evaluate(POST, [f"/api/tables/{tid}/sit", {}]) == 200
    guest.goto(f"/#/table/{tid}")
    for page in (host, guest):
        page.wait_for_selector("#hand .card")
    host_seat = f"[data-seat='{host.evaluate('() => 0')}']"
    guest.wait_for_selector(f"{host_seat} .avatar[data-avatar='avatar_corona'] img")
    assert guest.locator(f"{host_seat} .card.back[data-back='back_dorado']").count() > 0
    assert guest.get_attribute(".table-main", "data-felt") == "felt_rojo"
    assert guest.locator("[data-seat='1'] .avatar[data-avatar='avatar_default']").count() == 1

    # An emote from the picker (an owned one) shows at Lola's seat for both.
    host.click("#emote-toggle")
    host.click("#emote-picker [data-emote='emote_risa']")
    for page in (host, guest):
        page.wait_for_selector(f"{host_seat} .emote-bubble[data-emote='emote_risa']")
    # A bubble beside the sender's seat (above it, or to its right at the top), never
    # inside the seat menu's button, inside the screen.
    for page in (host, guest):
        page.wait_for_timeout(300)  # its pop-in (0.25 s) is over
        place = page.evaluate(BUBBLE, host_seat)
        assert place["inButton"] is False and place["overlap"] < 1, place
        assert place["inView"] and place["gap"] < 24, place
    guest.screenshot(path=str(artifacts / "table-emote-390.png"))
    host.screenshot(path=str(artifacts / "table-emote-1366.png"))
    # ...and goes away after a few seconds.
    guest.wait_for_selector(f"{host_seat} .emote-bubble", state="detached", timeout=8000)

    # A flood: past the limit the sender is told politely and nobody sees the extra.
    # The limit is 3 emotes in a fixed window of 5 s, and the picker's emote opened one
    # about as long ago as the bubble lasted: 4 sends could fall 1 in that window and 3
    # in the next, all allowed. 7 cannot: one of the two windows gets more than 3.
    for _ in range(7):
        host.evaluate(f"""() => window.__buraco.socket.send(
            {{type: 'emote', table: '{tid}', emote: 'basic_hola'}})""")
    too_many = ES["err.emote_rate_limited"].split(":")[0]
    host.wait_for_selector(f".toast:has-text('{too_many}')")


def test_gift_from_an_opponents_seat_to_a_stranger(new_context, artifacts) -> None:
    ana, bea = new_context(390, 844).new_page(), new_context().new_page()
    register(ana, "nina")
    register(bea, "olga")  # not Ana's friend
    tid = open_table(ana, name="Mesa del regalo")
    assert bea.evaluate(POST, [f"/api/tables/{tid}/sit", {}]) == 200
    bea.goto(f"/#/table/{tid}")
    ana.wait_for_selector("#hand .card")
    ana.click("[data-seat='1'] .seat-menu-btn")
    ana.wait_for_selector("#seat-menu")
    assert ana.locator("[data-seat='0'] .seat-menu-btn").count() == 0  # not on your own seat
    ana.screenshot(path=str(artifacts / "seat-menu-390.png"))
    ana.click("#seat-gift")
    # A shop item paid with credits (coins given must be won at tables: giftable.py).
    ana.click("#gift-picker [data-gift='emote_beso']")
    ana.click("#gift-yes")  # the picker asks first
    ana.wait_for_selector(".toast.ok:has-text('olga_')")

    bea.goto("/#/notifications")
    bea.click("[data-kind='gift'] [data-action='accept-gift']")
    bea.wait_for_selector(".toast.ok")
    things = bea.evaluate("() => fetch('/api/me/things').then(r => r.json())")
    assert "emote_beso" in [i["sku"] for i in things["items"]]
