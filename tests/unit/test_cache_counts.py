"""ops/cachecount (``ops/load.py --cache-stats``) counts the reads of the server's caches, and only the reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import json, os, time
from api.readpath import ResponseCache
cache = ResponseCache()
assert cache.get("/state", "gm", 1) is None      # a read that misses
cache.put("/state", "gm", 1, b"{}")               # the answer kept: put looks at what it would replace
assert cache.get("/state", "gm", 1) == b"{}"      # a read that hits
cache.put("/state", "gm", 2, b"{ }")              # a newer answer replaces it
time.sleep(1.5)                                   # the counts are written every second
print(open(os.path.join(os.environ["LOAD_CACHE_COUNTS"], f"{os.getpid()}.json")).read())
"""


def test_a_response_caches_reads_are_counted_once_and_its_writers_lookups_not_at_all(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "ops/cachecount"), str(ROOT)]),
           "LOAD_CACHE_COUNTS": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    sites = json.loads(done.stdout)
    [(site, counts)] = [(s, c) for s, c in sites.items() if s.startswith("readpath.py:")]
    hits, misses, entries = counts[:3]
    assert (hits, misses, entries) == (1, 1, 1), (site, counts)
