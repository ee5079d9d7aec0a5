"""Avatars outside the table are the same SVG drawings the table uses, never emoji: the
header, the friends list, the lobby's online list, a profile, the shop and "Mis cosas"
show the equipped avatar (or the default drawing), and no emoji is left in them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.helpers import register

SENT = json.loads((Path(__file__).resolve().parents[2] / "frontend/src/i18n/es.json").read_text())[
    "friends.requestSent"
]

# Every avatar or item drawing on the page: its image source, and any text it holds.
DRAWINGS = """(sel) => [...document.querySelectorAll(sel)].map(el => ({
  src: el.querySelector('img')?.getAttribute('src') ?? null,
  text: el.textContent.trim(),
  loaded: !!el.querySelector('img')?.complete && el.querySelector('img').naturalWidth > 0,
}))"""

# Any character drawn as an emoji by default (one that needs an emoji font: the suits and
# check marks of the interface are plain text symbols every font has).
EMOJI = r"""() => [...document.body.innerText.matchAll(/\p{Emoji_Presentation}/gu)]
  .map(m => m[0])"""


def _avatar_of(page, sel: str) -> str | None:
    page.wait_for_selector(f"{sel} img")
    # Drawn: every image there has loaded (a real SVG came back, not a broken image).
    page.wait_for_function(
        "(sel) => [...document.querySelectorAll(sel + ' img')]"
        ".every(i => i.complete && i.naturalWidth > 0)",
        arg=sel,
    )
    found = page.evaluate(DRAWINGS, sel)
    assert found, f"no avatar at {sel}"
    assert all(d["text"] == "" and d["loaded"] for d in found), found
    return found[0]["src"]


def test_avatars_are_svg_drawings_everywhere(new_context, artifacts) -> None:
    ana_ctx, bea_ctx = new_context(1366, 768), new_context(390, 844)
    ana, bea = ana_ctx.new_page(), bea_ctx.new_page()
    ana_name, bea_name = register(ana, "ana"), register(bea, "bea")
    # No avatar bought yet: the default drawing, in the header.
    assert _avatar_of(ana, ".usermenu .avatar") == "/cosmetics/avatar_default.svg"

    ana.goto("/#/shop")
    ana.wait_for_selector("[data-sku='avatar_gafas'] .item-icon img")
    for sku in ("avatar_gafas", "emote_risa", "back_dorado", "felt_rojo"):
        assert _avatar_of(ana, f"[data-sku='{sku}'] .item-icon") == f"/cosmetics/{sku}.svg"
    assert ana.evaluate(EMOJI) == []
    ana.click("[data-sku='avatar_gafas'] .btn.primary")
    ana.wait_for_function(
        "() => document.querySelector('.usermenu .avatar img')?.getAttribute('src')"
        " === '/cosmetics/avatar_gafas.svg'"
    )
    ana.screenshot(path=str(artifacts / "avatars-shop-1366.png"))

    # Friends: Bea sees Ana's avatar in her list, Ana sees Bea's default one.
    ana.goto("/#/friends")
    ana.fill("#friend-q", bea_name)
    ana.press("#friend-q", "Enter")
    ana.wait_for_selector(f"[data-add='{bea_name}']")
    assert _avatar_of(ana, ".person .avatar") == "/cosmetics/avatar_default.svg"
    ana.click(f"[data-add='{bea_name}']")
    ana.wait_for_selector(f".toast.ok:has-text('{SENT}')")  # the request is made before Bea looks
    bea.goto("/#/friends")
    bea.click(f"[data-accept='{ana_name}']")
    bea.wait_for_selector(f"[data-challenge='{ana_name}']")
    assert _avatar_of(bea, ".person .avatar") == "/cosmetics/avatar_gafas.svg"
    assert bea.evaluate(EMOJI) == []
    bea.screenshot(path=str(artifacts / "avatars-friends-390.png"))

    # The lobby's online list and Ana's profile, seen by Bea.
    ana_id = ana.evaluate("() => fetch('/api/me').then(r => r.json()).then(m => m.id)")
    link = f".players a.who[href='#/profile/{ana_id}']"
    bea.goto("/#/")
    assert _avatar_of(bea, f"{link} .avatar") == "/cosmetics/avatar_gafas.svg"
    bea.click(link)
    bea.wait_for_selector(".profile-head .avatar img")
    assert _avatar_of(bea, ".profile-head .avatar") == "/cosmetics/avatar_gafas.svg"
    assert bea.is_visible("#profile-gift")  # "Regalar" from any profile
    bea.screenshot(path=str(artifacts / "avatars-profile-390.png"))

    # "Mis cosas" draws what you own the same way.
    ana.goto("/#/things")
    assert _avatar_of(ana, "[data-sku='avatar_gafas'] .item-icon") == "/cosmetics/avatar_gafas.svg"
    assert ana.evaluate(EMOJI) == []
    ana.screenshot(path=str(artifacts / "avatars-things-1366.png"))
