#!/usr/bin/env python3
"""Reads from a streaming replica: its lag behind a write, and what read-your-writes costs.

    eval "$(ops/pg.sh start)"; eval "$(ops/pg.sh replica)"
    python ops/bench_replica.py            # 300 writes, each followed by its reads
    python ops/bench_replica.py --short    # 20 (what the test suite runs)

In one process, on a fresh schema of the primary (dropped at the end): a
campaign, then N rounds of a write (a die roll over HTTP, in-process) and at
once, in alternate rounds: (1) a read of the campaign's state naming the write
(``Ledger-Position``), any wait for the replica included: which store served it
and its latency, beside the same read on an app without a replica (the
baseline); (2) a read naming nothing (how many versions behind it was), then the
time until the replica holds the write (polling its head). Every figure is printed beside its target and its baseline.
Connections: --primary / --replica (superuser DSNs), else PG_SUPERUSER_DSN and
PG_REPLICA_SUPERUSER_DSN (what ops/pg.sh prints). ``--results FILE``: each figure also as a JSON row of FILE
(ops/results.py, with the statuses answered), what the tests read.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from api.main import create_app  # noqa: E402
from ledger.config import Settings  # noqa: E402
from ops.results import Results, add_option  # noqa: E402

ADMIN = "bench-replica-admin"


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--short", action="store_true", help="20 writes")
    parser.add_argument("--primary", default=os.environ.get("PG_SUPERUSER_DSN"))
    parser.add_argument("--replica", default=os.environ.get("PG_REPLICA_SUPERUSER_DSN"))
    add_option(parser)
    args = parser.parse_args()
    results = Results(args.results)
    if not args.primary or not args.replica:
        parser.error("no primary or replica DSN: eval \"$(ops/pg.sh start)\"; eval \"$(ops/pg.sh replica)\"")
    writes = 20 if args.short else args.writes
    schema = f"bench_replica_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(args.primary, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    tmp = tempfile.mkdtemp(prefix="bench-replica-")
    base = Settings(env="test", store="postgres", postgres_dsn=args.primary, postgres_schema=schema,
                    admin_token=ADMIN, data_dir=Path(tmp), projection_runner="thread")
    auth = {"Authorization": f"Bearer {ADMIN}"}
    try:
        with TestClient(create_app(base), headers=auth) as alone, \
                TestClient(create_app(base.model_copy(update={"postgres_replica_dsn": args.replica})),
                           headers=auth) as with_replica:
            made = alone.post("/campaigns", json={"slug": "bench", "name": "Bench", "ruleset": "eu",
                                                  "countries": ["ENG", "FRA"]})
            assert made.status_code == 201, made.text
            assert alone.post("/campaigns/bench/turns").status_code == 201
            replica = with_replica.app.state.replica
            cid = uuid.UUID(made.json()["campaign"])
            visible_ms, ryw_ms, base_ms, behind, sources = [], [], [], [], []
            statuses: dict[str, Counter[int]] = {"write": Counter(), "read naming its write": Counter(),
                                                 "read naming nothing": Counter()}
            for n in range(writes):
                rolled = with_replica.post("/campaigns/bench/rolls", json={"purpose": f"r{n}", "sides": 6})
                statuses["write"][rolled.status_code] += 1
                assert rolled.status_code == 201, rolled.text
                position = rolled.headers["Ledger-Position"]
                version = int(position.rsplit(":", 1)[1])
                answered = time.perf_counter()
                if n % 2:  # a read naming nothing at once, then how long until the replica holds the write
                    stale = with_replica.get("/campaigns/bench")
                    statuses["read naming nothing"][stale.status_code] += 1
                    behind.append(version - stale.json()["position"])
                    while replica.recorder.head_version(cid) < version:
                        time.sleep(0.0005)
                    visible_ms.append((time.perf_counter() - answered) * 1000)
                    continue
                # The read naming the write at once (any wait for the replica included), then the same read on
                # the app without a replica (the baseline; its answer for this head is not cached there yet).
                for client, into in ((with_replica, ryw_ms), (alone, base_ms)):
                    t = time.perf_counter()
                    r = client.get(f"/campaigns/bench/state?at={max(1, version - 1)}",
                                   headers={"Ledger-Position": position})
                    into.append((time.perf_counter() - t) * 1000)
                    statuses["read naming its write"][r.status_code] += 1
                    assert r.status_code == 200, r.text
                    if client is with_replica:
                        sources.append(r.headers["Ledger-Read"])
            with psycopg.connect(args.primary, autocommit=True) as conn:
                lag = conn.execute("SELECT write_lag, flush_lag, replay_lag FROM pg_stat_replication").fetchone()
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {writes} writes")
        print(f"replica holds a write (ms after its answer, a read between):  p50 {pct(visible_ms, 50):.1f}  p95 {pct(visible_ms, 95):.1f}  "
              f"max {max(visible_ms):.1f}   (target: within LEDGER_REPLICA_WAIT_MS = {base.replica_wait_ms})")
        print(f"read naming its write, served by the replica: {sources.count('replica')}/{len(sources)}  "
              f"(the rest by the primary after the wait)")
        print(f"read naming its write (ms): p50 {pct(ryw_ms, 50):.1f}  p95 {pct(ryw_ms, 95):.1f}   "
              f"(target: p95 <= 50 ms for a JSON read; baseline without a replica: p50 {pct(base_ms, 50):.1f}  "
              f"p95 {pct(base_ms, 95):.1f})")
        print(f"read naming nothing, right after the write: behind in {sum(1 for b in behind if b)}/{len(behind)}, "
              f"at most {max(behind)} version(s)   (target: whole answers, never an error)")
        print(f"pg_stat_replication at the end: write_lag {lag[0]}  flush_lag {lag[1]}  replay_lag {lag[2]}"
              if lag else "pg_stat_replication: no replica connected")
        print(f"mean wait for the replica (ms): {statistics.fmean(visible_ms):.1f}")
        results.add("writes", count=writes, statuses=statuses["write"])
        results.add("replica holds a write", n=len(visible_ms), p50_ms=pct(visible_ms, 50), p95_ms=pct(visible_ms, 95),
                    max_ms=max(visible_ms), mean_ms=statistics.fmean(visible_ms), target_ms=base.replica_wait_ms)
        results.add("read naming its write", n=len(ryw_ms), served_by_replica=sources.count("replica"),
                    p50_ms=pct(ryw_ms, 50), p95_ms=pct(ryw_ms, 95), target_p95_ms=50.0,
                    baseline_p50_ms=pct(base_ms, 50), baseline_p95_ms=pct(base_ms, 95),
                    statuses=statuses["read naming its write"])
        results.add("read naming nothing", n=len(behind), behind=sum(1 for b in behind if b),
                    most_versions_behind=max(behind), statuses=statuses["read naming nothing"])
        results.add("pg_stat_replication", connected=lag is not None,
                    lags=None if lag is None else {"write": lag[0], "flush": lag[1], "replay": lag[2]})
    finally:
        with psycopg.connect(args.primary, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    return 0


if __name__ == "__main__":
    sys.exit(main())
