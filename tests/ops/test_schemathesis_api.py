"""Schemathesis over the WHOLE API (every operation in the OpenAPI schema), as a
logged-in player: no server error, no status the schema does not declare, no valid
request refused, every answer in the declared shape and content type.

The app runs in a real uvicorn server (its own thread) on the real Postgres and Redis.
Requests carry the session cookie of a player with a friend, coins, the shop seeded;
logging out is tried with a throwaway guest's cookie so the player stays logged in."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.core.failures import FailureGroup

from app.users.tokens import SESSION_COOKIE
from tests.economy.test_schemathesis import prepared_server
from tests.support import fuzz

# Per operation and mode: 12 is about 1,300 requests, well under two minutes; raise it
# with API_FUZZ_EXAMPLES=50 for a thorough run.
EXAMPLES = int(os.environ.get("API_FUZZ_EXAMPLES", "12"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    positive_data_acceptance,
    response_schema_conformance,
    content_type_conformance,
]
SESSION_ENDING = {"logout"}
# Codes 400 are this API's refusals by a rule of the game or the economy (declared, the
# request well formed: not enough coins, cannot block yourself...). 422 means malformed
# input, so a 422 on schema-valid data is a schema looser than the code: a failure. The
# one exception is a table's rule options checked as a whole (the deal must fit the
# deck), which JSON Schema cannot express; its description says so.
ACCEPTED = ["2xx", "3xx", "400", "401", "403", "404", "409", "429"]
WHOLE_RULES = "inconsistent_rules"


@pytest.fixture
def server(pg_url: str, redis_url: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    # many guests and signups from one address: the per-address limits out of the way
    with prepared_server(
        pg_url, redis_url, tmp_path, signup_limit_per_ip=100_000, login_limit_per_ip=100_000
    ) as served:
        yield served


def throwaway_cookie(base: str) -> str:
    r = httpx.post(f"{base}/api/auth/guest")
    assert r.status_code == 201, r.text
    return r.cookies[SESSION_COOKIE]


def test_whole_api_conforms_to_its_schema(server: tuple[str, str]) -> None:
    base, token = server
    config = schemathesis.Config()
    config.projects.default.checks.positive_data_acceptance.expected_statuses = ACCEPTED
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json", config=config)
    operations = [r.ok() for r in schema.get_all_operations()]
    assert len(operations) >= 50, [op.label for op in operations]
    failures: dict[str, str] = {}

    def check(case: schemathesis.Case) -> None:
        cookie = (
            throwaway_cookie(base)
            if case.operation.definition.raw.get("operationId") in SESSION_ENDING
            else token
        )
        response = case.call(base_url=base, cookies={SESSION_COOKIE: cookie})
        if response.status_code == 422 and WHOLE_RULES in response.text:
            return
        try:
            case.validate_response(response, checks=CHECKS)
        except FailureGroup as group:  # one per operation, status and kind is enough
            for failure in group.exceptions:
                key = f"{case.method} {case.path} {response.status_code} {type(failure).__name__}"
                failures.setdefault(
                    key,
                    f"{response.text[:200]} | sent {case.query} "
                    f"{case.path_parameters} {case.body!r:.200}",
                )

    fuzz(operations, EXAMPLES, check)
    assert not failures, "\n".join(f"{k}: {v}" for k, v in sorted(failures.items()))
