"""Schemathesis over the rest of the API (accounts, tables, quick play, challenges,
finished games, health): with tests/economy/test_schemathesis.py (wallet, shop, gifts,
social) it covers every operation of the OpenAPI schema. No generated request, valid or
not, gets a 5xx; every refusal has the one error shape. Authenticated: requests carry
the session cookie of a registered player (the economy test's server fixture: real
uvicorn on the real Postgres and Redis)."""

from __future__ import annotations

import re

import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from app.users.tokens import SESSION_COOKIE
from tests.economy.test_schemathesis import MINE, server

__all__ = ["server"]

EXAMPLES = 25
# Last, so the session every other operation uses is still live while they run.
ENDS_SESSION = ("/api/auth/logout",)


def _cases(
    op: schemathesis.APIOperation, mode: GenerationMode, base: str, token: str, failures: list[str]
) -> None:
    @given(case=op.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def check(case: schemathesis.Case) -> None:
        response = case.call(base_url=base, cookies={SESSION_COOKIE: token})
        if response.status_code >= 500:
            failures.append(
                f"{case.method} {case.path} {case.path_parameters} {case.query} "
                f"{case.body!r}: {response.status_code} {response.text[:200]}"
            )
        elif response.status_code >= 400 and case.path.startswith("/api"):
            assert "error" in response.json(), response.text

    try:
        check()
    except Unsatisfiable:
        assert mode is GenerationMode.NEGATIVE  # nothing invalid to send there


def test_no_5xx_for_any_generated_request_to_the_rest_of_the_api(server: tuple[str, str]) -> None:
    base, token = server
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    mine = re.compile(MINE)
    operations = [r.ok() for r in schema.get_all_operations()]
    rest = [op for op in operations if not mine.search(op.path)]
    rest.sort(key=lambda op: op.path in ENDS_SESSION)
    labels = {op.label for op in rest}
    for expected in (
        "POST /api/auth/login",
        "POST /api/tables",
        "POST /api/challenges",
        "POST /api/tables/{table_id}/invite",
        "GET /api/games/{game_id}",
        "POST /api/auth/password",
    ):
        assert expected in labels, sorted(labels)
    failures: list[str] = []
    for op in rest:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _cases(op, mode, base, token, failures)
    assert not failures, failures[:10]
