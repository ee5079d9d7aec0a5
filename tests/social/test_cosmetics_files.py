"""Every shop item a player can wear or send, and every free emote, has its own drawing
(frontend/public/cosmetics/{id}.svg, served beside the client): small, self-contained
SVG with no text (so no emoji font is ever needed) and no outside references."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from app.tables.live.emotes import BASIC
from tests.support import REPO_ROOT

FOLDER = REPO_ROOT / "frontend" / "public" / "cosmetics"
SHOP = REPO_ROOT / "app" / "economy" / "data" / "shop_items.json"
SVG = "{http://www.w3.org/2000/svg}"


def test_every_wearable_item_and_basic_emote_is_drawn() -> None:
    items = json.loads(SHOP.read_text(encoding="utf-8"))["items"]
    ids = {i["sku"] for i in items if not i["kind"].endswith("_pack")} | set(BASIC)
    index = json.loads((FOLDER / "index.json").read_text(encoding="utf-8"))
    ids |= set(index["defaults"].values())
    drawn = {p.stem for p in FOLDER.glob("*.svg")}
    assert ids <= drawn, sorted(ids - drawn)
    assert index["basic_emotes"] == list(BASIC)
    for path in FOLDER.glob("*.svg"):
        text = path.read_text(encoding="utf-8")
        assert len(text.encode()) < 2_500, path.name
        root = ET.fromstring(text)
        assert root.tag == f"{SVG}svg" and root.get("viewBox"), path.name
        assert not list(root.iter(f"{SVG}text")), path.name
        assert "http" not in text.replace("http://www.w3.org/2000/svg", ""), path.name
        assert all(ord(c) < 128 for c in text), path.name
