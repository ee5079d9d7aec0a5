"""The API describes itself completely: readable unique operation ids, the session
cookie as its security scheme, a typed response for every table endpoint, the error
statuses declared, the modalities as an enum."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from app.core.config import Settings
from app.main import create_app
from app.rules.ruleset import PRESETS


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    var: Path = tmp_path_factory.mktemp("openapi")
    return create_app(Settings(env="test", var_dir=var, frontend_dir=var / "none")).openapi()


def operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method, path, op) for path, ops in spec["paths"].items() for method, op in ops.items()]


def test_operation_ids_are_readable_and_unique(spec: dict[str, Any]) -> None:
    ids = [op["operationId"] for _, _, op in operations(spec)]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z][a-z_]*", i) for i in ids), ids
    assert "create_table" in ids and "register" in ids


def test_the_session_cookie_is_the_security_scheme(spec: dict[str, Any]) -> None:
    scheme = spec["components"]["securitySchemes"]["session"]
    assert scheme == {**scheme, "type": "apiKey", "in": "cookie", "name": "buraco_session"}
    secured = [path for method, path, op in operations(spec) if op.get("security")]
    assert "/api/tables" in secured and "/api/wallet" in secured


def test_every_table_endpoint_has_a_typed_response(spec: dict[str, Any]) -> None:
    for method, path, op in operations(spec):
        if not path.startswith(("/api/tables", "/api/quickplay", "/api/challenges", "/api/games")):
            continue
        ok = next(v for k, v in op["responses"].items() if k.startswith("2"))
        if "application/json" not in ok["content"]:  # a text download (a score sheet)
            assert ok["content"]["text/plain"]["schema"]["type"] == "string", (method, path)
            continue
        schema = ok["content"]["application/json"]["schema"]
        assert "$ref" in schema, (method, path, schema)


def test_error_statuses_are_declared(spec: dict[str, Any]) -> None:
    for method, path, op in operations(spec):
        if path.startswith("/api/"):
            assert {"400", "401", "403", "404", "409", "422", "429"} <= set(op["responses"]), (
                method,
                path,
            )


def test_modalities_are_an_enum(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    for name in ("CreateTableIn", "QuickplayIn", "ChallengeIn"):
        assert schemas[name]["properties"]["preset"]["enum"] == list(PRESETS), name
    rules = schemas["CreateTableIn"]["properties"]["rules"]
    assert rules["additionalProperties"] is False
    assert rules["properties"]["discard_pile"]["enum"] == ["open", "closed", "any_depth"]
