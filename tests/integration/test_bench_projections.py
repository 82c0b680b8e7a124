"""ops/bench_projections.py --short runs and prints every figure beside its target (PostgreSQL; timings unchecked):
each figure's line printed for people, and its row in the results file (``--results``), where the counts are read."""

from __future__ import annotations

import os
import re

import pytest

from tests.conftest import PG_DSN
from tests.opsrun import ROOT, row, run_ops


@pytest.mark.skipif(not PG_DSN, reason="the benchmark measures PostgreSQL")
def test_the_rebuild_benchmark_prints_each_figure_beside_its_target_and_baseline(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEDGER_")}
    env.update(LEDGER_POSTGRES_DSN=PG_DSN, PYTHONPATH=str(ROOT))
    run = run_ops("bench_projections.py", "--short", "--shares", "--stages", "--ab", "turn_groups,budget_public",
                  "--split", "budget,budget_public,outbox/map,timeline,victory,turn_groups",
                  "--profile", str(tmp_path / "rebuild.prof"), env=env)
    out = run.out
    for pattern in (r"\(a\) raw psycopg read \+ orjson decode: \d+ rows: [\d,]+ events/s .*\(baseline ",
                    r"\(a'\) the same read with binary results .*: [\d,]+ events/s .*\(b\)/\(a'\) = [\d.]+",
                    r"\(b\) full rebuild .*: [\d,]+ events/s .*\(baseline ",
                    r"\(b\)/\(a\) = [\d.]+  \(target >= 0\.50; baseline ",
                    r"\(b'\) full rebuild, views over 2 processes: [\d,]+ events/s .*\(b'\)/\(b\) = [\d.]+  "
                    r"\(target >= 1\.0; baseline .*\); CPU this process [\d.]+ s \+ the other [\d.]+ s, the server's "
                    r"([\d.]+ s|not measured \(remote server\))",
                    r"\(b\) full rebuild .*; CPU [\d.]+ s, the server's ([\d.]+ s|not measured \(remote server\))",
                    r"peak RSS: \d+ MB  \(target <= 500 MB; baseline ",
                    r"state at N over 20 random N: p50 [\d.]+ ms, p95 [\d.]+ ms  \(target p95 <= 50 ms; baseline ",
                    r"CPU of this process per read p50 [\d.]+ ms, p95 [\d.]+ ms",
                    r"each view rebuilt alone .*: map [\d.]+ s CPU / [\d.]+ s wall; victory .*; timeline .*; "
                    r"budget [\d.]+ s CPU / [\d.]+ s wall; budget_public .*; "
                    r"turn_groups [\d.]+ s CPU / [\d.]+ s wall; outbox [\d.]+ s CPU / [\d.]+ s wall  \(baseline ",
                    r"A/B, \(b\) against a rebuild without turn_groups, budget_public in the same rounds: "
                    r"wall [\d.]+ s against [\d.]+ s \([+-][\d.]+ s\), "
                    r"CPU [\d.]+ s against [\d.]+ s \([+-][\d.]+ s, [-\d.]+ us an event\)",
                    r"\(b'\) with the groups budget,budget_public,outbox/map,timeline,victory,turn_groups: [\d,]+ events/s .*"
                    r"against \(b\): [\d.]+  \(per round: .*\); CPU this process [\d.]+ s \+ the other [\d.]+ s",
                    r"CPU by stage in memory .*: map [\d.]+ s applied \+ [\d.]+ s formatted; victory .*; timeline .*; "
                    r"budget .*; budget_public .*; turn_groups .*; all views [\d.]+ s applied \+ [\d.]+ s formatted; "
                    r"orjson decoding every event [\d.]+ s",
                    r"profile of one rebuild \(CPU time\) in .*rebuild.prof; its top 25 by own time",
                    r"load average [\d.]+"):
        assert re.search(pattern, out), (pattern, out)
    assert (tmp_path / "rebuild.prof").stat().st_size > 0
    assert row(run.rows, "events")["count"] >= 300, run.rows
    assert row(run.rows, "(b) full rebuild")["events"] >= 300, run.rows
    assert (row(run.rows, "(b)/(a)")["target"], row(run.rows, "(b') full rebuild over processes")["target"]) == (0.5, 1)
    assert row(run.rows, "A/B")["left_out"] == ["turn_groups", "budget_public"], run.rows
    assert row(run.rows, "(b') with groups")["groups"] == "budget,budget_public,outbox/map,timeline,victory,turn_groups"
    assert row(run.rows, "state at N")["n"] == 20 and row(run.rows, "peak RSS")["target_mb"] == 500, run.rows
