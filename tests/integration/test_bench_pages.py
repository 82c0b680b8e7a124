"""ops/bench_pages.py in its --short version prints the raw baseline and each page's CPU beside its target (no
timing is asserted: the machine is shared; the figures are the benchmark's to print)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_pages_benchmark_prints_the_baseline_and_each_page_beside_its_target(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    done = subprocess.run([sys.executable, str(ROOT / "ops/bench_pages.py"), "--short"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=240)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr[-3000:]
    assert re.search(r"^3 campaigns, 27 people; 60 pages of each kind", out, re.M), out
    assert re.search(r"^raw baseline: one indexed statement: [\d.]+ ms CPU per page$", out, re.M), out
    for page in ("turn page data \\(turn_view\\)", "place page data at the head \\(place_view\\)"):
        assert re.search(rf"^{page}: [\d.]+ ms CPU per page  \(target: a whole request <= 1.33 ms CPU; this part "
                         r"takes \d+% of it\)$", out, re.M), out
