"""Configuration: one settings class, read from the environment (prefix LEDGER_).

SQLite under the data directory is the zero-setup default; PostgreSQL is used
when a DSN (``LEDGER_POSTGRES_DSN``) or the library's ``POSTGRES_*`` variables
are given. The settings become the eventsourcing environment in ``event_env()``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from psycopg.conninfo import conninfo_to_dict

from ledger.files import private_dir


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="LEDGER_", extra="ignore")

    env: Literal["development", "test", "production"] = "development"
    data_dir: Path = Path("data")
    store: Literal["auto", "sqlite", "postgres"] = "auto"
    sqlite_file: str = "ledger.sqlite3"
    postgres_dsn: str | None = Field(default=None, description="libpq connection string or URI")
    postgres_schema: str = ""
    postgres_owner_dsn: str | None = Field(
        default=None, description="the tables' owner, for `ledger migrate` only; when set, the service (which "
        "connects with postgres_dsn as a role that may only INSERT events) never runs DDL")
    postgres_replica_dsn: str | None = Field(
        default=None, description="a streaming replica (hot standby) of the PostgreSQL store: the read routes read "
        "there; writes, tokens and the projection runner stay on postgres_dsn (ops/pg.sh replica)")
    replica_wait_ms: int = Field(
        default=200, ge=0, le=10_000, description="how long a read naming a position (Ledger-Position) waits for "
        "the replica to replay that far before it is served by the primary instead")
    pool_size: int = 8
    snapshot_interval: int = Field(default=1000, ge=10)
    head_cache_size: int = 1000
    admin_token: str | None = Field(default=None, description="bootstrap token for creating campaigns")
    max_request_bytes: int = 1_000_000
    # uvicorn (ledger serve): idle keep-alive seconds, seconds to drain on stop, the largest request head (h11),
    # and requests in flight per worker before a 503 with Retry-After (api/guards.py); 0 = no bound.
    timeout_keep_alive: int = Field(default=5, ge=1)
    timeout_graceful_shutdown: int = Field(default=10, ge=1)
    max_header_bytes: int = Field(default=16_384, ge=1024)
    limit_concurrency: int = Field(default=256, ge=0)
    read_slots: int = Field(default=8, ge=0, description="reads worked on at once per worker, the others wait "
                            "their turn; writes never wait for one (api/guards.py ReadSlots); 0 = no bound")
    full_gc_seconds: float = Field(
        default=60.0, ge=0, description="a worker's full garbage collection runs on this clock instead of "
        "whenever enough objects outlived younger collections (ledger/supervision.py SteadyGC); 0 = Python's own")
    young_gc_objects: int = Field(
        default=10_000, ge=0, description="a worker's young garbage collection runs after this many new objects "
        "instead of Python's 700, which walked the in-flight requests' objects about once per request "
        "(ledger/supervision.py SteadyGC); 0 = Python's own")
    response_cache_bytes: int = Field(
        default=64 << 20, ge=0, description="rendered answers (JSON reads, pages, map.svg) each worker keeps, by "
        "request, reader and head position (api/readpath.py); 0 = none kept")
    count_statements: bool = Field(
        default=False, description="answer each request with the number of SQL statements it ran (the "
        "Ledger-Statements header, api/observability.py): what ops/load.py prints per kind; off in service")
    follower_stale_seconds: float = Field(default=10.0, gt=0, description="/ready: a follower beat older is dead")
    lag_alert_seconds: float = Field(default=120.0, gt=0, description="/ready: views behind the store this long "
                                     "without catching up on any of it are reported (degraded)")
    session_hours: int = Field(default=336, ge=1, le=24 * 90, description="a web page login lasts this long "
                               "(its cookie holds a session recorded in the campaign, never the token)")
    signing_key_file: Path | None = Field(
        default=None, description="Ed25519 private key (PEM) signing checkpoints; development: <data_dir>/signing-key.pem")
    public_host: str = Field(default="localhost", description="the name in checkpoint origins and the key name")
    smtp_url: str | None = Field(
        default=None, description="the mail server e-mail endpoints are sent through (ledger/notify/send.py): "
        "smtp://[user:password@]host[:port][?from=ADDRESS&starttls=1] or smtps://...; unset: no e-mail endpoints")
    notify_delivery: Literal["thread", "off"] = Field(
        default="thread", description="thread: the API process delivers the outbox's messages "
        "(projections/delivery.py); off: another process does (`ledger notify deliver`)")
    notify_private_targets: bool = Field(
        default=False, description="production: webhooks may name loopback or private addresses (refused "
        "otherwise: a player must not make the service post inside its network); other envs always may")
    notify_timeout: float = Field(default=5.0, gt=0, le=60, description="seconds a webhook or mail server may take")
    notify_max_age_seconds: int = Field(
        default=86_400, ge=60, description="a message whose event is older than this is not sent (a rebuild of "
        "the views, an outage): marked expired")
    projection_runner: Literal["thread", "external"] = Field(
        default="thread", description="thread: the API process keeps the views; external: `ledger project --follow`")
    deadline_tick_seconds: float = Field(
        default=60.0, ge=0, description="the service records the reminders that fell due every this many seconds "
                                        "(ledger/deadlines.py); 0: not in the service (cron `ledger deadlines tick`)")

    @model_validator(mode="after")
    def _production_needs_secrets(self) -> Settings:
        if self.env == "production" and not self.admin_token:
            raise ValueError("LEDGER_ADMIN_TOKEN is required in production (no default secret)")
        return self

    @property
    def backend(self) -> Literal["sqlite", "postgres"]:
        if self.store != "auto":
            return self.store
        if self.postgres_dsn or os.environ.get("POSTGRES_DBNAME"):
            return "postgres"
        return "sqlite"

    @property
    def migrated_by_owner(self) -> bool:
        """PostgreSQL with a separate owner: migrations are run apart, as the owner (``ledger migrate``)."""
        return self.backend == "postgres" and bool(self.postgres_owner_dsn) and \
            self.postgres_owner_dsn != self.postgres_dsn

    def as_owner(self) -> Settings:
        """These settings connected as the tables' owner (what ``ledger migrate`` and ``restore`` use)."""
        if not self.migrated_by_owner:
            return self
        return self.model_copy(update={"postgres_dsn": self.postgres_owner_dsn, "postgres_owner_dsn": None})

    def on_replica(self) -> Settings | None:
        """These settings connected to the read replica (None without one, or on SQLite)."""
        if self.backend != "postgres" or not self.postgres_replica_dsn:
            return None
        return self.model_copy(update={"postgres_dsn": self.postgres_replica_dsn, "postgres_owner_dsn": None,
                                       "postgres_replica_dsn": None})

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / self.sqlite_file

    def event_env(self) -> dict[str, str]:
        """The eventsourcing environment for the ledger application."""
        env = {
            "TRANSCODER_TOPIC": "ledger.store.codec:OrjsonTranscoder",
            "MAPPER_TOPIC": "ledger.store.codec:LedgerMapper",
            "IS_SNAPSHOTTING_ENABLED": "y",
            # With an owner DSN the tables are `ledger migrate`'s (ops/migrate): the service role may not create.
            "CREATE_TABLE": "n" if self.migrated_by_owner else "y",
        }
        if self.backend == "postgres":
            env["PERSISTENCE_MODULE"] = "ledger.store.recorders:LedgerPostgresFactory"
            env["APPLICATION_RECORDER_TOPIC"] = "ledger.store.recorders:LedgerPostgresRecorder"
            env["POSTGRES_POOL_SIZE"] = str(self.pool_size)
            if self.postgres_schema:
                env["POSTGRES_SCHEMA"] = self.postgres_schema
            if self.postgres_dsn:
                parts = conninfo_to_dict(self.postgres_dsn)
                for key, var in [
                    ("dbname", "POSTGRES_DBNAME"),
                    ("host", "POSTGRES_HOST"),
                    ("port", "POSTGRES_PORT"),
                    ("user", "POSTGRES_USER"),
                    ("password", "POSTGRES_PASSWORD"),
                ]:
                    if parts.get(key) is not None:
                        env[var] = str(parts[key])
            env.setdefault("POSTGRES_PASSWORD", os.environ.get("POSTGRES_PASSWORD", ""))
        else:
            private_dir(self.data_dir)  # 0700 where the ledger makes it (ledger/files.py)
            env["PERSISTENCE_MODULE"] = "ledger.store.recorders:LedgerSQLiteFactory"
            env["APPLICATION_RECORDER_TOPIC"] = "ledger.store.recorders:LedgerSQLiteRecorder"
            env["SQLITE_DBNAME"] = str(self.sqlite_path)
        return env
