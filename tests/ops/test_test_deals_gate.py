"""The known-deals endpoint for browser tests (app/tables/lobby/testdeals.py) exists only with
BURACO_ENV=test: a development or production app has no such route, and it is never in
the published schema."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.routing import NoMatchFound

from app.core.config import Settings
from app.main import create_app


def routed(env: str, var: Path) -> bool:
    app = create_app(Settings(env=env, var_dir=var, frontend_dir=var / "none"))  # type: ignore[arg-type]
    try:
        return app.url_path_for("stack_deals", table_id="abc") == "/api/test/tables/abc/deals"
    except NoMatchFound:
        return False


def test_only_the_test_environment_may_stack_deals(tmp_path: Path) -> None:
    assert routed("test", tmp_path)
    assert not routed("development", tmp_path)


@pytest.mark.parametrize("env", ["test", "development"])
def test_never_in_the_schema(env: str, tmp_path: Path) -> None:
    app = create_app(Settings(env=env, var_dir=tmp_path, frontend_dir=tmp_path / "none"))  # type: ignore[arg-type]
    assert not [p for p in app.openapi()["paths"] if p.startswith("/api/test")]
