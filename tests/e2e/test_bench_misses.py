"""ops/bench_misses.py in its --short version: it sets up two campaigns, drives the app in-process with the
load's reads (the response cache off) and prints each kind's CPU beside the target and the baseline, and the
answers' digests. Timings are never asserted: each line printed, and no answer a 5xx (the script stops on one)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KINDS = ["json:ers", "json:events", "json:state", "json:timeline", "page:ers", "page:map.svg", "page:place",
         "page:turn"]


@pytest.mark.slow
@pytest.mark.e2e
def test_the_short_miss_benchmark_prints_each_kinds_cpu_beside_its_target(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    digests = tmp_path / "digests.txt"
    done = subprocess.run([sys.executable, str(ROOT / "ops/bench_misses.py"), "--short", "--digests", str(digests)],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=240)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr[-3000:]
    assert re.search(r"^30 reads after 30 to warm up, response cache off", out, re.M), out
    for kind in KINDS:  # each kind of the load's mix, its CPU (or "-" when the draw missed it), target 0.9
        assert re.search(rf"^{re.escape(kind)}\s+\d+\s+(-|[\d.]+)\s+0\.9\s", out, re.M), out
    assert re.search(r"^page:turn\s+\d+\s+(-|[\d.]+)\s+0\.9\s+4\.7$", out, re.M), out  # beside stop 25's figure
    assert re.search(r"^ALL READS\s+30\s+[\d.]+\s+0\.9", out, re.M), out
    lines = digests.read_text().splitlines()
    assert lines and all(re.fullmatch(r"\S+ /\S+ 200 [0-9a-f]{64}", x) for x in lines), lines[:5]
