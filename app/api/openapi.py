"""How the API describes itself (OpenAPI)."""

from __future__ import annotations

from fastapi.routing import APIRoute


def operation_id(route: APIRoute) -> str:
    """Operation ids are the endpoints' names (create_table, not FastAPI's
    create_table_api_tables_post); tests/ops/test_openapi.py keeps them unique."""
    return route.name
