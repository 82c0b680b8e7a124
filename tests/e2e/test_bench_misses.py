"""ops/bench_misses.py in its --short version: it sets up two campaigns, drives the app in-process with the
load's reads (the response cache off) and prints each kind's CPU beside the target and the baseline, and the
answers' digests. Timings are never asserted: each kind's row is in its results file (``--results``), and no
answer a 5xx (the script stops on one; the rows say each kind's statuses)."""

from __future__ import annotations

import re

import pytest

from tests.opsrun import assert_no_server_error, row, run_ops

KINDS = ["json:ers", "json:events", "json:state", "json:timeline", "page:ers", "page:map.svg", "page:place",
         "page:turn"]


@pytest.mark.slow
@pytest.mark.e2e
def test_the_short_miss_benchmark_measures_each_kinds_cpu_beside_its_target_with_no_server_error(tmp_path):
    digests = tmp_path / "digests.txt"
    run = run_ops("bench_misses.py", "--short", "--digests", str(digests))
    assert re.search(r"^30 reads after 30 to warm up, response cache off", run.out, re.M), run
    for kind in KINDS:  # each kind of the load's mix, its CPU (None when the draw missed it), target 0.9
        found = row(run.rows, kind)
        assert found["target_ms"] == 0.9 and (found["cpu_ms"] is None) == (found["requests"] == 0), found
        assert re.search(rf"^{re.escape(kind)}\s+\d+\s", run.out, re.M), run  # printed for people
    assert row(run.rows, "page:turn")["baseline_ms"] == 4.7  # beside stop 25's figure
    everything = row(run.rows, "ALL READS")
    assert everything["requests"] == 30 and everything["warm_up"] == 30 and everything["target_ms"] == 0.9, everything
    assert_no_server_error(run.rows)
    lines = digests.read_text().splitlines()  # a file of its own: "token path status sha256" per answer
    assert lines and all(re.fullmatch(r"\S+ /\S+ 200 [0-9a-f]{64}", x) for x in lines), lines[:5]
