"""The built client: text assets gzip-compressed, hashed assets cached for a year
(immutable), index.html revalidated; the static mount never answers for the API."""

from __future__ import annotations

import gzip
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager

from app.core.config import Settings
from app.main import create_app
from tests.support import LIFESPAN_TIMEOUTS

SCRIPT = "export const greeting = 'hola';\n" * 200
HASHED = "/assets/index-VOoSDeRU.js"


@pytest.fixture
async def site(embedded_settings: Settings, tmp_path: Path) -> httpx.AsyncClient:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><title>Buraco</title>" + " " * 600)
    (dist / "assets" / "index-VOoSDeRU.js").write_text(SCRIPT)
    (dist / "assets" / "card.png").write_bytes(b"\x89PNG" + bytes(2000))
    app = create_app(embedded_settings.model_copy(update={"frontend_dir": dist}))
    async with LifespanManager(app, **LIFESPAN_TIMEOUTS):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            yield client


async def test_hashed_assets_are_compressed_and_immutable(site: httpx.AsyncClient) -> None:
    # httpx would decompress on its own: read the raw bytes
    async with site.stream("GET", HASHED, headers={"Accept-Encoding": "gzip"}) as r:
        raw = b"".join([chunk async for chunk in r.aiter_raw()])
    assert r.status_code == 200
    assert r.headers["content-encoding"] == "gzip"
    assert r.headers["vary"] == "Accept-Encoding"
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert r.headers["content-type"].startswith("text/javascript")
    assert int(r.headers["content-length"]) == len(raw) < len(SCRIPT) / 10
    assert gzip.decompress(raw).decode() == SCRIPT


async def test_plain_when_not_accepted_and_binaries_never_compressed(
    site: httpx.AsyncClient,
) -> None:
    plain = await site.get(HASHED, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.text == SCRIPT
    png = await site.get("/assets/card.png", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in png.headers


async def test_index_is_revalidated_every_time(site: httpx.AsyncClient) -> None:
    for path in ("/", "/index.html"):
        r = await site.get(path, headers={"Accept-Encoding": "gzip"})
        assert r.status_code == 200
        assert r.headers["cache-control"] == "no-cache"
        assert "<title>Buraco</title>" in r.text
    etag = r.headers["etag"]
    again = await site.get("/index.html", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.headers["cache-control"] == "no-cache"


async def test_the_mount_does_not_answer_api_paths(site: httpx.AsyncClient) -> None:
    wrong = await site.delete("/api/tables")
    assert wrong.status_code == 405
    assert wrong.headers["allow"] == "GET, POST"
    assert wrong.json()["error"]["code"] == "method_not_allowed"
    sit = await site.get("/api/tables/abc/sit")
    assert sit.status_code == 405 and sit.headers["allow"] == "POST"
    missing = await site.get("/api/no-such-thing")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
    post_page = await site.post("/index.html")
    assert post_page.status_code == 405 and post_page.headers["allow"] == "GET, HEAD"
