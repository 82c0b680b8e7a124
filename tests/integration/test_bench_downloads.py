"""ops/bench_downloads.py in its --short version prints the raw baseline and each download's CPU, written as the
first in a process and written again, beside its target (no timing is asserted: the machine is shared; the figures
are the benchmark's to print)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_downloads_benchmark_prints_the_baseline_and_each_download_beside_its_target(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    done = subprocess.run([sys.executable, str(ROOT / "ops/bench_downloads.py"), "--short"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=240)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr[-3000:]
    assert re.search(r"^campaign bench-downloads: \d+ events, \d+ turns; FRA's downloads; 2 rounds$", out, re.M), out
    assert re.search(r"^raw baseline: deflate the ERS workbook's parts \([\d.]+ MB of XML, zlib-ng level 2\): "
                     r"[\d.]+ ms CPU$", out, re.M), out
    figure = r"cpu p50 +[\d.]+ ms  max +[\d.]+ ms  target <= 100 ms  (PASS|MISS)  \(n=2"
    for what in ("ers.xlsx", "entries.xlsx", "entries.csv", "victory.csv"):
        for role in ("gm", "player"):
            for how in ("cold", "again"):
                assert re.search(rf"^{re.escape(what)} \(FRA\) {how} +{role} +{figure}", out, re.M), (what, out)
    for role in ("gm", "player"):
        assert re.search(rf"^victory.csv \(FRA\) from a new reader {role} +{figure}, wall p50 [\d.]+ ms max [\d.]+ "
                         r"ms; its awards' hashes: stored\)$", out, re.M), out
