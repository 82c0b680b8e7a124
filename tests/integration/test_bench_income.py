"""ops/bench_income.py in its --short version measures the raw read of the state and work_out_all for the eight
majors at the head, on a generated campaign and on the 1492 board: its results file has a row for each, with the
history rows the proposals read (none: they read the state only). No timing is asserted (the machine is shared)."""

from __future__ import annotations

import pytest

from tests.opsrun import row, run_ops


@pytest.mark.slow
def test_the_income_benchmark_works_out_the_majors_from_the_state_alone(tmp_path):
    run = run_ops("bench_income.py", "--short", cwd=tmp_path)
    for where in ("generated campaign, 2000 events", "the 1492 board"):
        assert row(run.rows, f"read the state ({where})")["n"] == 50
        found = row(run.rows, f"work_out_all 8 majors ({where})")
        assert found["history_rows"] == 0 and found["target_ms"] == 50 and found["verdict"] in ("PASS", "MISS"), found
