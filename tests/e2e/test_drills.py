"""The drills of ops/drills/ in their --short version (CI): each starts its own `ledger serve` and must print OK.

On PostgreSQL they reuse the test cluster (LEDGER_DRILL_POSTGRES_DSN: a fresh schema, dropped after) rather
than start a second one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PG_DSN

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("drill", ["writers", "idempotency", "kill9", "backup", "tamper"])
def test_drill_short(drill, store):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    if store == "postgres":
        env["LEDGER_DRILL_POSTGRES_DSN"] = PG_DSN
    done = subprocess.run([sys.executable, str(ROOT / "ops/drills" / f"{drill}.py"), "--short", "--store", store],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0 and done.stdout.rstrip().endswith("OK"), done.stdout + done.stderr[-3000:]
