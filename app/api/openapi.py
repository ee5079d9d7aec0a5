"""How the API describes itself (OpenAPI)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute


def operation_id(route: APIRoute) -> str:
    """Operation ids are the endpoints' names (create_table, not FastAPI's
    create_table_api_tables_post); tests/ops/test_openapi.py keeps them unique."""
    return route.name


# Refused anywhere in a request by app/core/nul.py; said in the schema of every string.
NO_NUL = "^[^\\u0000]*$"


def install_openapi(app: FastAPI) -> None:
    """The schema FastAPI builds, with every string that has no pattern of its own (no
    enum, no format) marked as refusing NUL, as the NUL guard does for the whole request:
    a request valid by the schema is then one the server accepts."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            _mark_strings(build())
        assert app.openapi_schema is not None
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _mark_strings(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("type") == "string" and not {"pattern", "enum", "format", "const"} & set(node):
            node["pattern"] = NO_NUL
        for value in node.values():
            _mark_strings(value)
    elif isinstance(node, list):
        for value in node:
            _mark_strings(value)
