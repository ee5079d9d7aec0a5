"""Error tracking: off without a DSN (nothing sent, nothing imported for it); with one,
an unhandled error is captured with the request id and the user's id."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import sentry_sdk
from asgi_lifespan import LifespanManager
from pydantic import SecretStr
from sentry_sdk.envelope import Envelope
from sentry_sdk.transport import Transport

from app.api.deps import CurrentUser
from app.core import tracking
from app.core.config import Settings
from app.main import create_app
from tests.support import LIFESPAN_TIMEOUTS

DSN = "http://public@127.0.0.1:9/1"  # never contacted: the test's transport keeps events


class Captured(Transport):
    def __init__(self, options: dict[str, Any] | None = None) -> None:
        super().__init__(options)
        self.events: list[dict[str, Any]] = []

    def capture_envelope(self, envelope: Envelope) -> None:
        for item in envelope.items:
            if item.type == "event" and item.payload.json is not None:
                self.events.append(item.payload.json)


@pytest.fixture
def sentry_off() -> Iterator[None]:
    yield
    sentry_sdk.get_client().close()
    tracking._enabled = False


def test_no_dsn_no_tracking(embedded_settings: Settings) -> None:
    create_app(embedded_settings)
    assert not tracking._enabled
    assert not sentry_sdk.get_client().is_active()


async def test_an_unhandled_error_is_sent_with_request_and_user(
    embedded_settings: Settings, sentry_off: None
) -> None:
    app = create_app(embedded_settings.model_copy(update={"sentry_dsn": SecretStr(DSN)}))
    assert tracking._enabled
    transport = Captured()
    tracking.init(DSN, environment="test", release="buraco@test", transport=transport)

    @app.get("/boom")
    async def boom(user: CurrentUser) -> None:
        raise RuntimeError("tracked boom")

    async with LifespanManager(app, **LIFESPAN_TIMEOUTS):
        http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")
        async with http:
            me = (await http.post("/api/auth/guest")).json()
            r = await http.get("/boom", headers={"X-Request-ID": "rid-tracked"})
    assert r.status_code == 500 and r.headers["x-request-id"] == "rid-tracked"
    sentry_sdk.flush()
    events = [e for e in transport.events if "tracked boom" in str(e.get("exception"))]
    assert events, transport.events
    event = events[0]
    assert event["tags"]["request_id"] == "rid-tracked"
    assert event["user"]["id"] == str(me["id"])
