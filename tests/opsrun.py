"""Running a script of ops/ from a test, and reading what it measured from its results file, never its text.

A benchmark prints figures for people; a test that searched that text for a status (``" 500" not in out``) failed
the day a start-up took 500 ms. So a test runs the script with ``--results FILE`` (ops/results.py: one JSON row
per measured line) and checks the rows: their statuses, counts and verdicts, never a timing's digits.

    run = run_ops("bench_reads.py", "--short", cwd=tmp_path)
    assert_no_server_error(run.rows)
    assert row(run.rows, "first state?at=N", role="player")["statuses"] == [200]
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ops.results import read

ROOT = Path(__file__).resolve().parents[1]


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without the service's settings (LEDGER_*, POSTGRES_*): the script chooses its
    own store; ``extra`` added after."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    env.update(extra)
    return env


@dataclass
class OpsRun:
    out: str  # what it printed, for people (and for an assertion's message)
    err: str
    returncode: int
    rows: list[dict[str, Any]]  # its results file's rows, in order

    def __str__(self) -> str:
        return f"{self.out}\n--- stderr (end) ---\n{self.err[-3000:]}"


def run_ops(script: str, *args: str, env: dict[str, str] | None = None, cwd: Path | str = ROOT,
            timeout: float = 240, check: bool = True) -> OpsRun:
    """``python ops/<script> *args --results FILE``, FILE in a fresh temporary directory; ``check``: assert it
    exited 0 (its output in the message). ``env``: ``clean_env()`` unless given."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="opsrun-") as tmp:
        results = Path(tmp) / "results.jsonl"
        done = subprocess.run([sys.executable, str(ROOT / "ops" / script), *args, "--results", str(results)],
                              env=clean_env() if env is None else env, cwd=cwd, capture_output=True, text=True,
                              timeout=timeout)
        run = OpsRun(done.stdout, done.stderr, done.returncode, read(results) if results.exists() else [])
    if check:
        assert run.returncode == 0, f"ops/{script} exited {run.returncode}:\n{run}"
    return run


def _statuses(value: Any) -> list[int]:
    """A row's statuses, a list or counts by status (``{"200": 5}``), as the statuses' numbers."""
    return [int(s) for s in (value or [])]


def server_errors(row: dict[str, Any]) -> str | None:
    """What in this row says a server error (a 5xx answered, or counted), or None."""
    found = [s for field in ("statuses", "errors_by_status") for s in _statuses(row.get(field)) if s >= 500]
    if found:
        return f"statuses {sorted(set(found))}"
    if row.get("server_errors"):
        return f"{row['server_errors']} server errors"
    return None


def _label(row: dict[str, Any]) -> str:
    return repr(row["name"]) + "".join(f" {k}={row[k]}" for k in ("role", "run") if row.get(k) is not None)


def assert_no_server_error(rows: list[dict[str, Any]]) -> None:
    """No row answered or counted a 5xx; each row that did is named. The rows must say something of statuses
    (an empty file, or one without a status, would pass whatever the server did)."""
    assert rows, "no results rows: the script wrote nothing (was --results passed?)"
    assert any(f in r for r in rows for f in ("statuses", "errors_by_status", "server_errors")), \
        f"no row says anything of statuses: {[r['name'] for r in rows]}"
    failed = [f"{_label(r)}: {why}" for r in rows if (why := server_errors(r))]
    assert not failed, "server errors in the results: " + "; ".join(failed)


def rows_named(rows: list[dict[str, Any]], name: str, **fields: Any) -> list[dict[str, Any]]:
    return [r for r in rows if r["name"] == name and all(r.get(k) == v for k, v in fields.items())]


def row(rows: list[dict[str, Any]], name: str, **fields: Any) -> dict[str, Any]:
    """The one row of that name (and those fields' values, e.g. ``role="gm"``); the names there are when not."""
    found = rows_named(rows, name, **fields)
    assert len(found) == 1, (f"{len(found)} rows named {name!r} with {fields}; the rows: "
                             f"{sorted({_label(r) for r in rows})}")
    return found[0]
