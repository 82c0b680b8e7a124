"""Fixtures, and the lanes of the suite (a pyramid: much logic run once, the store's contract on both stores).

- A test that asks for the ``store`` fixture (or ``settings``, ``ledger``, which ask for it) runs on SQLite
  alone: its subject is the logic above the store (folds, sheets, words, rules, pages, access, commands), which
  does not change with the store under it.
- A test marked ``store_contract`` (``pytestmark = pytest.mark.store_contract`` for a module) runs on every
  store: SQLite and, when LEDGER_TEST_POSTGRES_DSN is set (``ops/test`` sets it), PostgreSQL. It is what the store
  promises: appends and their conflicts, concurrency, LISTEN and the follower, group commit, immutability, the
  views' tables and their exactly-once tracking, roles, migrations, backups, a server's processes on a store.
  Each PostgreSQL test gets a schema of its own, dropped afterwards; tests/replica runs on the replica.
- A test that runs a script of ops/ (it calls ``tests.opsrun.run_ops``: a benchmark or a drill in its
  ``--short`` version) is marked ``ops``: ``ops/test`` runs those in a lane of their own (``-m ops``) after
  the rest (``-m "not ops"``); either lane failing fails the run.

So a new test lands in its lane by what it does: nothing to mark, unless it checks the store's contract.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path
import uuid
from collections.abc import Iterator
from typing import Any

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


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The ``store`` a test runs on: every store for a test marked ``store_contract``, SQLite for the rest (the
    module docstring). tests/replica's own ``store`` (the replica, its fixture's params) is left as it is."""
    if "store" not in metafunc.fixturenames:
        return
    defs = metafunc._arg2fixturedefs.get("store")
    if not defs or defs[-1].params is not None:
        return
    contract = metafunc.definition.get_closest_marker("store_contract") is not None
    metafunc.parametrize("store", STORES if contract else STORES[:1], indirect=True)


def _runs_ops(code) -> bool:
    """Whether a test's code (or a function or lambda inside it) names ``run_ops``."""
    return "run_ops" in code.co_names or any(_runs_ops(c) for c in code.co_consts if hasattr(c, "co_names"))


# The order the workers take the groups in (``--no-loadscope-reorder``; each worker takes the next group when
# it is done): the longest first, so that no long group starts last and holds the run while the other worker
# idles. A script of ops/ (a benchmark, a drill: tens of seconds each) first, each test a group of its own;
# then the replica's tests (one group), the browser's, the servers of tests/e2e, tests/integration, and the many
# short modules of tests/unit last, to fill the gaps.
_ORDER = ("ops", "replica", "browser", "e2e", "integration")


def _rank(item: pytest.Item, path: str) -> int:
    if item.get_closest_marker("ops"):
        return 0
    return next((i for i, kind in enumerate(_ORDER) if f"/tests/{kind}/" in path), len(_ORDER))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The ``ops`` marker is set here (the module docstring), and the tests put in the order the workers take
    their groups in (``_ORDER``; the groups are ``_group``'s)."""
    ranks = {}
    for item in items:
        path = str(item.fspath).replace(os.sep, "/")
        code = getattr(getattr(item, "function", None), "__code__", None)
        if code is not None and _runs_ops(code):
            item.add_marker(pytest.mark.ops)
        ranks[item.nodeid] = _rank(item, path)
    items.sort(key=lambda item: ranks[item.nodeid])  # stable: a module's tests keep their order


def _group(nodeid: str, per_test: bool) -> str:
    """A worker runs a group's tests one after another: a module's, so that its module-scoped fixtures (a
    served site, a seeded campaign) are built once; the replica's tests all together, since one of them pauses
    the replica's replay for every reader; a script of ops/ alone (``per_test``: the ops lane), as it builds its
    own campaigns and servers."""
    if per_test:
        return nodeid
    path = nodeid.split("::", 1)[0]
    return "tests/replica" if path.startswith("tests/replica/") else path


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` with the groups of ``_group``, read from the test's id. pytest-xdist's own groups
    (``xdist_group`` marks) never applied under pytest 9: it renames a test by a field pytest no longer reads,
    so every test was sent alone, a module's fixtures built on both workers, the replica's tests split."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    per_test = config.getoption("markexpr") == "ops"

    class Groups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _group(nodeid, per_test)

    return Groups(config, log)


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


@pytest.fixture(scope="module")
def store(request: pytest.FixtureRequest) -> str:
    """"sqlite" or "postgres", parametrised by ``pytest_generate_tests`` (the lanes); module-scoped, so that a
    module's fixture serving a site (tests/browser) may ask for it too."""
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
