"""``ledger serve``, ``ledger migrate``, ``ledger sample``, ``ledger openapi``: running the service, its tables, its schema."""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated, Optional

import typer

from ledger.cli.base import err, escape, fail, ledger_app, out, store_name
from ledger.config import Settings
from ledger.supervision import SUPERVISOR_ENV


def serve(
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, typer.Option()] = 8000,
    sample: Annotated[bool, typer.Option("--sample/--no-sample", help="Create the sample campaign first")] = True,
    workers: Annotated[int, typer.Option(min=1, max=64, help="uvicorn worker processes")] = 1,
    log_level: Annotated[str, typer.Option(help="uvicorn's log level")] = "info",
) -> None:
    """Run the HTTP service (SQLite under the data directory unless PostgreSQL is configured).

    One worker runs the projection runner in a thread (the embedded default);
    with several, the runner is one process of its own (`ledger project
    --follow`, started and stopped here) unless LEDGER_PROJECTION_RUNNER=external
    says it runs elsewhere. Reads never wait for it: they add the events the
    views have not reached yet (projections/head.py).
    """
    import os

    import uvicorn

    settings = Settings()
    if sample:
        from ledger.sample import ensure_sample

        with ledger_app() as ledger:
            slug = ensure_sample(ledger)
        out.print(f"sample campaign [bold]{escape(slug)}[/bold] ready ({escape(str(settings.backend))} store)")
    # No uvicorn access log: api/observability.py already logs every request as one JSON line.
    # uvicorn has no header read timeout: keep-alive, the head's size (api/headbound.py: whatever the parser) and
    # the connection bound are set here;
    # a slow client's headers are cut by a reverse proxy's timeout (README, Configuration).
    from api.headbound import http_protocol

    limits = dict(http=http_protocol(), timeout_keep_alive=settings.timeout_keep_alive,
                  timeout_graceful_shutdown=settings.timeout_graceful_shutdown,
                  h11_max_incomplete_event_size=settings.max_header_bytes,
                  # uvicorn's own 503 carries no Retry-After: it is the hard bound above the app's (api/guards.py).
                  limit_concurrency=2 * settings.limit_concurrency if settings.limit_concurrency else None)
    if workers == 1:
        from api.main import create_app

        uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level, access_log=False, **limits)
        return
    # Workers and the follower watch this pid and exit when it dies, even by kill -9 (ledger/supervision.py).
    os.environ[SUPERVISOR_ENV] = str(os.getpid())
    follower = FollowerSupervisor() if settings.projection_runner == "thread" else None
    os.environ["LEDGER_PROJECTION_RUNNER"] = "external"  # read by each worker's Settings
    try:
        uvicorn.run("api.main:create_app", factory=True, host=host, port=port, workers=workers,
                    log_level=log_level, access_log=False, **limits)
    finally:
        if follower is not None:
            follower.stop()


class FollowerSupervisor:
    """Runs `ledger project --follow` as a child and starts it again when it dies (a thread of `serve`)."""

    def __init__(self, check_every: float = 1.0, backoff: float = 2.0):
        import threading

        self.check_every, self.backoff = check_every, backoff
        self.restarts = 0
        self.stopping = threading.Event()
        self.process = self._spawn()
        self.thread = threading.Thread(target=self._watch, name="follower-supervisor", daemon=True)
        self.thread.start()

    def _spawn(self):
        import subprocess

        self.started = time.monotonic()
        return subprocess.Popen([sys.executable, "-m", "ledger", "project", "--follow"], stdout=subprocess.DEVNULL)

    def _watch(self) -> None:
        while not self.stopping.wait(self.check_every):
            code = self.process.poll()
            if code is None:
                continue
            err.print(f"projection follower (pid {self.process.pid}) exited with {code}: restarting")
            # At once after a long life; a follower that dies at start (store down) must not spin.
            if time.monotonic() - self.started < 10 and self.stopping.wait(self.backoff):
                return
            self.restarts += 1
            self.process = self._spawn()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()


def migrate(
    service_role: Annotated[Optional[str], typer.Option(
        "--service-role", help="The PostgreSQL role the service connects as (default: the user of "
        "LEDGER_POSTGRES_DSN when LEDGER_POSTGRES_OWNER_DSN is set)")] = None,
) -> None:
    """Create or upgrade the store's tables as their owner, then grant the service role what it needs.

    With LEDGER_POSTGRES_OWNER_DSN set, the service (LEDGER_POSTGRES_DSN) runs no DDL: run this first
    (ops/migrate). Without it, and on SQLite, the service migrates itself at start-up as before.
    """
    from ledger.application import Ledger
    from ledger.store.roles import grant_service_role, service_role as role_of
    from ledger.supervision import Heartbeat
    from projections.runner import Projector

    settings = Settings()
    role = service_role or role_of(settings)
    if role is None and settings.migrated_by_owner:
        fail("LEDGER_POSTGRES_DSN", "names no user: give the service role with --service-role")
    if role is not None and settings.backend != "postgres":
        fail("--service-role", "roles exist on PostgreSQL only")
    owner = settings.as_owner()
    try:
        ledger = Ledger(owner)  # the events, snapshots and side tables (the recorders' migrations)
    except Exception as e:
        fail("LEDGER_POSTGRES_OWNER_DSN" if settings.migrated_by_owner else None, f"cannot migrate: {e}")
    try:
        Projector(ledger)  # the views' tables
        Heartbeat(ledger).create_table()
        if role is not None:
            grant_service_role(ledger, role)
    finally:
        ledger.close()
    out.print(f"migrated {escape(store_name(owner))}"
              + (f"; role [bold]{escape(role)}[/bold] may read, and only append to the history" if role else ""),
              soft_wrap=True)


def sample() -> None:
    """Create the sample campaign if it does not exist."""
    from ledger.sample import ensure_sample

    with ledger_app() as ledger:
        out.print(f"sample campaign: {escape(ensure_sample(ledger))}")


def openapi(out: Annotated[Optional[str], typer.Option("--out", help="File to write (default: stdout)")] = None
            ) -> None:
    """Export the HTTP API's OpenAPI schema (e.g. --out api/openapi.json)."""
    from api.main import create_app

    schema = create_app(Settings(env="test", admin_token="unused")).openapi()
    text = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
        err.print(f"wrote {escape(out)} ({len(schema['paths'])} paths)")
    else:
        sys.stdout.write(text)
