"""ops/bench_replica.py --short runs against the replica and prints each figure beside its target (no timing is
asserted: the figures are the lead's, on an idle machine); the counts and statuses are read from its results
file (``--results``), never from the text."""

from __future__ import annotations

import os

from tests.conftest import PG_DSN, REPLICA_DSN
from tests.opsrun import assert_no_server_error, row, run_ops


def test_the_replica_benchmark_prints_its_figures_beside_their_targets():
    env = {**os.environ, "PG_SUPERUSER_DSN": PG_DSN or "", "PG_REPLICA_SUPERUSER_DSN": REPLICA_DSN or ""}
    run = run_ops("bench_replica.py", "--short", env=env, timeout=300)
    lines = run.out.splitlines()
    for start in ("load average:", "replica holds a write", "read naming its write, served by the replica: ",
                  "read naming its write (ms):", "read naming nothing", "pg_stat_replication at the end:"):
        assert any(line.startswith(start) for line in lines), (start, run.out)
    writes = row(run.rows, "writes")
    assert writes["count"] == 20 and writes["statuses"] == {"201": 20}, writes
    served = row(run.rows, "read naming its write")
    assert served["n"] == 10, served  # every other round reads naming its write
    assert 0 <= served["served_by_replica"] <= 10 and served["statuses"] == {"200": 20}, served  # and its baseline's
    assert row(run.rows, "read naming nothing")["n"] == 10
    assert row(run.rows, "pg_stat_replication")["connected"] is True
    assert_no_server_error(run.rows)
