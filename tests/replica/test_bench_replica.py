"""ops/bench_replica.py --short runs against the replica and prints each figure beside its target (no timing is
asserted: the figures are the lead's, on an idle machine)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import PG_DSN, REPLICA_DSN

ROOT = Path(__file__).resolve().parents[2]


def test_the_replica_benchmark_prints_its_figures_beside_their_targets():
    env = {**os.environ, "PG_SUPERUSER_DSN": PG_DSN or "", "PG_REPLICA_SUPERUSER_DSN": REPLICA_DSN or ""}
    run = subprocess.run([sys.executable, str(ROOT / "ops" / "bench_replica.py"), "--short"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    for start in ("load average:", "replica holds a write", "read naming its write, served by the replica: ",
                  "read naming its write (ms):", "read naming nothing", "pg_stat_replication at the end:"):
        assert any(line.startswith(start) for line in lines), (start, run.stdout)
    assert "20 writes" in lines[0]
    [served] = [line for line in lines if line.startswith("read naming its write, served by the replica: ")]
    assert served.split(": ")[1].split()[0].endswith("/10")  # every other round reads naming its write
