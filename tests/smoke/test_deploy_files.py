"""No Docker engine runs here, so the deployment files are checked against the config."""

import re

import yaml

from app.core.config import Settings
from tests.support import REPO_ROOT

SETTINGS_ENV = {f"BURACO_{name.upper()}" for name in Settings.model_fields}


def test_compose_and_dockerfile_use_only_real_settings() -> None:
    for name in ("docker-compose.yml", "Dockerfile"):
        used = set(re.findall(r"\bBURACO_[A-Z_]+", (REPO_ROOT / name).read_text()))
        assert used, name
        assert used <= SETTINGS_ENV, f"{name} sets unknown settings: {used - SETTINGS_ENV}"


def test_compose_shape() -> None:
    compose = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    app = services["app"]
    assert app["deploy"]["replicas"] == 2
    env = app["environment"]
    assert env["BURACO_ENV"] == "production"
    assert env["BURACO_DATABASE_URL"].startswith("postgresql+asyncpg://")
    assert "@postgres:5432/" in env["BURACO_DATABASE_URL"]
    assert env["BURACO_REDIS_URL"].startswith("redis://redis:6379")
    assert "BURACO_SECRET_KEY" in env
    for dep in ("postgres", "redis"):
        assert app["depends_on"][dep]["condition"] == "service_healthy"
        assert "healthcheck" in services[dep]
        assert services[dep]["volumes"]
    assert services["postgres"]["image"].startswith("postgres:15")
    assert services["redis"]["image"].startswith("redis:7")


def test_dockerfile_is_multistage_non_root_and_migrates_first() -> None:
    text = (REPO_ROOT / "Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", text, re.M)) >= 2
    assert re.search(r"^USER (?!root)\w+", text, re.M)
    entry = next(line for line in text.splitlines() if line.startswith("ENTRYPOINT"))
    assert entry.index("alembic upgrade head") < entry.index("uvicorn app.main:create_app")
    assert "--factory" in entry
    for path in ("alembic.ini", "migrations"):
        assert re.search(rf"^COPY {path} ", text, re.M), path
    # the app comes from the builder, with the compiled rules engine
    assert re.search(r"^COPY --from=builder /src/app \./app$", text, re.M)


def test_dockerfile_compiles_the_rules_engine_with_the_pinned_tools() -> None:
    text = (REPO_ROOT / "Dockerfile").read_text()
    pyproject = (REPO_ROOT / "pyproject.toml").read_text()
    build_lock = (REPO_ROOT / "requirements" / "build.lock").read_text()
    for tool in ("mypy", "setuptools"):
        pinned = re.findall(rf'"{tool}==([\w.]+)"', pyproject)
        assert pinned, tool
        # the builder installs them from the hashed build lock, at pyproject's versions
        assert re.findall(rf"^{tool}==([\w.]+) ", build_lock, re.M) == pinned[-1:], tool
    assert "--require-hashes -r requirements/build.lock" in text
    build = text.index("python -m app.native build")
    assert text.index('test "$(python -m app.native status)" = compiled') > build
    assert "gcc" in text[:build]
