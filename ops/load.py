"""Load drive of the HTTP API: 50 concurrent clients, 80% reads, 20% ruling appends, for a bounded time.

    python ops/load.py                          # starts `ledger serve` on 127.0.0.1 (SQLite in a temp dir)
    python ops/load.py --store postgres         # the same on PostgreSQL (LEDGER_POSTGRES_DSN, a fresh schema)
    python ops/load.py --workers 2 --baseline   # 2 uvicorn workers; also measure GET /health in the same run
    python ops/load.py --url http://127.0.0.1:8000 --token <GM token> --campaign <slug>   # a running server

The started server holds the sample campaign (``ledger serve --sample``: the
Channel scenario, turn 1 played and closed, turn 2 open). Reads are spread
evenly over the map, the state at the head, the timeline of turn 1 and FRA's
ERS for turn 1; a share of them (``--player-share``) is made with a player's
token (FRA), the rest with the game master's. Appends are ``POST
/campaigns/{id}/rulings`` with procedure M13 (server dice) by the game master.

The client is not the bottleneck: ``--procs`` processes (default 2) each run
their share of the 50 clients as raw HTTP/1.1 keep-alive connections on
asyncio (uvloop when installed), a few microseconds of work per request where
httpx took milliseconds. ``--baseline`` first drives ``GET /health`` (no work
at all) with the same clients: its rate is the ceiling of this server and
client on this machine, and the mixed run is printed as a ratio of it.

Prints requests/s and p50/p95/p99 per kind and overall; the targets (reads
p99 <= 50 ms at >= 1,000 req/s, appends p99 <= 100 ms) are printed beside the
figures, not asserted. Only loopback URLs are accepted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
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

ROOT = Path(__file__).resolve().parents[1]
M13 = {"procedure": "M13", "inputs": {"direction": "exit", "moving_man": 3, "blockader_man": 2, "moving_nd": 4,
                                      "blockader_nd": 6, "blockader_all_nwd": True, "blockader_technology": "GAL"}}
TARGETS = {"read_p99_ms": 50.0, "read_rps": 1000.0, "append_p99_ms": 100.0}


# ------------------------------------------------------------------ a minimal HTTP/1.1 keep-alive client

class Connection:
    """One keep-alive connection: a request, then its whole response, in turn (what a browser tab does)."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def request(self, raw: bytes) -> tuple[int, bytes]:
        if self.writer is None:
            await self.open()
        assert self.reader is not None and self.writer is not None
        self.writer.write(raw)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length, chunked, close = 0, False, False
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
            elif name == b"connection" and value.strip().lower() == b"close":
                close = True
        if chunked:
            parts = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
                parts.append(await self.reader.readexactly(size + 2))
                if size == 0:
                    break
            body = b"".join(p[:-2] for p in parts)
        else:
            body = await self.reader.readexactly(length) if length else b""
        if close:
            self.writer.close()
            self.writer = None
        return status, body


def request_bytes(method: str, path: str, token: str, body: dict | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Authorization: Bearer {token}"]
    data = b""
    if body is not None:
        data = json.dumps(body).encode()
        lines += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


async def _drive(host: str, port: int, mix: list[tuple[str, bytes, float]], clients: int, start: float,
                 seconds: float, seed: int) -> tuple[dict[str, list[float]], dict[str, int], dict[str, str]]:
    """``mix``: (kind, request bytes, cumulative probability). Latencies are seconds, per kind."""
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    samples: dict[str, str] = {}
    conns = [Connection(host, port) for _ in range(clients)]
    await asyncio.gather(*(c.open() for c in conns))
    await asyncio.sleep(max(0.0, start - time.time()))  # every process starts at the same instant
    stop = time.perf_counter() + seconds
    clock = time.perf_counter

    async def client(conn: Connection, n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        while clock() < stop:
            x = rng.random()
            kind, raw = next((k, r) for k, r, p in mix if x < p)
            t0 = clock()
            try:
                status, body = await conn.request(raw)
            except (OSError, asyncio.IncompleteReadError, ValueError) as e:
                status, body = 599, str(e).encode()
                conn.writer = None
            latencies[kind].append(clock() - t0)
            if status >= 400:
                errors[kind] += 1
                samples.setdefault(kind, f"{status} {body[:160]!r}")

    await asyncio.gather(*(client(c, n) for n, c in enumerate(conns)))
    for c in conns:
        if c.writer is not None:
            c.writer.close()
    return dict(latencies), dict(errors), samples


def _process(args: tuple) -> tuple[dict[str, list[float]], dict[str, int], dict[str, str]]:
    try:
        import uvloop  # type: ignore[import-not-found]

        uvloop.install()
    except ImportError:
        pass
    return asyncio.run(_drive(*args))


def run_mix(base: str, mix: list[tuple[str, bytes, float]], clients: int, seconds: float, procs: int
            ) -> tuple[dict[str, list[float]], dict[str, int], dict[str, str], float]:
    u = urlparse(base)
    procs = max(1, min(procs, clients))
    shares = [clients // procs + (1 if i < clients % procs else 0) for i in range(procs)]
    start = time.time() + 1.0 + 0.02 * clients  # time for every process to connect its clients
    jobs = [(u.hostname, u.port or 80, mix, n, start, seconds, i) for i, n in enumerate(shares)]
    with mp.get_context("spawn").Pool(procs) as pool:
        results = pool.map(_process, jobs)
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    samples: dict[str, str] = {}
    for lat, err, sample in results:
        for k, v in lat.items():
            latencies[k].extend(v)
        for k, v in err.items():
            errors[k] += v
        samples.update(sample)
    return dict(latencies), dict(errors), samples, seconds


# ------------------------------------------------------------------ server, campaign, report

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method: str, url: str, token: str, body: dict | None = None, timeout: float = 30) -> tuple[int, object]:
    """A plain blocking request (set-up only)."""
    import http.client

    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body), "application/json"
        conn.request(method, u.path + (f"?{u.query}" if u.query else ""), body=data, headers=headers)
        r = conn.getresponse()
        raw = r.read()
        try:
            return r.status, json.loads(raw)
        except ValueError:
            return r.status, raw.decode(errors="replace")
    finally:
        conn.close()


def start_server(store: str, workers: int) -> tuple[str, str, subprocess.Popen, object]:
    admin = secrets.token_urlsafe(24)
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="ledger-load-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEDGER_")}
    env.update(LEDGER_DATA_DIR=tmp, LEDGER_ADMIN_TOKEN=admin, LEDGER_ENV="development")
    cleanup = lambda: None  # noqa: E731
    if store == "postgres":
        import psycopg

        dsn = (os.environ.get("LEDGER_POSTGRES_OWNER_DSN") or os.environ["LEDGER_POSTGRES_DSN"])
        schema = f"load_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        env.update(LEDGER_POSTGRES_DSN=dsn, LEDGER_POSTGRES_SCHEMA=schema, LEDGER_STORE="postgres")

        def cleanup() -> None:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    else:
        env["LEDGER_STORE"] = "sqlite"
    cmd = [sys.executable, "-m", "ledger", "serve", "--host", "127.0.0.1", "--port", str(port), "--sample",
           "--workers", str(workers), "--log-level", "warning"]
    log = open(Path(tmp) / "server.log", "wb")  # noqa: SIM115 (kept open for the server's lifetime)
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if http("GET", f"{base}/ready", "", timeout=1)[0] == 200:
                return base, admin, proc, cleanup
        except OSError:
            pass
        time.sleep(0.2)
    proc.kill()
    cleanup()
    raise SystemExit(f"the server did not start (log: {tmp}/server.log)")


def tokens_for(base: str, admin: str, slug: str) -> tuple[str, str]:
    """A game master's token and a player's (FRA) for the campaign, issued with the admin token."""
    out = []
    for body in ({"role": "gm", "holder": "load-gm"}, {"role": "player", "country": "FRA", "holder": "load-fra"}):
        status, doc = http("POST", f"{base}/campaigns/{slug}/tokens", admin, body)
        if status != 201:
            raise SystemExit(f"could not issue a token: {status} {doc}")
        out.append(doc["token"])  # type: ignore[index]
    return out[0], out[1]


def prepare(base: str, admin: str) -> tuple[str, str, str]:
    """A new campaign with turn 1 played and closed and turn 2 open (for --url with --admin-token)."""
    slug = f"load-{uuid.uuid4().hex[:6]}"
    status, doc = http("POST", f"{base}/campaigns", admin,
                       {"slug": slug, "name": "Load", "countries": ["ENG", "FRA", "SPA"]})
    if status != 201:
        raise SystemExit(f"could not create a campaign: {status} {doc}")
    gm, player = tokens_for(base, admin, slug)
    http("POST", f"{base}/campaigns/{slug}/turns", gm)
    for i in range(40):
        http("POST", f"{base}/campaigns/{slug}/rulings", gm, M13)
        http("POST", f"{base}/campaigns/{slug}/treasury", gm,
             {"country": "FRA", "line": "A9", "amount": i % 7 + 1, "reason": f"entry {i}"})
    http("POST", f"{base}/campaigns/{slug}/turns/1/close", gm)
    http("POST", f"{base}/campaigns/{slug}/turns", gm)
    return slug, gm, player


def read_mix(base: str, slug: str, gm: str, player: str | None, player_share: float, append_share: float
             ) -> list[tuple[str, bytes, float]]:
    """(kind, request, cumulative probability): reads evenly over the kinds that answer, appends beside."""
    paths = {"map": f"/campaigns/{slug}/map", "state": f"/campaigns/{slug}/state",
             "timeline": f"/campaigns/{slug}/turns/1/timeline", "budget": f"/campaigns/{slug}/ers/FRA/1"}
    share = player_share if player else 0.0
    weighted: list[tuple[str, bytes, float]] = []
    for kind, path in paths.items():
        status, doc = http("GET", base + path, gm)
        if status != 200:
            print(f"  ({kind} skipped: {status} {str(doc)[:160]})")
            continue
        weighted.append((kind, request_bytes("GET", path, gm), 1 - share))
        if share:
            weighted.append((kind, request_bytes("GET", path, player), share))  # type: ignore[arg-type]
    if not weighted:
        raise SystemExit("no read route answered 200")
    kinds = len({k for k, _, _ in weighted})
    weighted = [(k, raw, w * (1 - append_share) / kinds) for k, raw, w in weighted]
    if append_share > 0:
        weighted.insert(0, ("append", request_bytes("POST", f"/campaigns/{slug}/rulings", gm, M13), append_share))
    mix, acc = [], 0.0
    for kind, raw, w in weighted:
        acc += w
        mix.append((kind, raw, acc))
    mix[-1] = (mix[-1][0], mix[-1][1], 1.01)  # rounding: the last entry catches every draw
    return mix


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


def report(latencies: dict[str, list[float]], errors: dict[str, int], samples: dict[str, str], elapsed: float
           ) -> dict[str, float]:
    reads = [v for k, vs in latencies.items() if k != "append" for v in vs]
    rows = [*sorted((k, v) for k, v in latencies.items() if k != "append"), ("ALL READS", reads)]
    if "append" in latencies:
        rows.append(("append", latencies["append"]))
    print(f"{'kind':<10} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for kind, vs in rows:
        errs = sum(v for k, v in errors.items() if k != "append") if kind == "ALL READS" else errors.get(kind, 0)
        print(f"{kind:<10} {len(vs):>9} {len(vs) / elapsed:>8.0f} {pct(vs, 50) * 1e3:>8.1f} "
              f"{pct(vs, 95) * 1e3:>8.1f} {pct(vs, 99) * 1e3:>8.1f} {errs:>7}")
    total = sum(len(v) for v in latencies.values())
    everything = [v for vs in latencies.values() for v in vs]
    print(f"{'ALL':<10} {total:>9} {total / elapsed:>8.0f} {pct(everything, 50) * 1e3:>8.1f} "
          f"{pct(everything, 95) * 1e3:>8.1f} {pct(everything, 99) * 1e3:>8.1f} {sum(errors.values()):>7}")
    for kind, sample in samples.items():
        print(f"  first {kind} error: {sample}")
    return {"reads_rps": len(reads) / elapsed, "reads_p99_ms": pct(reads, 99) * 1e3,
            "append_p99_ms": pct(latencies.get("append", []), 99) * 1e3, "total_rps": total / elapsed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="A running server (loopback only); else one is started")
    ap.add_argument("--token", help="GM token of --campaign (with --url)")
    ap.add_argument("--player-token", help="A player's token of --campaign (with --url; optional)")
    ap.add_argument("--campaign", help="Campaign slug (with --url)")
    ap.add_argument("--admin-token", help="With --url and no --token: create a campaign with this admin token")
    ap.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--workers", type=int, default=1, help="uvicorn workers of the started server")
    ap.add_argument("--clients", type=int, default=50, help="concurrent connections, in total")
    ap.add_argument("--procs", type=int, default=2, help="client processes sharing the connections")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--append-share", type=float, default=0.2)
    ap.add_argument("--player-share", type=float, default=0.25, help="share of reads made with a player's token")
    ap.add_argument("--baseline", action="store_true", help="also drive GET /health (the ceiling) in this run")
    args = ap.parse_args()
    args.seconds = max(1.0, min(args.seconds, 300.0))  # bounded, whatever is asked
    proc, cleanup = None, (lambda: None)
    player: str | None = None
    if args.url:
        host = urlparse(args.url).hostname or ""
        if not (host == "localhost" or host.startswith("127.") or host == "::1"):
            raise SystemExit("only a server on this machine (127.0.0.0/8, localhost, ::1) may be driven")
        base = args.url.rstrip("/")
        if args.token and args.campaign:
            slug, gm, player = args.campaign, args.token, args.player_token
        elif args.admin_token:
            slug, gm, player = prepare(base, args.admin_token)
        else:
            raise SystemExit("with --url give --token and --campaign, or --admin-token")
    else:
        base, admin, proc, cleanup = start_server(args.store, args.workers)
        slug = "sample"
        gm, player = tokens_for(base, admin, slug)
    try:
        mix = read_mix(base, slug, gm, player, args.player_share, args.append_share)
        load = os.getloadavg()
        print(f"{base} campaign {slug}: {args.clients} clients in {args.procs} processes, {args.seconds:.0f} s, "
              f"{args.append_share:.0%} appends, reads: {', '.join(sorted({k for k, _, _ in mix} - {'append'}))}"
              f" ({args.player_share:.0%} with a player's token)"
              + (f", store {args.store}, {args.workers} worker(s)" if proc else "")
              + f"; {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        health = None
        if args.baseline:
            seconds = max(5.0, args.seconds / 4)
            lat, err, samples, took = run_mix(base, [("health", request_bytes("GET", "/health", gm), 1.01)],
                                              args.clients, seconds, args.procs)
            print(f"baseline: GET /health with the same clients for {seconds:.0f} s")
            health = report(lat, err, samples, took)["total_rps"]
            print()
        print("mixed run:")
        figures = report(*run_mix(base, mix, args.clients, args.seconds, args.procs))
        ok = lambda good: "met" if good else "NOT met"  # noqa: E731
        print(f"targets: reads p99 <= {TARGETS['read_p99_ms']:.0f} ms: {figures['reads_p99_ms']:.1f} "
              f"({ok(figures['reads_p99_ms'] <= TARGETS['read_p99_ms'])}); reads >= {TARGETS['read_rps']:.0f} req/s: "
              f"{figures['reads_rps']:.0f} ({ok(figures['reads_rps'] >= TARGETS['read_rps'])}); appends p99 <= "
              f"{TARGETS['append_p99_ms']:.0f} ms: {figures['append_p99_ms']:.1f} "
              f"({ok(figures['append_p99_ms'] <= TARGETS['append_p99_ms'])})")
        if health:
            print(f"ratio to the /health ceiling: all requests {figures['total_rps'] / health:.2f} "
                  f"({figures['total_rps']:.0f} / {health:.0f} req/s), reads alone {figures['reads_rps'] / health:.2f}")
    finally:
        if proc is not None:
            os.killpg(proc.pid, 15)  # the server and its workers (and the projection process)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
            cleanup()


if __name__ == "__main__":
    main()
