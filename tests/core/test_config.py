import os
import stat
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.core.config import OWASP_MIN_MEMORY_KIB, Settings


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("BURACO_"):
            monkeypatch.delenv(name)


def test_defaults_are_the_embedded_mode(tmp_path: Path) -> None:
    s = Settings(var_dir=tmp_path)
    assert s.env == "development"
    assert s.database_url == "sqlite+aiosqlite:///./var/buraco.db"
    assert s.redis_url == "memory://"
    assert s.uses_embedded_redis
    assert (s.turn_seconds, s.turbo_turn_seconds, s.disconnect_grace_seconds) == (30, 12, 60)
    assert (s.starting_coins, s.starting_credits) == (50_000, 5)
    assert s.cookie_secure is False


def test_reads_prefixed_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BURACO_TURN_SECONDS", "20")
    monkeypatch.setenv("BURACO_REDIS_URL", "redis://example:6379/2")
    monkeypatch.setenv("BURACO_COOKIE_SECURE", "true")
    monkeypatch.setenv("TURN_SECONDS", "99")  # no prefix: ignored
    s = Settings(var_dir=tmp_path)
    assert s.turn_seconds == 20
    assert s.redis_url == "redis://example:6379/2"
    assert s.cookie_secure is True


@pytest.mark.parametrize(
    "raw",
    ["https://a.example, https://b.example", '["https://a.example", "https://b.example"]'],
)
def test_allowed_origins_comma_or_json(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, raw: str
) -> None:
    monkeypatch.setenv("BURACO_WS_ALLOWED_ORIGINS", raw)
    assert Settings(var_dir=tmp_path).ws_allowed_origins == [
        "https://a.example",
        "https://b.example",
    ]


def test_production_refuses_to_start_without_secret_key(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="BURACO_SECRET_KEY"):
        Settings(env="production", var_dir=tmp_path)
    assert not (tmp_path / "secret_key").exists()


SAFE_PRODUCTION = {
    "BURACO_ENV": "production",
    "BURACO_SECRET_KEY": "s3cret-from-env",
    "BURACO_DATABASE_URL": "postgresql+asyncpg://u:p@db:5432/buraco",
    "BURACO_REDIS_URL": "redis://redis:6379/0",
    "BURACO_COOKIE_SECURE": "true",
    "BURACO_WS_ALLOWED_ORIGINS": "https://buraco.example.com",
}


def test_production_with_secret_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name, value in SAFE_PRODUCTION.items():
        monkeypatch.setenv(name, value)
    s = Settings(var_dir=tmp_path)
    assert s.is_production
    assert s.secret_key is not None and s.secret_key.get_secret_value() == "s3cret-from-env"


def test_development_secret_is_generated_once_and_kept(tmp_path: Path) -> None:
    first = Settings(env="development", var_dir=tmp_path / "var")
    key_file = tmp_path / "var" / "secret_key"
    assert key_file.exists()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    second = Settings(env="development", var_dir=tmp_path / "var")
    assert first.secret_key is not None and second.secret_key is not None
    assert first.secret_key.get_secret_value() == second.secret_key.get_secret_value()
    assert len(first.secret_key.get_secret_value()) >= 32


def test_test_env_generates_an_ephemeral_secret(tmp_path: Path) -> None:
    s = Settings(env="test", var_dir=tmp_path)
    assert s.secret_key is not None and s.secret_key.get_secret_value()
    assert not (tmp_path / "secret_key").exists()


def test_password_hashing_cannot_go_below_owasp_minimum(tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        Settings(env="test", var_dir=tmp_path, argon2_memory_kib=OWASP_MIN_MEMORY_KIB - 1)
    with pytest.raises(ValidationError):
        Settings(env="test", var_dir=tmp_path, argon2_time_cost=1)


def test_unknown_environment_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        Settings(env="staging", var_dir=tmp_path)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "unsafe"),
    [
        ("BURACO_DATABASE_URL", "sqlite+aiosqlite:///./var/buraco.db"),
        ("BURACO_REDIS_URL", "memory://"),
        ("BURACO_COOKIE_SECURE", "false"),
        ("BURACO_WS_ALLOWED_ORIGINS", None),  # left unset: the localhost defaults
    ],
)
def test_production_refuses_each_unsafe_setting_by_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, unsafe: str | None
) -> None:
    for key, value in SAFE_PRODUCTION.items():
        monkeypatch.setenv(key, value)
    if unsafe is None:
        monkeypatch.delenv(name)
    else:
        monkeypatch.setenv(name, unsafe)
    with pytest.raises(ValidationError) as caught:
        Settings(var_dir=tmp_path)
    message = str(caught.value)
    assert name in message
    others = {
        "BURACO_DATABASE_URL",
        "BURACO_REDIS_URL",
        "BURACO_COOKIE_SECURE",
        "BURACO_WS_ALLOWED_ORIGINS",
    } - {name}
    assert not [other for other in others if other in message]
    # the operator may insist, and then it starts
    monkeypatch.setenv("BURACO_ALLOW_UNSAFE_PRODUCTION", "true")
    assert Settings(var_dir=tmp_path).is_production


def test_production_defaults_refuse_everything_unsafe_at_once(tmp_path: Path) -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(env="production", secret_key="k" * 40, var_dir=tmp_path)
    for name in (
        "BURACO_DATABASE_URL",
        "BURACO_REDIS_URL",
        "BURACO_COOKIE_SECURE",
        "BURACO_WS_ALLOWED_ORIGINS",
    ):
        assert name in str(caught.value)


def test_domain_gives_the_allowed_origins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key, value in SAFE_PRODUCTION.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("BURACO_WS_ALLOWED_ORIGINS")
    monkeypatch.setenv("BURACO_DOMAIN", "cards.example.org")
    assert Settings(var_dir=tmp_path).ws_allowed_origins == ["https://cards.example.org"]


def test_development_accepts_the_embedded_defaults(tmp_path: Path) -> None:
    s = Settings(env="development", var_dir=tmp_path)
    assert s.uses_embedded_redis and s.database_url.startswith("sqlite")


def test_cpu_demand_limit_is_on_except_in_tests_unless_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert Settings(env="development", var_dir=tmp_path).max_cpu_demand == 0.65
    assert Settings(env="test", var_dir=tmp_path).max_cpu_demand == 0
    assert Settings(env="test", var_dir=tmp_path, max_cpu_demand=0.7).max_cpu_demand == 0.7
    monkeypatch.setenv("BURACO_MAX_CPU_DEMAND", "0.75")
    assert Settings(env="test", var_dir=tmp_path).max_cpu_demand == 0.75
    for bad in ("1.5", "-0.1"):
        monkeypatch.setenv("BURACO_MAX_CPU_DEMAND", bad)
        with pytest.raises(ValidationError):
            Settings(env="development", var_dir=tmp_path)
