"""``ledger backup FILE`` and ``ledger restore FILE``: the whole store (events, snapshots, seeds, idempotency, views).

- PostgreSQL: ``pg_dump --format=custom`` of the ledger's schema, restored with ``pg_restore`` in one
  transaction (Debian's binaries under ``/usr/lib/postgresql/15/bin`` unless ``LEDGER_PG_BIN`` says where). The
  dump is one consistent snapshot: every write acknowledged before it starts is in it.
- SQLite: the online backup API (``sqlite3.Connection.backup``), which copies a consistent snapshot while
  the service keeps writing; a plain file copy during writes can miss the WAL's acknowledged pages or tear.

Restore goes into an *empty* store only (no event in it): it never overwrites a history. Afterwards it
walks every campaign's chain and prints the head hashes, to compare with ``ledger verify`` at the source.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from ledger.cli.base import escape, fail, ledger_app, out
from ledger.config import Settings
from ledger.domain.errors import LedgerError
from ledger.files import private_file, private_sqlite

PG_BIN = "/usr/lib/postgresql/15/bin"


def _pg_tool(name: str) -> str:
    for candidate in (Path(os.environ.get("LEDGER_PG_BIN", PG_BIN)) / name, shutil.which(name)):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    fail(None, f"{name} not found (install postgresql-client-15 or set LEDGER_PG_BIN)")


def _pg_target(settings: Settings) -> tuple[str, str, dict[str, str]]:
    """(conninfo, schema, environment) for the libpq tools, from the same settings the ledger uses."""
    from psycopg.conninfo import make_conninfo

    env = dict(os.environ)
    if settings.postgres_dsn:
        conninfo = settings.postgres_dsn
    else:  # the library's POSTGRES_* variables
        parts = {k: os.environ[v] for k, v in [("dbname", "POSTGRES_DBNAME"), ("host", "POSTGRES_HOST"),
                                               ("port", "POSTGRES_PORT"), ("user", "POSTGRES_USER")]
                 if os.environ.get(v)}
        conninfo = make_conninfo(**parts)
        if os.environ.get("POSTGRES_PASSWORD"):
            env["PGPASSWORD"] = os.environ["POSTGRES_PASSWORD"]
    return conninfo, settings.postgres_schema or "public", env


def _run(args: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(args, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        fail(None, f"{Path(args[0]).name} failed ({done.returncode}): {done.stderr.strip()[-2000:]}", code=1)


def _pg_event_count(conninfo: str, schema: str) -> int:
    import psycopg

    with psycopg.connect(conninfo) as conn:
        exists = conn.execute("SELECT to_regclass(%s)", (f'"{schema}".ledger_events',)).fetchone()[0]
        if exists is None:
            return 0
        return int(conn.execute(f'SELECT count(*) FROM "{schema}".ledger_events').fetchone()[0])


def _sqlite_event_count(path: Path) -> int:
    if not path.exists():
        return 0
    conn = sqlite3.connect(path)
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'stored_events'").fetchone() is None:
            return 0
        return int(conn.execute("SELECT count(*) FROM stored_events").fetchone()[0])
    finally:
        conn.close()


def backup(file: Annotated[Path, typer.Argument(help="The backup file to write (replaced if it exists)")]) -> None:
    """Back up the whole store into FILE (pg_dump custom format, or an SQLite database file)."""
    settings = Settings()
    tmp = file.with_name(file.name + ".partial")  # a crash never leaves a half-written FILE under its name
    # It holds every event, hidden ones too: readable by its owner only, from its first byte (ledger/files.py).
    tmp.unlink(missing_ok=True)
    private_file(tmp, create=True)
    if settings.backend == "postgres":
        conninfo, schema, env = _pg_target(settings)
        _run([_pg_tool("pg_dump"), "--format=custom", f"--schema={schema}", "--no-owner", "--no-privileges",
              f"--file={tmp}", f"--dbname={conninfo}"], env)
        events = _pg_event_count(conninfo, schema)
    else:
        if not settings.sqlite_path.exists():
            fail(None, f"no store at {settings.sqlite_path}")
        src, dst = sqlite3.connect(settings.sqlite_path), sqlite3.connect(tmp)
        try:
            src.backup(dst)  # a consistent snapshot, taken page by page while writers go on
        finally:
            dst.close()
            src.close()
        events = _sqlite_event_count(tmp)
    os.replace(tmp, file)
    out.print(f"backed up {escape(settings.backend)} store to {escape(str(file))} "
              f"({file.stat().st_size} bytes, {events} events)", soft_wrap=True)


def restore(file: Annotated[Path, typer.Argument(help="A file written by `ledger backup` on the same kind of store")]
            ) -> None:
    """Restore FILE into the configured store, which must hold no event; then verify every chain."""
    settings = Settings()
    if not file.is_file():
        fail("file", f"no backup at {file}")
    if settings.backend == "postgres":
        # As the tables' owner when there is one: the service role may not create them.
        conninfo, schema, env = _pg_target(settings.as_owner())
        if _pg_event_count(conninfo, schema):
            fail(None, f"schema {schema} already holds events: restore goes into an empty store only")
        # --clean drops what an earlier start-up created (empty tables); one transaction: all or nothing.
        _run([_pg_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--no-privileges",
              "--single-transaction", "--exit-on-error", f"--dbname={conninfo}", str(file)], env)
    else:
        target = settings.sqlite_path
        if _sqlite_event_count(target):
            fail(None, f"{target} already holds events: restore goes into an empty store only")
        with open(file, "rb") as f:
            if not f.read(16).startswith(b"SQLite format 3"):
                fail("file", f"{file} is not an SQLite backup (a PostgreSQL dump goes into a PostgreSQL store)")
        private_sqlite(target)  # 0600, as the ledger opens it (ledger/files.py)
        src, dst = sqlite3.connect(file), sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
            src.close()
    from ledger.store.roles import service_role

    role = service_role(settings)
    if role:  # the dump carries no privileges: the service role gets its own back
        from ledger.application import Ledger
        from ledger.store.roles import grant_service_role

        owner = Ledger(settings.as_owner())
        try:
            grant_service_role(owner, role)
        finally:
            owner.close()
    broken = 0
    with ledger_app() as ledger:
        # Every campaign the store holds, loadable or not: a history signed by another key than this
        # service's (LEDGER_SIGNING_KEY_FILE) is reported, never skipped.
        for cid in ledger.recorder.campaign_ids():
            report = ledger.verify(cid)
            try:
                name = ledger.campaign(cid).slug
            except LedgerError as e:
                name, report = str(cid), report if not report.intact else replace(report, intact=False,
                                                                                   reason=str(e))
            broken += not report.intact
            out.print(f"{escape(name)}: {'intact' if report.intact else 'BROKEN'} {report.count} events, "
                      f"head {report.head_hash}" + (f" ({escape(report.reason)})" if report.reason else ""),
                      soft_wrap=True)
    if broken:
        raise typer.Exit(1)
