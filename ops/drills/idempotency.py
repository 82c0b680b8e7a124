"""Drill: N rolls, each POSTed twice with one Idempotency-Key, half of the pairs at the same instant.

    python ops/drills/idempotency.py            # N = 1,000, throwaway PostgreSQL, `ledger serve --workers 2`
    python ops/drills/idempotency.py --short    # N = 20

Sequential pairs: the second answer must be the first, byte for byte. Simultaneous pairs (two threads
released by one barrier, so they can land on different workers): both must end 201 with the same body
(after retrying a 409 ConcurrencyExhausted with the same key). Then: exactly N roll events (no extra event),
each purpose once, and no die rolled twice (the turn's roll indexes are gapless: a discarded roll would
leave a hole).
"""

from __future__ import annotations

import sys
import threading
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import (AUTH, Service, Store, conclude, create_campaign, figure, history, parser, post,  # noqa: E402
                      verify)


def main() -> int:
    args = parser(__doc__).parse_args()
    n = 20 if args.short else 1000  # the size: 1,000 POSTs each sent twice
    mismatched, statuses = [], Counter()
    with Store(args.store) as store:
        service = Service(store.env(), workers=args.workers).start()
        try:
            create_campaign(service.base, "idem")
            base_len = len(history(service.base, "idem"))
            clients = [httpx.Client(base_url=service.base, headers=AUTH, timeout=30) for _ in range(2)]
            for i in range(n):
                body, key = {"purpose": f"p{i}"}, f"key-{i}"
                if i % 2 == 0:  # one after the other
                    answers = [post(clients[0], "/campaigns/idem/rolls", body, key)[0],
                               post(clients[1], "/campaigns/idem/rolls", body, key)[0]]
                else:  # at the same time
                    answers = [None, None]
                    barrier = threading.Barrier(2)

                    def send(j: int) -> None:
                        barrier.wait()
                        answers[j] = post(clients[j], "/campaigns/idem/rolls", body, key)[0]

                    threads = [threading.Thread(target=send, args=(j,)) for j in range(2)]
                    for t in threads:
                        t.start()
                    for t in threads:
                        t.join()
                statuses.update(a.status_code for a in answers)
                if answers[0].status_code != 201 or answers[0].content != answers[1].content:
                    mismatched.append((i, [(a.status_code, a.text[:160]) for a in answers]))
            for c in clients:
                c.close()
            events = history(service.base, "idem")
            chain = verify(service.base, "idem")
        finally:
            service.stop()
    rolls = [e for e in events if e["type"] == "DiceRolled"]
    per_purpose = Counter(e["payload"]["purpose"] for e in rolls)
    indexes = sorted(e["payload"]["index"] for e in rolls)
    extra = len(events) - base_len - n
    figure("store / workers", f"{args.store} / {args.workers}")
    figure("pairs (sequential / simultaneous)", f"{n} ({(n + 1) // 2} / {n // 2})")
    figure("answers by status", dict(sorted(statuses.items())))
    figure("pairs with differing answers", len(mismatched))
    figure("roll events / expected", f"{len(rolls)} / {n}")
    figure("extra events", extra)
    figure("purposes recorded twice", sum(1 for c in per_purpose.values() if c > 1))
    figure("roll indexes gapless (no re-roll)", indexes == list(range(indexes[0], indexes[0] + len(indexes))))
    figure("chain intact", chain["intact"])
    for m in mismatched[:5]:
        print("  mismatch:", m)
    ok = not mismatched and extra == 0 and len(rolls) == n and chain["intact"] and max(per_purpose.values()) == 1
    return conclude(args, ok)


if __name__ == "__main__":
    sys.exit(main())
