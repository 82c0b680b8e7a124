"""Drill: 16 concurrent writers x N server rolls on ONE campaign, through `ledger serve --workers 2`.

    python ops/drills/writers.py            # N = 1,000 (16,000 events), throwaway PostgreSQL
    python ops/drills/writers.py --short    # N = 8
    python ops/drills/writers.py --store sqlite

Each roll has its own purpose and Idempotency-Key and is retried with the same key on contention (409
ConcurrencyExhausted), 503 or a lost connection. Then the history is read back: every purpose exactly once
(0 lost, 0 duplicated), positions 1..H without a gap, the server's roll indexes gapless, and the chain
verifies. Nothing is taken from the service's word alone: every acknowledged answer's position and hash is
compared with the row stored at that position, read from the store itself, and `ledger verify` walks the
stored rows with the service stopped. Exit 1 when any of these fails.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import (AUTH, Service, Store, conclude, create_campaign, figure, history, ledger_cli,  # noqa: E402
                      parser, post, verify)

WRITERS = 16


def main() -> int:
    args = parser(__doc__).parse_args()
    n = 8 if args.short else 1000  # the size: 16 x 1,000 events
    with Store(args.store) as store:
        service = Service(store.env(), workers=args.workers).start()
        try:
            create_campaign(service.base, "writers")
            retries, failures, lock = [0], [], threading.Lock()
            acked: dict[str, tuple[int, str]] = {}  # purpose -> (position, hash) the service answered
            barrier = threading.Barrier(WRITERS)

            def writer(w: int) -> None:
                with httpx.Client(base_url=service.base, headers=AUTH, timeout=30) as http:
                    barrier.wait()
                    for i in range(n):
                        r, tries = post(http, "/campaigns/writers/rolls", {"purpose": f"w{w}-{i}"}, f"w{w}-{i}")
                        with lock:
                            retries[0] += tries
                            if r.status_code != 201:
                                failures.append((w, i, r.status_code, r.text[:200]))
                            else:
                                [ref] = r.json()["events"]
                                acked[f"w{w}-{i}"] = (ref["position"], ref["hash"])

            started = time.perf_counter()
            threads = [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.perf_counter() - started
            events = history(service.base, "writers")
            rolls = [e for e in events if e["type"] == "DiceRolled"]
            seen = Counter(e["payload"]["purpose"] for e in rolls)
            expected = {f"w{w}-{i}" for w in range(WRITERS) for i in range(n)}
            lost = len(expected - set(seen))
            duplicated = sum(c - 1 for c in seen.values() if c > 1)
            gapless = [e["position"] for e in events] == list(range(1, len(events) + 1))
            indexes = sorted(e["payload"]["index"] for e in rolls)
            dice_gapless = indexes == list(range(indexes[0], indexes[0] + len(indexes))) if indexes else False
            chain = verify(service.base, "writers")
        finally:
            service.stop()
        env = store.env()
        stored = {}  # position -> (purpose, hash), from the store's own rows
        for _, version, topic, state in store.events(env):
            row = json.loads(state)
            if topic.endswith("DiceRolled"):
                stored[version] = (row.get("purpose"), row.get("hash"))
        walked = ledger_cli(env, "verify", "writers")
    unlike = [p for p, (position, digest) in acked.items() if stored.get(position) != (p, digest)]
    figure("store / workers", f"{args.store} / {args.workers}")
    figure("writers x events", f"{WRITERS} x {n} = {WRITERS * n}")
    figure("acknowledged (201)", WRITERS * n - len(failures))
    figure("failed requests", len(failures))
    figure("retries (409/503/connection)", retries[0])
    figure("elapsed s / appends per s", f"{elapsed:.1f} / {WRITERS * n / elapsed:.0f}")
    figure("history length", len(events))
    figure("lost", lost)
    figure("duplicated", duplicated)
    figure("positions gapless", gapless)
    figure("roll indexes gapless", dice_gapless)
    figure("chain intact / count", f"{chain['intact']} / {chain['count']}")
    figure("acknowledged unlike the stored row", len(unlike))
    figure("ledger verify of the rows (exit)", walked.returncode)
    for f in failures[:5]:
        print("  failure:", f)
    for p in unlike[:5]:
        print("  acknowledged", p, acked[p], "stored", stored.get(acked[p][0]))
    ok = (not failures and not lost and not duplicated and gapless and dice_gapless and chain["intact"]
          and len(acked) == WRITERS * n and not unlike and walked.returncode == 0)
    return conclude(args, ok)


if __name__ == "__main__":
    sys.exit(main())
