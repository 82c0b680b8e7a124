#!/usr/bin/env python3
"""Read latency through the ledger's HTTP app: state as of N, a turn's timeline, an ERS sheet; GM and player.

Generates a campaign through the real application (ops/generate_campaign.py,
seed 1), catches the views up, then sends JSON reads through FastAPI's
TestClient (the whole app: auth, read path, serialisation; no network) for
``--samples`` random targets each, with a game master's token and a player's
(FRA), and prints p50/p95 per kind beside the same request repeated on one
target (the warm floor). Reads only: nothing in api/ is changed or assumed
beyond its public routes.

    python ops/bench_reads.py --events 5000                    # SQLite in a temporary directory
    LEDGER_POSTGRES_DSN=... python ops/bench_reads.py --store postgres
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from api.main import create_app  # noqa: E402
from ledger.application import Ledger  # noqa: E402
from ledger.config import Settings  # noqa: E402
from ops.generate_campaign import generate  # noqa: E402
from projections.runner import Projector  # noqa: E402


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=5000)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    args = ap.parse_args()
    admin = secrets.token_urlsafe(24)
    tmp = tempfile.TemporaryDirectory(prefix="bench-reads-")
    schema = None
    if args.store == "postgres":
        dsn = os.environ.get("LEDGER_POSTGRES_OWNER_DSN") or os.environ.get("LEDGER_POSTGRES_DSN") \
            or sys.exit("set LEDGER_POSTGRES_DSN")
        schema = f"bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        settings = Settings(store="postgres", postgres_dsn=dsn, postgres_schema=schema, admin_token=admin,
                            projection_runner="external")
    else:
        settings = Settings(store="sqlite", data_dir=Path(tmp.name), admin_token=admin, projection_runner="external")
    ledger = Ledger(settings)
    try:
        t0 = time.perf_counter()
        head = generate(ledger, "bench-reads", args.events, seed=1, turn_size=500)
        print(f"generated {head} events in {time.perf_counter() - t0:.0f} s ({args.store})")
        Projector(ledger).catch_up()
        [state] = ledger.campaigns()
        turns = max(1, state.turn or 1)
        countries = list(state.countries) if getattr(state, "countries", None) else ["ENG", "FRA"]
        client = TestClient(create_app(settings, ledger))
        logging.getLogger("ledger.access").disabled = True  # one JSON line per request would be timed too
        tokens = {}
        for role, body in (("gm", {"role": "gm", "holder": "bench-gm"}),
                           ("player", {"role": "player", "country": "FRA", "holder": "bench-fra"})):
            r = client.post("/campaigns/bench-reads/tokens", json=body, headers={"Authorization": f"Bearer {admin}"})
            assert r.status_code == 201, r.text
            tokens[role] = r.json()["token"]
        rng = random.Random(1)
        kinds: dict[str, Callable[[], str]] = {
            "state?at=N": lambda: f"/campaigns/bench-reads/state?at={rng.randint(1, head)}",
            "timeline of a turn": lambda: f"/campaigns/bench-reads/turns/{rng.randint(1, turns)}/timeline",
            "ERS sheet": lambda: f"/campaigns/bench-reads/ers/{rng.choice(countries)}/{rng.randint(1, turns)}",
        }
        print(f"{head} events, {turns} turns; {args.samples} random targets per kind and role; "
              "TestClient (no network)")
        for kind, path in kinds.items():
            for role, token in tokens.items():
                headers = {"Authorization": f"Bearer {token}"}
                lat, statuses = [], set()
                for _ in range(args.samples):
                    url = path()
                    t0 = time.perf_counter()
                    r = client.get(url, headers=headers)
                    lat.append((time.perf_counter() - t0) * 1000)
                    statuses.add(r.status_code)
                fixed = path()
                warm = []
                for _ in range(20):
                    t0 = time.perf_counter()
                    client.get(fixed, headers=headers)
                    warm.append((time.perf_counter() - t0) * 1000)
                print(f"{kind:20s} {role:6s}: p50 {statistics.median(lat):7.1f} ms  p95 {pct(lat, 0.95):7.1f} ms  "
                      f"(one target repeated: p50 {statistics.median(warm):.1f} ms; statuses {sorted(statuses)})")
    finally:
        ledger.close()
        tmp.cleanup()
        if schema:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


if __name__ == "__main__":
    main()
