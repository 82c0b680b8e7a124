"""Fixtures: every store-backed test runs on SQLite and, when configured, PostgreSQL.

``ops/test`` starts a throwaway PostgreSQL and sets LEDGER_TEST_POSTGRES_DSN;
each PostgreSQL test gets a schema of its own, dropped afterwards.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path
import uuid
from collections.abc import Iterator

import psycopg
import pytest

from ledger.application import Ledger
from ledger.config import Settings

# The service's own settings in the shell (a benchmark's LEDGER_POSTGRES_OWNER_DSN, a signing key file) would
# reach every Settings() a test builds, and the servers it starts: the tests choose their settings themselves.
for _name in [n for n in os.environ if n.startswith("LEDGER_") and not n.startswith("LEDGER_TEST_")]:
    del os.environ[_name]
# pytest-xdist's workers inherit COLUMNS and LINES (80x24): Rich would fix the command line's width when it is
# imported, and a test's CliRunner(env={"COLUMNS": ...}) would no longer set it, as a shell's does.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)

PG_DSN = os.environ.get("LEDGER_TEST_POSTGRES_DSN")
#: A streaming replica of PG_DSN's cluster (ops/pg.sh replica): tests/replica runs the read tests against it.
REPLICA_DSN = os.environ.get("LEDGER_TEST_POSTGRES_REPLICA_DSN")
REQUIRE_PG = os.environ.get("LEDGER_TEST_REQUIRE_POSTGRES") == "1"
STORES = ["sqlite", "postgres"] if PG_DSN else ["sqlite"]


def pytest_sessionstart(session: pytest.Session) -> None:
    if REQUIRE_PG and not PG_DSN:
        raise pytest.UsageError("LEDGER_TEST_REQUIRE_POSTGRES=1 but no LEDGER_TEST_POSTGRES_DSN is set")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """ops/test runs the suite over the machine's cores (pytest-xdist, ``--dist loadgroup``): a module's tests
    stay on one worker, so its module-scoped fixtures (a served site, a seeded campaign) are built once; the
    replica's tests all share one worker, since one of them pauses the replica's replay for every reader."""
    for item in items:
        path = str(item.fspath).replace(os.sep, "/")
        group = "replica" if "/tests/replica/" in path else item.nodeid.split("::", 1)[0]
        item.add_marker(pytest.mark.xdist_group(group))


def pytest_report_header(config: pytest.Config) -> str:
    return f"ledger stores under test: {', '.join(STORES)}"


# A test that leaves a Ledger or an app unclosed leaves its PostgreSQL pools to the garbage collector, whose
# finalizer joins the pool's threads for up to 5 s. A full collection then runs wherever an allocation triggers
# it: inside a later test's open transaction, which PostgreSQL ends after eventsourcing's 5 s
# idle-in-transaction timeout (CI lost a connection so twice). So the garbage is collected when each test is over,
# its fixtures gone, and what survives is frozen: a later collection walks only what was made since (a full one
# over a whole session's heap took up to a second, and made the suite three times slower). Every so many tests
# the frozen heap is collected too, between tests, for what a module-scoped fixture dropped.
_FULL_COLLECTION_EVERY = 100
_tests_over = 0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    global _tests_over
    yield
    _tests_over += 1
    if _tests_over % _FULL_COLLECTION_EVERY == 0:
        gc.unfreeze()
    gc.collect()
    gc.freeze()


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def settings(store: str, tmp_path) -> Iterator[Settings]:
    if store == "sqlite":
        yield Settings(env="test", data_dir=tmp_path, store="sqlite", snapshot_interval=50)
        return
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        # "replica" (tests/replica): the same store, its reads served by the replica of the cluster.
        yield Settings(env="test", store="postgres", postgres_dsn=PG_DSN, postgres_schema=schema,
                       snapshot_interval=50, pool_size=4,
                       postgres_replica_dsn=REPLICA_DSN if store == "replica" else None)
    finally:
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def ledger(settings: Settings) -> Iterator[Ledger]:
    app = Ledger(settings)
    yield app
    app.close()


def raw_execute(settings: Settings, sql: str, params: tuple = ()) -> None:
    """Run SQL directly against the store, outside the ledger (as an intruder would)."""
    if settings.backend == "sqlite":
        import sqlite3

        conn = sqlite3.connect(settings.sqlite_path)
        try:
            conn.execute(sql, params)
            conn.commit()
        finally:
            conn.close()
    else:
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f'SET search_path TO "{settings.postgres_schema}"')
            conn.execute(sql.replace("?", "%s"), params)


def events_table(settings: Settings) -> str:
    return "stored_events" if settings.backend == "sqlite" else "ledger_events"


CHROMIUM = Path("/usr/bin/chromium")
REQUIRE = os.environ.get("LEDGER_TEST_REQUIRE_BROWSER") == "1"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


def playwright_expect():
    """Playwright's ``expect``, for a browser test module at import; without Playwright the module is skipped
    (an error under LEDGER_TEST_REQUIRE_BROWSER=1)."""
    try:
        from playwright.sync_api import expect
    except ImportError:
        if REQUIRE:
            raise
        pytest.skip("playwright is not installed (pip install -e '.[test]')", allow_module_level=True)
    return expect


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        if REQUIRE:
            pytest.fail("LEDGER_TEST_REQUIRE_BROWSER=1 but /usr/bin/chromium is missing (apt-get install chromium)")
        pytest.skip("/usr/bin/chromium is missing (apt-get install chromium; ops/test installs it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if REQUIRE:
            raise
        pytest.skip("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()
