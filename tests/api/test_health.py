from pathlib import Path

import httpx
from asgi_lifespan import LifespanManager

from app.core.config import Settings
from app.main import create_app
from tests.support import LIFESPAN_TIMEOUTS


async def test_healthz(embedded_client: httpx.AsyncClient) -> None:
    r = await embedded_client.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok"}


async def test_readyz_on_embedded_default(embedded_client: httpx.AsyncClient) -> None:
    r = await embedded_client.get("/readyz")
    assert r.status_code == 200
    assert r.json()["status"] == "ready"


async def test_readyz_on_real_services(client: httpx.AsyncClient) -> None:
    r = await client.get("/readyz")
    assert r.status_code == 200
    assert r.json() == {"status": "ready", "database": "ok", "redis": "ok"}


async def _get(settings: Settings, path: str) -> httpx.Response:
    app = create_app(settings)
    async with LifespanManager(app, **LIFESPAN_TIMEOUTS):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return await client.get(path)


async def test_readyz_503_when_redis_is_down(embedded_settings: Settings) -> None:
    # Port 1 on loopback: nothing listens there, the connection is refused at once.
    settings = embedded_settings.model_copy(
        update={"redis_url": "redis://127.0.0.1:1/0", "redis_pool_timeout_seconds": 1.0}
    )
    r = await _get(settings, "/readyz")
    assert r.status_code == 503
    error = r.json()["error"]
    assert error["code"] == "not_ready"
    assert "redis" in error["message"]
    assert "database" not in error["message"]


async def test_readyz_503_when_database_is_unreachable(
    embedded_settings: Settings, tmp_path: Path
) -> None:
    # A folder where the SQLite file should be: it can never be opened as a database.
    folder = tmp_path / "not-a-file.db"
    folder.mkdir()
    settings = embedded_settings.model_copy(
        update={"database_url": f"sqlite+aiosqlite:///{folder}"}
    )
    r = await _get(settings, "/readyz")
    assert r.status_code == 503
    assert r.json()["error"]["code"] == "not_ready"
    assert "database" in r.json()["error"]["message"]


async def test_root_says_the_server_is_up_without_a_frontend(
    embedded_client: httpx.AsyncClient,
) -> None:
    r = await embedded_client.get("/")
    assert r.status_code == 200
    assert "text/html" in r.headers["content-type"]
    assert "Buraco — servidor en marcha" in r.text


async def test_built_frontend_is_served_when_present(
    embedded_settings: Settings, tmp_path: Path
) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / "index.html").write_text("<h1>cliente</h1>")
    settings = embedded_settings.model_copy(update={"frontend_dir": dist})
    r = await _get(settings, "/")
    assert r.status_code == 200
    assert "cliente" in r.text
    assert (await _get(settings, "/healthz")).json() == {"status": "ok"}
