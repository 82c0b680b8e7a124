"""ops/bench_pages.py in its --short version measures the raw baseline and each page's CPU beside its target: its
results file (``--results``) has a row for each, checked here; no timing is asserted (the machine is shared; the
figures are the benchmark's to print)."""

from __future__ import annotations

import re

import pytest

from tests.opsrun import row, run_ops


@pytest.mark.slow
def test_the_pages_benchmark_measures_the_baseline_and_each_page_beside_its_target(tmp_path):
    run = run_ops("bench_pages.py", "--short", cwd=tmp_path)
    set_up = row(run.rows, "set-up")
    assert (set_up["campaigns"], set_up["people"], set_up["pages"]) == (3, 27, 60), set_up
    baseline = row(run.rows, "raw baseline: one indexed statement")
    assert baseline["cpu_ms_per_page"] >= 0 and baseline["target_ms"] is None, baseline
    for page in ("turn page data (turn_view)", "place page data at the head (place_view)"):
        found = row(run.rows, page)
        assert found["target_ms"] == pytest.approx(2000 / 1500) and found["share_of_target"] is not None, found
        assert re.search(rf"^{re.escape(page)}: [\d.]+ ms CPU per page  \(target: a whole request <= 1.33 ms CPU",
                         run.out, re.M), run  # printed for people beside its target (a constant)
