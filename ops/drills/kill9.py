"""Drill: kill -9 of an API worker and of the projection follower, K times, under write load.

    python ops/drills/kill9.py            # K = 10, throwaway PostgreSQL, `ledger serve --workers 2`, 4 writers
    python ops/drills/kill9.py --short    # K = 2

Each round kills one uvicorn worker (uvicorn's master starts another) and then the follower (`ledger serve`
restarts it; /ready shows the new pid alive). Writers retry a lost request with the same Idempotency-Key.
Afterwards: every acknowledged write is in the history exactly once, the chain verifies, the follower
catches up (lag 0), and every view table equals a fresh rebuild (`ledger rebuild`, service stopped).
"""

from __future__ import annotations

import os
import random
import signal
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import (VIEW_TABLES, Service, Store, conclude, create_campaign, figure, history, ledger_cli,  # noqa: E402
                      parser, verify)
from _load import Load  # noqa: E402


def main() -> int:
    args = parser(__doc__).parse_args()
    rounds = 2 if args.short else 10  # the size: kill -9 x 10
    rng = random.Random(16)
    follower_restarts, worker_kills = [], 0
    with Store(args.store) as store:
        env = store.env()
        service = Service(env, workers=args.workers).start()
        try:
            create_campaign(service.base, "k9")
            service.wait_follower()
            with Load(service.base, "k9") as load:
                for _ in range(rounds):
                    time.sleep(1.5)
                    workers = service.workers_pids()
                    if workers:
                        os.kill(rng.choice(workers), signal.SIGKILL)
                        worker_kills += 1
                    time.sleep(1.5)
                    follower = service.ready()["follower"]["pid"]
                    os.kill(follower, signal.SIGKILL)
                    killed_at = time.monotonic()
                    service.wait_follower(timeout=60, not_pid=follower)
                    follower_restarts.append(time.monotonic() - killed_at)
                time.sleep(1.0)
            deadline = time.monotonic() + 120
            while (lag := service.ready()["projections_lag"]) and time.monotonic() < deadline:
                time.sleep(0.5)
            events = history(service.base, "k9")
            chain = verify(service.base, "k9")
        finally:
            service.stop()
        views = {t: store.rows(env, t, order) for t, order in VIEW_TABLES.items()}
        rebuilt = ledger_cli(env, "rebuild")
        fresh = {t: store.rows(env, t, order) for t, order in VIEW_TABLES.items()}
    recorded = Counter(e["payload"]["purpose"] for e in events if e["type"] == "DiceRolled")
    acked = set(load.acked)
    missing = acked - set(recorded)
    duplicated = sum(c - 1 for c in recorded.values() if c > 1)
    unacked_present = len(set(recorded) - acked)  # committed, then the answer was lost with the worker: fine
    differing = [t for t in VIEW_TABLES if views[t] != fresh[t]]
    figure("store / workers", f"{args.store} / {args.workers}")
    figure("rounds (worker + follower kill -9)", f"{rounds} ({worker_kills} workers, {rounds} followers)")
    figure("follower back after (s)", " ".join(f"{s:.1f}" for s in follower_restarts))
    figure("acknowledged writes", len(acked))
    figure("failed writes (non-201 at the end)", len(load.failed))
    figure("client retries", load.retries)
    figure("acknowledged but missing", len(missing))
    figure("recorded twice", duplicated)
    figure("recorded, answer lost (not acked)", unacked_present)
    figure("history length / chain intact", f"{len(events)} / {chain['intact']}")
    figure("projection lag at the end", lag)
    figure("ledger rebuild exit code", rebuilt.returncode)
    figure("view rows (stored = rebuilt)", {t: f"{len(views[t])}={len(fresh[t])}" for t in VIEW_TABLES})
    figure("view tables differing", differing or "none")
    for f in load.failed[:5]:
        print("  failure:", f)
    ok = (not missing and not duplicated and chain["intact"] and lag == 0 and rebuilt.returncode == 0
          and not differing and not load.failed)
    return conclude(args, ok)


if __name__ == "__main__":
    sys.exit(main())
