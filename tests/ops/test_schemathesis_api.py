"""Schemathesis over the WHOLE API (every operation in the OpenAPI schema), as a
logged-in player: no server error, no status the schema does not declare, no valid
request refused, every answer in the declared shape and content type.

The app runs in a real uvicorn server (its own thread) on the real Postgres and Redis.
Requests carry the session cookie of a player with a friend, coins, the shop seeded;
logging out is tried with a throwaway guest's cookie so the player stays logged in."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.core.failures import FailureGroup

from app.core.config import Settings
from app.main import create_app
from app.users.tokens import SESSION_COOKIE
from tests.economy.test_schemathesis import _prepare
from tests.support import free_port, in_thread

# Per operation and mode: 12 is about 1,300 requests, well under two minutes; raise it
# with API_FUZZ_EXAMPLES=50 for a thorough run.
EXAMPLES = int(os.environ.get("API_FUZZ_EXAMPLES", "12"))
CHECKS = [not_a_server_error, status_code_conformance, positive_data_acceptance,
          response_schema_conformance, content_type_conformance]
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
    token, _ = in_thread(asyncio.run, _prepare(pg_url))
    app = create_app(Settings(
        env="test", database_url=pg_url, redis_url=redis_url, var_dir=tmp_path,
        frontend_dir=tmp_path / "none", log_level="WARNING",
        signup_limit_per_ip=100_000, login_limit_per_ip=100_000,
    ))
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}", token
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


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
    for op in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            strategy = op.as_strategy(generation_mode=mode)

            @given(case=strategy)
            @settings(max_examples=EXAMPLES, deadline=None, database=None,
                      phases=[Phase.explicit, Phase.generate],
                      suppress_health_check=list(HealthCheck))
            def check(case: schemathesis.Case) -> None:
                cookie = throwaway_cookie(base) if case.operation.definition.raw.get(
                    "operationId") in SESSION_ENDING else token
                response = case.call(base_url=base, cookies={SESSION_COOKIE: cookie})
                if response.status_code == 422 and WHOLE_RULES in response.text:
                    return
                try:
                    case.validate_response(response, checks=CHECKS)
                except FailureGroup as group:  # one per operation, status and kind is enough
                    for failure in group.exceptions:
                        key = f"{case.method} {case.path} {response.status_code} " \
                              f"{type(failure).__name__}"
                        failures.setdefault(key, f"{response.text[:200]} | sent {case.query} "
                                                 f"{case.path_parameters} {case.body!r:.200}")

            try:
                check()
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE  # nothing invalid to send there
    assert not failures, "\n".join(f"{k}: {v}" for k, v in sorted(failures.items()))
