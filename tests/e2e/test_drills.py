"""The drills of ops/drills/ in their --short version (CI): each starts its own `ledger serve` and must conclude
OK, read from its results file (``--results``: each figure and the verdict as a row), not from its text.

On PostgreSQL they reuse the test cluster (LEDGER_DRILL_POSTGRES_DSN: a fresh schema, dropped after) rather
than start a second one.
"""

from __future__ import annotations

import pytest

from tests.conftest import PG_DSN
from tests.opsrun import clean_env, row, run_ops

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("drill", ["writers", "idempotency", "kill9", "backup", "tamper"])
def test_drill_short(drill, store):
    env = clean_env(**({"LEDGER_DRILL_POSTGRES_DSN": PG_DSN} if store == "postgres" else {}))
    run = run_ops(f"drills/{drill}.py", "--short", "--store", store, env=env, timeout=280, check=False)
    verdict = row(run.rows, "verdict") if run.rows else {}
    assert (run.returncode, verdict.get("verdict"), verdict.get("drill")) == (0, "OK", drill), str(run)
