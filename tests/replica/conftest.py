"""The replica topology: the same tests, their reads served by a streaming replica of the PostgreSQL store.

``ops/test`` starts the replica (``ops/pg.sh replica``) and sets
LEDGER_TEST_POSTGRES_REPLICA_DSN (its superuser, who may pause replay). Here the
``store`` fixture is ``replica``: a PostgreSQL schema on the primary whose app
reads the replica (tests/conftest.py). Without the variable these tests are
skipped (an error when LEDGER_TEST_REQUIRE_REPLICA=1, as ``ops/test`` sets it).

The e2e modules re-run here (``test_*_on_replica.py``) write through the
``Ledger`` in the test, not over HTTP, so they name no position to read after:
their apps first wait until the replica has replayed everything the primary
has written (``caught_up``), then route each read by the service's own rules.
The read-your-writes tests (test_read_your_writes.py) do not wait: they pause
replay instead.
"""

from __future__ import annotations

import os
import time

import psycopg
import pytest

from tests.conftest import PG_DSN, REPLICA_DSN

REQUIRE = os.environ.get("LEDGER_TEST_REQUIRE_REPLICA") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if REPLICA_DSN and PG_DSN:
        return
    if REQUIRE:
        raise pytest.UsageError("LEDGER_TEST_REQUIRE_REPLICA=1 but LEDGER_TEST_POSTGRES_REPLICA_DSN (and "
                                "LEDGER_TEST_POSTGRES_DSN) are not both set")
    skip = pytest.mark.skip(reason="no LEDGER_TEST_POSTGRES_REPLICA_DSN (ops/pg.sh replica)")
    for item in items:
        if "tests/replica/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(skip)


@pytest.fixture(params=["replica"])
def store(request: pytest.FixtureRequest) -> str:
    return request.param


def caught_up(timeout: float = 10.0) -> None:
    """Wait until the replica has replayed the primary's WAL as flushed now (every committed write: the
    insert position may lie past it in a page no commit has flushed, which the replica cannot receive yet).
    A durable commit first: the projection runner commits with ``synchronous_commit = off``, so its last
    batches may not be flushed yet; a commit that waits for its flush flushes everything before it."""
    with psycopg.connect(PG_DSN, autocommit=True) as primary:
        with primary.transaction():
            primary.execute("SET LOCAL synchronous_commit = on")
            # A commit waits for its flush only if the transaction wrote WAL before its commit record
            # (RecordTransactionCommit: an xid alone, as txid_current() takes, commits like an asynchronous
            # commit and flushes nothing). A temporary table's catalog rows are WAL-logged.
            primary.execute("CREATE TEMP TABLE caught_up_flush (x int) ON COMMIT DROP")
        lsn = primary.execute("SELECT pg_current_wal_flush_lsn()").fetchone()[0]
    deadline = time.monotonic() + timeout
    with psycopg.connect(REPLICA_DSN, autocommit=True) as replica:
        while not replica.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (lsn,)).fetchone()[0]:
            if time.monotonic() > deadline:
                raise AssertionError(f"the replica did not replay up to {lsn} in {timeout} s")
            time.sleep(0.005)


def paused(replica: psycopg.Connection, timeout: float = 10.0) -> None:
    """Wait until replay has stopped: ``pg_wal_replay_pause()`` only asks for it, and the startup process stops
    before the next record it replays ("pause requested" until then). A record written on the primary gives an
    idle replica one to stop before, so no write of the test can slip past the request."""
    deadline = time.monotonic() + timeout
    while replica.execute("SELECT pg_get_wal_replay_pause_state()").fetchone()[0] != "paused":
        if time.monotonic() > deadline:
            raise AssertionError(f"the replica's replay did not pause in {timeout} s")
        with psycopg.connect(PG_DSN, autocommit=True) as primary, primary.transaction():
            primary.execute("CREATE TEMP TABLE pause_nudge (x int) ON COMMIT DROP")
        time.sleep(0.01)


@pytest.fixture
def pause_replay():
    """A callable pausing the replica's replay when the test is ready (after its own set-up writes: a login is
    one, ``SessionOpened``), resumed afterwards whatever happens."""
    with psycopg.connect(REPLICA_DSN, autocommit=True) as conn:
        def pause() -> None:
            caught_up()
            conn.execute("SELECT pg_wal_replay_pause()")
            paused(conn)

        try:
            yield pause
        finally:
            conn.execute("SELECT pg_wal_replay_resume()")


@pytest.fixture
def replay_paused():
    """Replay paused on the replica (WAL still streams in), resumed afterwards whatever happens."""
    with psycopg.connect(REPLICA_DSN, autocommit=True) as conn:
        caught_up()
        conn.execute("SELECT pg_wal_replay_pause()")
        paused(conn)
        try:
            yield conn
        finally:
            conn.execute("SELECT pg_wal_replay_resume()")


@pytest.fixture
def replica_after_writes(monkeypatch):
    """For the e2e modules re-run here: each read waits until the replica has every write made so far."""
    from api import replica

    choose = replica._choose
    served: list[str] = []

    async def after_the_writes(request):
        if request.method in replica.READS:
            caught_up()
        chosen = await choose(request)
        if request.method in replica.READS and getattr(request.app.state, "replica", None) is not None:
            served.append("replica" if chosen is request.app.state.replica else "primary")
        return chosen

    monkeypatch.setattr(replica, "_choose", after_the_writes)
    yield
    # The topology under test: every store-routed read, caught up, went to the replica.
    assert set(served) <= {"replica"}, served
