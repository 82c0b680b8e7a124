"""ops/bench_reads.py in its --short version: one line per page and role, each beside its target. The checks read
its results file (``--results``: a row per line, with its statuses and verdict), never its text's figures: the
machine is shared, and a start-up of 500 ms is not an HTTP 500."""

from __future__ import annotations

import re
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ops import bench_reads
from ops.results import Results
from tests.opsrun import assert_no_server_error, clean_env, row, run_ops

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
def test_the_read_benchmark_measures_every_page_for_a_game_master_and_a_player_with_no_server_error(tmp_path):
    run = run_ops("bench_reads.py", "--short", cwd=tmp_path, timeout=480)  # 22 fresh processes: minutes if loaded
    rows = run.rows
    assert row(rows, "views caught up")["seconds"] >= 0, run
    assert row(rows, "raw baseline")["events"] > 0, run
    lines = KINDS + [f"first {kind}" for kind in FIRSTS] + [f"live {kind}" for kind in LIVE] \
        + [f"built {d} (FRA)" for d in DOWNLOADS] + [f"live download {d} (FRA)" for d in DOWNLOADS]
    for kind in lines:
        for role in ("gm", "player"):
            found = row(rows, kind, role=role)
            assert found["verdict"] in ("PASS", "MISS") and found["target_ms"] > 0 and found["n"] > 0, found
            # ... and printed for people, its figures whatever they are
            assert re.search(rf"^{re.escape(kind)} +{role} +p50 ", run.out, re.M), f"no line for {kind} / {role}"
    first = row(rows, "first export ERS csv (FRA)", role="player")
    assert (first["n"], first["how"], first["statuses"]) == (1, "fresh processes", [200]), first
    assert first["startup_p50_ms"] is not None, first
    for name, role, how in [("live ERS page", "player", "each after an append"),
                            ("built ers.xlsx (FRA)", "player", "each written afresh"),
                            ("live download entries.csv (FRA)", "gm", "each after an append")]:
        found = row(rows, name, role=role)
        assert (found["n"], found["how"], found["statuses"]) == (2, how, [200]), found
    close = row(rows, "close a phase (write)", role="gm")
    assert close["statuses"] == [201] and close["verdict"] in ("PASS", "MISS") and close["appended_events"] > 0, close
    assert_no_server_error(rows)


@pytest.mark.slow
@pytest.mark.e2e
def test_the_read_benchmark_profiles_a_first_read_in_its_fresh_process_worker_threads_included(tmp_path):
    """``--profile "first KIND"``: the cProfile of the fresh process's request, whose work runs in the app's
    worker threads (a profile of the waiting thread alone would show only the wait)."""
    run = run_ops("bench_reads.py", "--short", "--only", "state?at=N", "--profile", "first state?at=N",
                  "--live-rounds", "0", cwd=tmp_path)
    assert re.search(r"^  profile of the first read of /campaigns/[^/]+/state\?at=\d+:", run.out, re.M), run
    assert re.search(r"projections/head\.py:\d+\(state_at\)", run.out), run
    first = row(run.rows, "first state?at=N", role="player")
    assert first["how"] == "fresh processes" and first["statuses"] == [200], first


#: Put first on PYTHONPATH, every Python process of the run imports it at start-up (``site``), the benchmark's
#: fresh processes too: the state route's read as of a position fails as a broken server's would, with a 500.
BROKEN_STATE = '''
from fastapi import HTTPException

from projections.head import Reader


def state_at(self, *args, **kwargs):
    raise HTTPException(status_code=500, detail="broken on purpose (a test's sitecustomize)")


Reader.state_at = state_at
'''


@pytest.mark.slow
@pytest.mark.e2e
def test_a_server_error_in_the_benchmark_fails_the_check_of_its_results_whatever_its_timings(tmp_path):
    """The benchmark run against a server whose state route answers 500: it completes and says so (its statuses
    [500], in its results file), and the check the benchmark tests make on those results fails, naming the row."""
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "sitecustomize.py").write_text(BROKEN_STATE)
    env = clean_env(PYTHONPATH=str(tmp_path / "broken"))
    run = run_ops("bench_reads.py", "--short", "--only", "state?at=N", "--live-rounds", "0", env=env, cwd=tmp_path)
    assert {500} <= set(row(run.rows, "state?at=N", role="gm")["statuses"]), run
    assert row(run.rows, "first state?at=N", role="player")["statuses"] == [500], run
    with pytest.raises(AssertionError, match=r"server errors in the results: 'first state\?at=N' role=gm"):
        assert_no_server_error(run.rows)


MS = st.one_of(st.sampled_from([0.0, 5.0, 50.0, 500.0, 5000.0]), st.floats(0, 1e6, allow_nan=False))


@settings(deadline=None)  # no timing of its own either: the machine is shared
@given(p50=MS, p95=MS, startup=MS, cpu=MS, target=st.sampled_from([50.0, 100.0, 500.0]), appended=st.integers(0, 500))
def test_the_check_of_a_benchmarks_results_passes_on_answers_of_200_whatever_their_timings(
        p50, p95, startup, cpu, target, appended):
    """The other side: the rows the benchmark writes for answers of 200 (and a write's 201) pass the check,
    whatever their figures: a start-up p50 of 500 ms, the issue's, among them."""
    with mock.patch.object(bench_reads, "RESULTS", Results()) as results:
        text = bench_reads.line("first export ERS csv (FRA)", "player", [p50], [cpu], target, {200},
                                "fresh processes", startup)
        bench_reads.line("close a phase (write)", "gm", [p50, p95], [cpu] * 2, target, {201},
                         appended_events=appended)
    assert_no_server_error(results.rows)
    assert results.rows[0]["startup_p50_ms"] == startup and results.rows[0]["statuses"] == [200], results.rows
    assert "statuses [200]" in text  # the printed line says the same, for people
