"""Concurrent start-ups on a fresh store: the migrations are serialised, none deadlocks or fails.

``ledger serve --workers 4`` starts four workers, the follower and (with ``--sample``) the CLI at once; each
builds a Ledger, which creates the store's tables. Threads with a Ledger each (their own connections) race
on a fresh schema or file many times.
"""

from __future__ import annotations

import threading
import uuid

import psycopg
import pytest

from ledger.application import Ledger
from tests.conftest import PG_DSN

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

STARTS, ROUNDS = 4, 12


def race(make_settings) -> list[BaseException]:
    barrier = threading.Barrier(STARTS)
    errors: list[BaseException] = []

    def start() -> None:
        try:
            barrier.wait(timeout=30)
            Ledger(make_settings()).close()
        except BaseException as exc:  # collected: the assertion names them
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(STARTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a start-up hung (deadlock)"
    return errors


def test_concurrent_start_ups_on_a_fresh_store_all_succeed(settings, tmp_path):
    for n in range(ROUNDS):
        if settings.backend == "sqlite":
            fresh = settings.model_copy(update={"data_dir": tmp_path / f"round{n}"})
            errors = race(lambda: fresh)
        else:
            schema = f"m_{uuid.uuid4().hex[:12]}"
            with psycopg.connect(PG_DSN, autocommit=True) as conn:
                conn.execute(f'CREATE SCHEMA "{schema}"')
            try:
                errors = race(lambda: settings.model_copy(update={"postgres_schema": schema, "pool_size": 2}))
            finally:
                with psycopg.connect(PG_DSN, autocommit=True) as conn:
                    conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
        assert not errors, f"round {n}: {errors!r}"
