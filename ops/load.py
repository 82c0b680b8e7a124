"""Load drive of the HTTP API: 50 concurrent clients, 80% reads, 20% ruling appends, for a bounded time.

    python ops/load.py                      # starts its own server on 127.0.0.1 (SQLite in a temp dir)
    python ops/load.py --store postgres     # the same on PostgreSQL (LEDGER_POSTGRES_DSN, a fresh schema)
    python ops/load.py --url http://127.0.0.1:8000 --token <GM token> --campaign <slug>   # a running server

Reads are spread over the campaign, its events (latest page), its rulings, and,
when the served schema has them, the projections' state, the turn timeline and
the ERS budget. Appends are ``POST /campaigns/{id}/rulings`` with procedure M13
(server dice). Prints requests/s and p50/p95/p99 per kind and overall; the
targets (reads p99 <= 50 ms at >= 1,000 req/s, appends p99 <= 100 ms) are
printed beside the figures, not asserted. Only loopback URLs are accepted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlparse

import httpx

ROOT = Path(__file__).resolve().parents[1]
M13 = {"procedure": "M13", "inputs": {"direction": "exit", "moving_man": 3, "blockader_man": 2, "moving_nd": 4,
                                      "blockader_nd": 6, "blockader_all_nwd": True, "blockader_technology": "GAL"}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(store: str, workers: int) -> tuple[str, str, subprocess.Popen, callable]:
    admin = secrets.token_urlsafe(24)
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="ledger-load-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEDGER_") or k == "LEDGER_PROJECTION_RUNNER"}
    env.update(LEDGER_DATA_DIR=tmp, LEDGER_ADMIN_TOKEN=admin, LEDGER_ENV="development")
    cleanup = lambda: None  # noqa: E731
    if store == "postgres":
        import psycopg

        dsn = os.environ["LEDGER_POSTGRES_DSN"]
        schema = f"load_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        env.update(LEDGER_POSTGRES_DSN=dsn, LEDGER_POSTGRES_SCHEMA=schema)

        def cleanup() -> None:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    else:
        env["LEDGER_STORE"] = "sqlite"
    cmd = [sys.executable, "-m", "uvicorn", "api.main:create_app", "--factory", "--host", "127.0.0.1",
           "--port", str(port), "--log-level", "warning", "--no-access-log", "--workers", str(workers)]
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/ready", timeout=1).status_code == 200:
                return base, admin, proc, cleanup
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    cleanup()
    raise SystemExit("the server did not start")


def prepare(base: str, admin: str) -> tuple[str, str]:
    """A campaign with a GM token, an open turn and some history."""
    slug = f"load-{uuid.uuid4().hex[:6]}"
    with httpx.Client(base_url=base, timeout=30, headers={"Authorization": f"Bearer {admin}"}) as http:
        http.post("/campaigns", json={"slug": slug, "name": "Load", "countries": ["ENG", "FRA", "SPA"]}
                  ).raise_for_status()
        token = http.post(f"/campaigns/{slug}/tokens", json={"role": "gm", "holder": "load"}).json()["token"]
        http.headers["Authorization"] = f"Bearer {token}"
        http.post(f"/campaigns/{slug}/turns").raise_for_status()
        for _ in range(50):
            http.post(f"/campaigns/{slug}/rulings", json=M13).raise_for_status()
    return slug, token


def read_paths(base: str, token: str, slug: str) -> list[tuple[str, str]]:
    paths = set(httpx.get(f"{base}/openapi.json", timeout=10).json()["paths"])
    reads = [("campaign", f"/campaigns/{slug}"), ("events", f"/campaigns/{slug}/events?limit=50"),
             ("rulings", f"/campaigns/{slug}/rulings?limit=50")]
    optional = [("state", "/campaigns/{campaign}/state", f"/campaigns/{slug}/state"),
                ("timeline", "/campaigns/{campaign}/turns/{turn}/timeline", f"/campaigns/{slug}/turns/1/timeline"),
                ("budget", "/campaigns/{campaign}/ers/{country}/{turn}", f"/campaigns/{slug}/ers/FRA/1")]
    for kind, template, path in optional:
        if template in paths:
            r = httpx.get(base + path, headers={"Authorization": f"Bearer {token}"}, timeout=10)
            if r.status_code == 200:
                reads.append((kind, path))
            else:
                print(f"  ({kind} skipped: {r.status_code} {r.text[:120]})")
    return reads


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


async def drive(base: str, token: str, slug: str, reads: list[tuple[str, str]], clients: int,
                seconds: float, append_share: float) -> tuple[dict[str, list[float]], dict[str, int], float]:
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits,
                                 headers={"Authorization": f"Bearer {token}"}) as http:
        stop = time.perf_counter() + seconds

        async def client(n: int) -> None:
            rng = random.Random(n)
            while time.perf_counter() < stop:
                if rng.random() < append_share:
                    kind, call = "append", http.post(f"/campaigns/{slug}/rulings", json=M13)
                else:
                    kind, path = rng.choice(reads)
                    call = http.get(path)
                t0 = time.perf_counter()
                try:
                    r = await call
                    ok = r.status_code < 400
                except httpx.HTTPError:
                    ok = False
                latencies[kind].append(time.perf_counter() - t0)
                if not ok:
                    errors[kind] += 1

        started = time.perf_counter()
        await asyncio.gather(*(client(n) for n in range(clients)))
        elapsed = time.perf_counter() - started
    return latencies, errors, elapsed


def report(latencies: dict[str, list[float]], errors: dict[str, int], elapsed: float) -> None:
    reads = [v for k, vs in latencies.items() if k != "append" for v in vs]
    rows = [*sorted((k, v) for k, v in latencies.items() if k != "append"), ("ALL READS", reads),
            ("append", latencies.get("append", []))]
    print(f"{'kind':<10} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for kind, vs in rows:
        errs = sum(errors.values()) - errors.get("append", 0) if kind == "ALL READS" else errors.get(kind, 0)
        print(f"{kind:<10} {len(vs):>9} {len(vs) / elapsed:>8.0f} {pct(vs, 50) * 1e3:>8.1f} "
              f"{pct(vs, 95) * 1e3:>8.1f} {pct(vs, 99) * 1e3:>8.1f} {errs:>7}")
    total = sum(len(v) for v in latencies.values())
    print(f"total {total} requests in {elapsed:.1f} s = {total / elapsed:.0f} req/s")
    print(f"targets: reads p99 <= 50 ms (measured {pct(reads, 99) * 1e3:.1f}) at >= 1000 req/s "
          f"(measured {len(reads) / elapsed:.0f}); appends p99 <= 100 ms "
          f"(measured {pct(latencies.get('append', []), 99) * 1e3:.1f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="A running server (loopback only); else one is started")
    ap.add_argument("--token", help="GM token of --campaign (with --url)")
    ap.add_argument("--campaign", help="Campaign slug (with --url)")
    ap.add_argument("--admin-token", help="With --url and no --token: create a campaign with this admin token")
    ap.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--workers", type=int, default=1, help="uvicorn workers of the started server")
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--append-share", type=float, default=0.2)
    args = ap.parse_args()
    args.seconds = min(args.seconds, 300.0)  # bounded, whatever is asked
    proc, cleanup = None, (lambda: None)
    if args.url:
        host = urlparse(args.url).hostname or ""
        if not (host == "localhost" or host.startswith("127.") or host == "::1"):
            raise SystemExit("only a server on this machine (127.0.0.0/8, localhost, ::1) may be driven")
        base = args.url.rstrip("/")
        if args.token and args.campaign:
            slug, token = args.campaign, args.token
        elif args.admin_token:
            slug, token = prepare(base, args.admin_token)
        else:
            raise SystemExit("with --url give --token and --campaign, or --admin-token")
    else:
        base, admin, proc, cleanup = start_server(args.store, args.workers)
        slug, token = prepare(base, admin)
    try:
        reads = read_paths(base, token, slug)
        print(f"{base} campaign {slug}: {args.clients} clients, {args.seconds:.0f} s, "
              f"{args.append_share:.0%} appends, reads: {', '.join(k for k, _ in reads)}"
              + (f", store {args.store}, {args.workers} worker(s)" if proc else ""))
        # The ceiling of this client and machine: /health does no work, so its rate bounds every other figure.
        lat, _, took = asyncio.run(drive(base, token, slug, [("health", "/health")], args.clients, 3.0, 0.0))
        print(f"calibration: GET /health {len(lat['health']) / took:.0f} req/s, "
              f"p99 {pct(lat['health'], 99) * 1e3:.1f} ms (client and server on the same {os.cpu_count()} cores)")
        report(*asyncio.run(drive(base, token, slug, reads, args.clients, args.seconds, args.append_share)))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=15)
            cleanup()


if __name__ == "__main__":
    main()
