"""Settings read from the environment (prefix ``BURACO_``).

There is deliberately no module-level settings object: ``create_app()`` builds one (or
receives one from a test) and stores it on ``app.state``.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

Environment = Literal["development", "production", "test"]

# OWASP Password Storage Cheat Sheet: argon2id with m=19 MiB, t=2, p=1 is the minimum.
OWASP_MIN_MEMORY_KIB = 19456
OWASP_MIN_TIME_COST = 2

SECRET_KEY_FILE = "secret_key"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="BURACO_",
        extra="ignore",
        validate_default=True,
    )

    env: Environment = "development"
    var_dir: Path = Path("var")
    log_level: str = "INFO"

    # Storage. The defaults are the embedded mode: a SQLite file and an in-process Redis.
    database_url: str = "sqlite+aiosqlite:///./var/buraco.db"
    db_pool_size: int = Field(default=10, ge=1)
    db_echo: bool = False
    redis_url: str = "memory://"
    redis_max_connections: int = Field(default=64, ge=1)
    redis_pool_timeout_seconds: float = Field(default=5.0, gt=0)
    # How long a request waits for a free database connection before it is answered
    # 503 server_busy (with Retry-After) instead of hanging.
    db_pool_timeout_seconds: float = Field(default=3.0, gt=0)
    # Largest HTTP request body accepted (app/core/bodylimit.py); larger ones get 413
    # body_too_large before they are read. The API's bodies are small JSON documents.
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    # Hash-tagged buckets each global set (timers, processes, lobby indexes) is split
    # into; 0: 1 on one Redis, 16 on a cluster (app/tables/storage/store.py).
    redis_buckets: int = Field(default=0, ge=0, le=1024)

    # Secrets and cookies.
    secret_key: SecretStr | None = None
    cookie_secure: bool = False
    session_days: int = Field(default=30, ge=1)

    # Password hashing (argon2id); the floor is OWASP's minimum.
    argon2_time_cost: int = Field(default=OWASP_MIN_TIME_COST, ge=OWASP_MIN_TIME_COST)
    argon2_memory_kib: int = Field(default=OWASP_MIN_MEMORY_KIB, ge=OWASP_MIN_MEMORY_KIB)
    argon2_parallelism: int = Field(default=1, ge=1)

    # Login throttling: at most N attempts per window, per username and per client address.
    login_limit_per_username: int = Field(default=50, ge=1)
    login_limit_per_ip: int = Field(default=50, ge=1)
    login_window_seconds: int = Field(default=900, ge=1)
    # Tight limit on wrong passwords for one username from one client address, per
    # window; the per-username limit above is the loose one and applies only to addresses
    # the account has never signed in from (docs/security.md).
    login_limit_per_user_ip: int = Field(default=5, ge=1)
    # Each time a username trips its loose limit, its next block lasts twice as long.
    login_backoff_max_seconds: int = Field(default=3600, ge=1)
    # New accounts (signups and guests) per client address and window.
    signup_limit_per_ip: int = Field(default=30, ge=1)
    signup_window_seconds: int = Field(default=3600, ge=1)

    # WebSockets: origins a browser may open a socket from (comma-separated or JSON list).
    ws_allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["http://127.0.0.1:8000", "http://localhost:8000"]
    )

    # At most this many sockets per user across all processes (the oldest is closed with
    # 4008) and per client address on one process (new ones are refused with 4008).
    ws_max_sockets_per_user: int = Field(default=8, ge=1)
    ws_max_sockets_per_ip: int = Field(default=64, ge=1)

    # Game clocks.
    turn_seconds: int = Field(default=30, ge=1)
    turbo_turn_seconds: int = Field(default=12, ge=1)
    # The player to the dealer's right has this long to cut the deck (docs/fairness.md);
    # then the server cuts at random. 0: the server cuts at once, every hand.
    cut_seconds: int = Field(default=15, ge=0)
    turbo_cut_seconds: int = Field(default=6, ge=0)
    # Each seat's time bank per hand, drawn on once the turn's own seconds are gone (a
    # table's ``time_bank`` option overrides it), and the extra seconds of each seat's
    # first turn of a hand (app/tables/play/clock.py, docs/rules-reference.md).
    time_bank_seconds: float = Field(default=60, ge=0, le=600)
    turbo_time_bank_seconds: float = Field(default=20, ge=0, le=600)
    first_turn_bonus_seconds: int = Field(default=15, ge=0, le=120)
    turbo_first_turn_bonus_seconds: int = Field(default=6, ge=0, le=120)
    # Bots wait this long before each move so they feel human (0 in tests).
    bot_delay_seconds: float = Field(default=0.8, ge=0, le=10)
    # The strong bot (docs/bots.md): CPU time and worlds per decision at most, and the
    # worker processes it thinks in (off the event loop; 0: a thread of this process).
    strong_bot_budget_ms: float = Field(default=60, ge=1, le=1000)
    strong_bot_samples: int = Field(default=20, ge=1, le=200)
    bot_workers: int = Field(default=1, ge=0, le=16)
    disconnect_grace_seconds: int = Field(default=60, ge=0)
    # A server process that has not renewed its heartbeat for this long is taken for
    # dead: another process drops the sockets it counted, so its players' grace clocks run.
    process_dead_after_seconds: float = Field(default=10, ge=1, le=300)
    # A rematch offer at the end of a game waits this long for every player's yes.
    rematch_seconds: int = Field(default=30, ge=1, le=600)
    # Challenges and invitations: at most this many requests per player per window
    # (both count against one budget; app/social/reach.py).
    invite_limit: int = Field(default=10, ge=1)
    invite_window_seconds: int = Field(default=60, ge=1)
    # Emotes at a table: at most this many per player per window.
    emote_limit: int = Field(default=3, ge=1)
    emote_window_seconds: int = Field(default=5, ge=1)
    # Overload (app/tables/live/overload.py): past any, new tables and seats get server_busy
    # and /readyz says not ready. 0 tables = no cap; CPU demand: the share of time the
    # event loop's thread ran or waited to run (0 = not checked; off under
    # BURACO_ENV=test unless set). 0.65, not 0.8: with 4,000 tables arriving over 150 s,
    # the tables already playing kept p99 53-56 ms against 152-199 ms, and 2,100-2,170
    # tables still got in on 2 processes
    # (docs/decisions/0006-overload-shedding-at-cpu-demand-0-65.md).
    max_tables_per_process: int = Field(default=0, ge=0)
    max_loop_lag_ms: float = Field(default=200, gt=0)
    max_cpu_demand: float = Field(default=0.65, ge=0, le=1)
    # A game of bots only that nobody watches ends void this long after it is left
    # (app/tables/play/idle.py).
    idle_table_check_seconds: float = Field(default=30, gt=0, le=3600)

    # How often each process checks that Redis still holds the live chat filter
    # (chat:hidden:*) and restores it from Postgres's blocks when not (app/social/hidden.py).
    hidden_check_seconds: float = Field(default=1.0, gt=0, le=60)

    # Economy.
    starting_coins: int = Field(default=50_000, ge=0)
    starting_credits: int = Field(default=5, ge=0)
    daily_bonus_coins: int = Field(default=5_000, ge=0)
    # Off: tables move no coins or credits (free play; tests of table mechanics).
    economy_enabled: bool = True
    # Special tables (pairs, turbo, private) unlock at this level (seed 000: level 2).
    special_table_level: int = Field(default=2, ge=1, le=100)
    # A start still unfinished after this long (its process died, or a step and its
    # clean-up failed) is voided: stakes refunded, holds released, table closed.
    start_recovery_seconds: float = Field(default=30.0, gt=0, le=3600)
    # The reconciler (app/economy/reconciler.py): one process runs it every interval;
    # it repairs only money untouched for the grace period (docs/economy.md).
    reconcile_interval_seconds: float = Field(default=30.0, gt=0, le=3600)
    reconcile_grace_seconds: float = Field(default=60.0, ge=0, le=86400)

    # Tournaments (docs/tournaments.md): the house's cut of a Sit & Go's buy-ins (and a
    # scheduled one's unless it names its own), in hundredths of a percent; how often each
    # process's runner looks for a step to take.
    tournament_fee_bps: int = Field(default=1_000, ge=0, le=5_000)
    tournament_tick_seconds: float = Field(default=1.0, gt=0, le=60)
    # Whether this process takes the runner's ticks. Every process on the deployment's
    # Redis may; one on a Redis of its own beside others that share its database (the
    # browser tests' second servers) must not, or it would open tournaments' tables
    # where the others' players never see them.
    tournament_runner: bool = True

    # Chip dumping (docs/decisions/0016-chip-dumping.md, app/economy/integrity.py).
    # Guests, and accounts younger than new_account_days that are still below
    # new_account_level, may sit only at tables whose bet is at most their cap.
    guest_max_bet: int = Field(default=6_000, ge=0)
    new_account_max_bet: int = Field(default=12_000, ge=0)
    new_account_days: float = Field(default=7, ge=0)
    new_account_level: int = Field(default=5, ge=1, le=100)
    # A game's winnings are held (not spendable, not giftable) until an operator releases
    # them when, within the window, its winner has netted more than
    # integrity_address_coins from new accounts made from one address, or has beaten the
    # same new account (or one made from the winner's own address)
    # integrity_pair_games times in quick games without ever losing to it.
    integrity_window_seconds: int = Field(default=86_400, ge=60)
    integrity_address_coins: int = Field(default=12_000, ge=0)
    integrity_pair_games: int = Field(default=3, ge=1)
    integrity_quick_game_seconds: float = Field(default=90, ge=0)
    # The operator's API (/api/admin/..., docs/operations.md): "Authorization: Bearer
    # <token>"; absent (404) when no token is set.
    operator_token: SecretStr | None = None

    # The built browser client, served at / when the folder exists.
    frontend_dir: Path = Path("frontend/dist")

    # The site's public host name (compose: TLS certificates for it). When it is set and
    # no origins list is, the allowed origins are https://{domain}.
    domain: str | None = None

    # Operations (docs/operations.md). /metrics is open in development; in production it
    # answers only with "Authorization: Bearer <metrics_token>" (404 when no token is set).
    metrics_token: SecretStr | None = None
    # Error tracking: sentry-sdk is started only when a DSN is set (no network otherwise).
    sentry_dsn: SecretStr | None = None
    sentry_traces_sample_rate: float = Field(default=0.0, ge=0, le=1)
    # Production refuses settings that would lose data or weaken security (see
    # _refuse_unsafe_production) unless this says the operator means it.
    allow_unsafe_production: bool = False
    # How long a SIGTERM waits for its sockets to be told and closed before shutting down.
    shutdown_drain_seconds: float = Field(default=5.0, ge=0, le=60)

    @field_validator("ws_allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @model_validator(mode="after")
    def _ensure_secret_key(self) -> Settings:
        if self.secret_key is not None and self.secret_key.get_secret_value():
            return self
        if self.env == "production":
            raise ValueError("BURACO_SECRET_KEY must be set when BURACO_ENV=production")
        if self.env == "test":
            self.secret_key = SecretStr(secrets.token_urlsafe(32))
        else:
            self.secret_key = SecretStr(_load_or_create_secret(self.var_dir / SECRET_KEY_FILE))
        return self

    @model_validator(mode="after")
    def _cpu_demand_off_in_tests(self) -> Settings:
        """Test runs share a loaded machine (parallel workers, browsers) and many run the
        app on the test's own event loop, whose work would count as the app's: there the
        CPU-demand signal is off unless a test sets it."""
        if self.env == "test" and "max_cpu_demand" not in self.model_fields_set:
            self.max_cpu_demand = 0
        return self

    @model_validator(mode="after")
    def _cut_at_once_in_tests(self) -> Settings:
        """Tests play hands by the thousand through the service, the API and browsers:
        there the server cuts every deck at once unless a test sets a cut window
        (tests/tables/test_cut.py, tests/e2e/test_cut.py)."""
        if self.env == "test":
            for name in ("cut_seconds", "turbo_cut_seconds"):
                if name not in self.model_fields_set:
                    setattr(self, name, 0)
        return self

    @model_validator(mode="after")
    def _refuse_unsafe_production(self) -> Settings:
        if self.domain and "ws_allowed_origins" not in self.model_fields_set:
            self.ws_allowed_origins = [f"https://{self.domain}"]
            self.model_fields_set.add("ws_allowed_origins")
        if self.env != "production" or self.allow_unsafe_production:
            return self
        problems = unsafe_production_settings(self, self.model_fields_set)
        if problems:
            raise ValueError(
                "BURACO_ENV=production refuses to start: "
                + "; ".join(problems)
                + " (set BURACO_ALLOW_UNSAFE_PRODUCTION=true to start anyway)"
            )
        return self

    @property
    def is_production(self) -> bool:
        return self.env == "production"

    @property
    def uses_embedded_redis(self) -> bool:
        return self.redis_url.startswith("memory://")


def unsafe_production_settings(settings: Settings, explicit: set[str]) -> list[str]:
    """Each unsafe choice, named by its environment variable."""
    problems = []
    if settings.database_url.startswith("sqlite"):
        problems.append(
            "BURACO_DATABASE_URL is SQLite (use PostgreSQL: replicas would not share it)"
        )
    if settings.uses_embedded_redis:
        problems.append(
            "BURACO_REDIS_URL is memory:// (use a Redis server: replicas would "
            "split the live tables)"
        )
    if not settings.cookie_secure:
        problems.append("BURACO_COOKIE_SECURE is false (session cookies would travel over HTTP)")
    if "ws_allowed_origins" not in explicit or not settings.ws_allowed_origins:
        problems.append(
            "BURACO_WS_ALLOWED_ORIGINS is not set (list the site's origins, "
            "e.g. https://buraco.example.com, or set BURACO_DOMAIN)"
        )
    return problems


def _load_or_create_secret(path: Path) -> str:
    """Development convenience: one random key, generated once and kept under var/."""
    if path.exists():
        existing = path.read_text().strip()
        if existing:
            return existing
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    # Create with 0600 so the key is never world-readable, even for an instant.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key


def get_settings() -> Settings:
    """Read the settings from the environment (a fresh object on every call)."""
    return Settings()
