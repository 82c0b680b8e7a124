"""A benchmark's or a drill's results in a file a program reads (``--results FILE``): one JSON object a line.

The printed text is for people; tests read this file instead, so that no check depends on how a figure happens
to print (a start-up of 500 ms is not an HTTP 500). Each measured row is written as soon as it is measured (a
run cut short keeps what it had measured), its ``name`` first, as the printed line names it:

    {"name": "first export ERS csv (FRA)", "role": "player", "n": 1, "p50_ms": 41.2, "p95_ms": 41.2,
     "target_ms": 100.0, "verdict": "PASS", "statuses": [200], "startup_p50_ms": 500.0}
    {"name": "server errors", "pass": "mixed", "server_errors": 0}

The fields tests read, where a row has them: ``statuses``, the HTTP statuses answered (a sorted list, or counts
by status with the status as a string key: ``{"200": 57, "409": 2}``); ``errors_by_status``, counts of the
answers counted as errors (ops/load.py: 4xx, 5xx and 304); ``server_errors``, a count of 5xx answers;
``verdict``, a benchmark's ``PASS``/``MISS`` against its target or a drill's ``OK``/``FAILED``. Timings are
milliseconds (``_ms``) or seconds (``_s``); a figure that could not be measured is ``null``.

Every script of ops/ that takes ``--results`` adds it with ``add_option`` and writes through one ``Results``;
without ``--results`` nothing is written.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results", metavar="FILE",
                        help="also write each measured row to FILE as a JSON object, one a line (what tests read; "
                             "the printed text is for people)")


def _plain(value: Any) -> Any:
    """JSON's own values: a float that is not finite as null, a set as a sorted list, anything else as text."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return str(value)


class Results:
    """The rows of one run, kept in ``rows``; ``open(path)`` starts the file (emptied), and each row added after
    is written to it at once. Without a path nothing is written."""

    def __init__(self, path: str | Path | None = None):
        self.path: Path | None = None
        self.rows: list[dict[str, Any]] = []
        self.open(path)

    def open(self, path: str | Path | None) -> Results:
        self.path = Path(path) if path else None
        if self.path is not None:
            self.path.write_text("")
        return self

    def add(self, name: str, **fields: Any) -> dict[str, Any]:
        row = _plain({"name": name, **fields})
        self.rows.append(row)
        if self.path is not None:
            with self.path.open("a") as f:
                f.write(json.dumps(row, allow_nan=False) + "\n")
        return row


def read(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a results file, in the order they were written."""
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
