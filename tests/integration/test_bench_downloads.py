"""ops/bench_downloads.py in its --short version measures the raw baseline and each download's CPU, written as
the first in a process and written again, beside its target: its results file (``--results``) has a row for each,
checked here; no timing is asserted (the machine is shared; the figures are the benchmark's to print)."""

from __future__ import annotations

import re

import pytest

from tests.opsrun import row, run_ops


@pytest.mark.slow
def test_the_downloads_benchmark_measures_the_baseline_and_each_download_beside_its_target(tmp_path):
    run = run_ops("bench_downloads.py", "--short", cwd=tmp_path)
    campaign = row(run.rows, "campaign")
    assert (campaign["slug"], campaign["country"], campaign["rounds"]) == ("bench-downloads", "FRA", 2), campaign
    assert campaign["events"] > 0 and campaign["turns"] > 0, campaign
    assert row(run.rows, "raw baseline")["xml_bytes"] > 0
    assert re.search(r"^raw baseline: deflate the ERS workbook's parts ", run.out, re.M), run
    for what in ("ers.xlsx", "entries.xlsx", "entries.csv", "victory.csv"):
        for role in ("gm", "player"):
            for how in ("cold", "again"):
                found = row(run.rows, f"{what} (FRA) {how}", role=role)
                assert found["n"] == 2 and found["target_ms"] == 100 and found["verdict"] in ("PASS", "MISS"), found
                assert re.search(rf"^{re.escape(what)} \(FRA\) {how} +{role} +cpu p50 ", run.out, re.M), run
    for role in ("gm", "player"):
        found = row(run.rows, "victory.csv (FRA) from a new reader", role=role)
        assert found["n"] == 2 and found["verdict"] in ("PASS", "MISS") and found["awards_hashes"] == "stored", found
        assert re.search(rf"^victory.csv \(FRA\) from a new reader {role} +cpu p50 ", run.out, re.M), run
