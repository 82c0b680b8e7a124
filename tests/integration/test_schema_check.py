"""ops/schema_check.py in its --short version: schemathesis, every phase (examples, coverage, fuzzing, stateful),
against a real service with the sample campaign, finds no disagreement between the published schema and the
server (every check but the one the script's docstring explains). The figure is the run's, not a timing."""

from __future__ import annotations

from tests.opsrun import row, run_ops


def test_the_api_and_its_published_schema_agree_under_every_schemathesis_phase(tmp_path):
    run = run_ops("schema_check.py", "--short", cwd=tmp_path, timeout=900)
    found = row(run.rows, "schemathesis, every phase")
    assert found["verdict"] == "OK" and found["failures"] == 0, run
    assert found["generated"] and found["generated"] > 100, found  # it did exercise the operations
