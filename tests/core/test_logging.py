import logging

import httpx
import orjson
import pytest

from app.core.logging import JsonFormatter, request_id_var


def _access_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "app.access"]


async def test_request_id_is_echoed_and_logged_once(
    embedded_client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="app.access")
    r = await embedded_client.get("/healthz", headers={"X-Request-ID": "abc-123"})
    assert r.headers["x-request-id"] == "abc-123"
    records = _access_records(caplog)
    assert len(records) == 1
    record = records[0]
    assert record.request_id == "abc-123"  # type: ignore[attr-defined]
    assert record.status == 200  # type: ignore[attr-defined]
    assert record.path == "/healthz"  # type: ignore[attr-defined]
    assert "GET /healthz 200" in record.getMessage()


async def test_request_id_generated_when_missing_or_unsafe(
    embedded_client: httpx.AsyncClient,
) -> None:
    first = (await embedded_client.get("/healthz")).headers["x-request-id"]
    second = (await embedded_client.get("/healthz")).headers["x-request-id"]
    assert first and second and first != second
    unsafe = await embedded_client.get("/healthz", headers={"X-Request-ID": 'a b"<script>'})
    assert unsafe.headers["x-request-id"] != 'a b"<script>'
    assert len(unsafe.headers["x-request-id"]) == 32


async def test_errors_carry_the_request_id_too(embedded_client: httpx.AsyncClient) -> None:
    r = await embedded_client.get("/missing", headers={"X-Request-ID": "req-404"})
    assert r.status_code == 404
    assert r.headers["x-request-id"] == "req-404"


def test_json_formatter_writes_one_json_object_per_line() -> None:
    record = logging.LogRecord("app.access", logging.INFO, __file__, 1, "GET / %s", (200,), None)
    record.request_id = "rid-1"
    record.status = 200
    line = JsonFormatter().format(record)
    assert "\n" not in line
    data = orjson.loads(line)
    assert data["msg"] == "GET / 200"
    assert data["request_id"] == "rid-1"
    assert data["status"] == 200
    assert data["level"] == "INFO"


def test_request_id_context_is_empty_outside_requests() -> None:
    assert request_id_var.get() is None
