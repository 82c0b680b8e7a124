"""ops/bench_reads.py in its --short version: one line per page and role, each beside its target (no timings
are asserted: the machine is shared; the figures are the benchmark's to print)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KINDS = ["turn page at a step", "state?at=N", "map.svg?at=N", "ERS sheet (JSON)", "ERS page", "timeline of a turn",
         "export ERS csv (FRA)", "place page", "export ers.xlsx (FRA)", "export ers.json (FRA)",
         "export ers.parquet (FRA)", "export ers-wide.csv (FRA)", "export entries.csv (FRA)",
         "export entries.xlsx (FRA)", "export victory.csv (FRA)"]
#: First reads, each in a new process: the kinds above that are not downloads, and these.
FIRSTS = KINDS[:8] + ["turn page (other's entry)", "export entries.csv (FRA)", "export victory.csv (FRA)"]
#: Reads right after an append both roles may see.
LIVE = ["turn page at the head", "state (head)", "timeline of the turn", "ERS page", "export ERS csv (FRA)",
        "place page"]
#: The charts page's downloads, each written afresh (no kept answer) and each right after an append.
DOWNLOADS = ["ers.csv", "ers.xlsx", "ers.json", "ers.parquet", "ers-wide.csv", "entries.csv", "entries.xlsx",
             "victory.csv"]


@pytest.mark.slow
@pytest.mark.e2e
def test_the_read_benchmark_prints_every_page_for_a_game_master_and_a_player(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    done = subprocess.run([sys.executable, str(ROOT / "ops/bench_reads.py"), "--short"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=480)  # 22 fresh processes: minutes on a loaded machine
    out = done.stdout
    assert done.returncode == 0, out + done.stderr[-3000:]
    assert re.search(r"^views caught up in [\d.]+ s$", out, re.M), out
    assert re.search(r"^raw baseline: read \+ decode all \d+ events", out, re.M), out
    lines = KINDS + [f"first {kind}" for kind in FIRSTS] + [f"live {kind}" for kind in LIVE] \
        + [f"built {d} (FRA)" for d in DOWNLOADS] + [f"live download {d} (FRA)" for d in DOWNLOADS]
    for kind in lines:
        for role in ("gm", "player"):
            pattern = (rf"^{re.escape(kind)} +{role} +p50 +[\d.]+ ms +p95 +[\d.]+ ms "
                       r".*target p95 <= +\d+ ms +(PASS|MISS)")
            [found] = re.findall(pattern, out, re.M) or [None]
            assert found, f"no line for {kind} / {role}:\n{out}"
    assert re.search(r"^first export ERS csv \(FRA\) +player .*\(n=1, fresh processes, start-up p50 \d+ ms, "
                     r"statuses \[200\]\)$", out, re.M), out
    assert re.search(r"^live ERS page +player .*\(n=2, each after an append, statuses \[200\]\)$", out, re.M), out
    assert re.search(r"^built ers.xlsx \(FRA\) +player .*\(n=2, each written afresh, statuses \[200\]\)$",
                     out, re.M), out
    assert re.search(r"^live download entries.csv \(FRA\) +gm .*\(n=2, each after an append, statuses \[200\]\)$",
                     out, re.M), out
    assert re.search(r"^close a phase \(write\) +gm .*(PASS|MISS).*statuses \[201\]", out, re.M), out
    assert " 500" not in out and "[500" not in out, out


@pytest.mark.slow
@pytest.mark.e2e
def test_the_read_benchmark_profiles_a_first_read_in_its_fresh_process_worker_threads_included(tmp_path):
    """``--profile "first KIND"``: the cProfile of the fresh process's request, whose work runs in the app's
    worker threads (a profile of the waiting thread alone would show only the wait)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    done = subprocess.run([sys.executable, str(ROOT / "ops/bench_reads.py"), "--short", "--only", "state?at=N",
                           "--profile", "first state?at=N", "--live-rounds", "0"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=240)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr[-3000:]
    assert re.search(r"^  profile of the first read of /campaigns/[^/]+/state\?at=\d+:", out, re.M), out
    assert re.search(r"projections/head\.py:\d+\(state_at\)", out), out
    assert re.search(r"^first state\?at=N +player .*fresh processes", out, re.M), out
