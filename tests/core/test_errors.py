"""Every error, whatever raised it, has the shape {"error": {"code", "message"}}."""

from typing import Any

import httpx
import pytest
from fastapi import FastAPI, HTTPException
from pydantic import BaseModel, Field

from app.core.config import Settings
from app.core.errors import AppError
from app.main import create_app


class Thing(BaseModel):
    name: str = Field(min_length=3)
    size: int


def _app_with_failing_routes(settings: Settings) -> FastAPI:
    app = create_app(settings)

    @app.get("/boom/app-error")
    async def app_error() -> None:
        raise AppError("table_full", "This table has no free seat.", 409, {"X-Extra": "1"})

    @app.get("/boom/http")
    async def http_error() -> None:
        raise HTTPException(status_code=403, detail="Not yours.")

    @app.get("/boom/crash")
    async def crash() -> None:
        raise RuntimeError("secret internals")

    @app.post("/things")
    async def things(thing: Thing) -> dict[str, Any]:
        return thing.model_dump()

    return app


@pytest.fixture
async def failing_client(embedded_settings: Settings) -> Any:
    app = _app_with_failing_routes(embedded_settings)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        yield client


def _assert_shape(body: dict[str, Any], code: str) -> dict[str, Any]:
    assert set(body) == {"error"}
    error: dict[str, Any] = body["error"]
    assert error["code"] == code
    assert isinstance(error["message"], str) and error["message"]
    return error


async def test_unknown_path_is_404_in_the_error_shape(embedded_client: httpx.AsyncClient) -> None:
    r = await embedded_client.get("/no/such/thing")
    assert r.status_code == 404
    _assert_shape(r.json(), "not_found")


async def test_wrong_method_is_405_in_the_error_shape(embedded_client: httpx.AsyncClient) -> None:
    r = await embedded_client.delete("/healthz")
    assert r.status_code == 405
    _assert_shape(r.json(), "method_not_allowed")


async def test_app_error_keeps_code_status_and_headers(failing_client: httpx.AsyncClient) -> None:
    r = await failing_client.get("/boom/app-error")
    assert r.status_code == 409
    assert r.headers["x-extra"] == "1"
    error = _assert_shape(r.json(), "table_full")
    assert error["message"] == "This table has no free seat."


async def test_http_exception_uses_the_shape(failing_client: httpx.AsyncClient) -> None:
    r = await failing_client.get("/boom/http")
    assert r.status_code == 403
    assert _assert_shape(r.json(), "forbidden")["message"] == "Not yours."


async def test_unexpected_exception_is_500_without_internals(
    failing_client: httpx.AsyncClient,
) -> None:
    r = await failing_client.get("/boom/crash")
    assert r.status_code == 500
    error = _assert_shape(r.json(), "internal_error")
    assert "secret internals" not in r.text
    assert "RuntimeError" not in error["message"]


async def test_validation_error_names_every_field(failing_client: httpx.AsyncClient) -> None:
    r = await failing_client.post("/things", json={"name": "ab", "size": "big"})
    assert r.status_code == 422
    error = _assert_shape(r.json(), "validation_error")
    assert "name: String should have at least 3 characters" in error["message"]
    assert "size:" in error["message"]
    assert {f["field"] for f in error["fields"]} == {"name", "size"}


async def test_malformed_json_body_is_a_validation_error(failing_client: httpx.AsyncClient) -> None:
    r = await failing_client.post(
        "/things", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 422
    _assert_shape(r.json(), "validation_error")


async def test_openapi_documents_the_error_shape(embedded_app: FastAPI) -> None:
    schema = embedded_app.openapi()
    assert "ErrorResponse" in schema["components"]["schemas"]
    register = schema["paths"]["/api/auth/register"]["post"]["responses"]
    for status in ("401", "409", "422", "429"):
        ref = register[status]["content"]["application/json"]["schema"]["$ref"]
        assert ref.endswith("/ErrorResponse")
    # FastAPI's default 422 body (HTTPValidationError) is replaced, not offered alongside.
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    readyz = schema["paths"]["/readyz"]["get"]["responses"]["503"]
    assert readyz["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorResponse")
