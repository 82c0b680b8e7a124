#!/usr/bin/env python3
"""Latency of what people open, for a game master and a player: every page and JSON read beside its target.

Measures a campaign through FastAPI's TestClient (the whole app: auth, read
path, templates, serialisation; no network), with a game master's token and a
player's (FRA), over ``--samples`` random targets per kind, and prints for
each kind and role p50 / p95 / CPU per request beside its target (pages
p95 ≤ 100 ms, JSON reads p95 ≤ 50 ms) and PASS or MISS:

- the web turn page at a random step of a random turn, ``state?at=N``,
  ``map.svg?at=N``, an ERS sheet (JSON and its web page), the timeline of a
  turn (JSON), an export of one country's ERS (``ers.csv?country=FRA``, what
  the charts page links to), the place page of a random province at a random
  position, and closing a phase (a write, game master only: see below);
- the charts page's other downloads of one country (ERS as xlsx, JSON and
  Parquet, the wide ERS, the entries as CSV and xlsx, victory), each
  ``--export-samples`` times per role;
- first reads (``first ...``): each kind's first request in a NEW PROCESS
  (``--first-samples`` processes per kind and role; each starts the app as
  a server does, through its lifespan, with nothing cached, and times its one
  request; the start and the imports are not timed): what a person meets
  after a deploy or a restart, or on a worker that has not served this
  campaign or audience yet; besides the kinds above, the turn page at a
  public treasury entry of another country than the player's, and the
  entries and victory downloads; each line also gives the start-up's p50
  (the lifespan, whose warm-up takes one-off costs off the first request);
- live reads (``live ...``, ``--live-rounds``): the game master appends an
  event both roles may see (a treasury entry of the player's country, a
  marker, in turn), then each role reads the turn page at the new event, the
  state at the head, the turn's timeline, the ERS page, the ERS export and
  the place page of the marker's province once; the views are caught up
  between rounds (as the projection runner does), so each read meets the
  new event in the tail;
- downloads written afresh (``built ...``, ``--export-samples`` per role): each
  of the charts page's downloads of one country at a distinct URL, so that no
  kept answer serves it (the kinds above are mostly served from the response
  cache after their first request at a head);
- live downloads (``live download ...``, ``--live-rounds``): the game master
  records a treasury entry of the player's country, then each role downloads
  each of those files once (the history's tail read, the changed sheets
  written again);
- the raw baseline in the same run: one read of the campaign's whole history
  with decoding (what a whole-history read on a page would cost);
- how long catching the views up took before measuring, and the load average.

With ``--results FILE`` each line is also written to FILE as a JSON row (ops/results.py: its figures, its
statuses, its verdict), what the tests read instead of the text.

The campaign is either generated here through the real application
(ops/generate_campaign.py, seed 1) on SQLite or PostgreSQL, or an existing
generated PostgreSQL campaign (``--reuse-db DB --schema S``: the 300,000-event
copy) whose views are caught up first. Closing a phase appends: it opens a
turn and closes its phases in order (a turn close and a new turn when all are
closed), ``--closes`` times, at the end, after every read; so on a reused
campaign it adds a few turns of events (the copy, never the shared original).

    python ops/bench_reads.py --short                               # seconds: a tiny SQLite campaign
    python ops/bench_reads.py --events 30000 --store postgres --keep  # keeps the schema for --reuse-db
    python ops/bench_reads.py --reuse-db mycopy --schema bench_1234abcd
    python ops/bench_reads.py --reuse-db mycopy --schema bench_1234abcd --only "ERS sheet (JSON)" \
        --profile "first ERS sheet (JSON)" --samples 1 --live-rounds 0   # where a first read's time goes

A reused campaign's snapshots and signed checkpoints verify with the key of
the service that generated it: name it with LEDGER_SIGNING_KEY_FILE (the
generator's ``<its data_dir>/signing-key.pem``), or the campaign reads as
damaged.
"""

from __future__ import annotations

import argparse
import cProfile
import logging
import os
import pstats
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson  # noqa: E402
import psycopg  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from api.main import create_app  # noqa: E402
from ledger.supervision import SteadyGC  # noqa: E402
from ledger.application import Ledger  # noqa: E402
from ledger.config import Settings  # noqa: E402
from ledger.economy.milestones import PHASES  # noqa: E402
from ops.generate_campaign import LAND, generate  # noqa: E402
from ops.results import Results, add_option  # noqa: E402
from projections import read  # noqa: E402
from projections.runner import Projector  # noqa: E402

PAGE_MS, JSON_MS = 100.0, 50.0
#: ``--results FILE``: every line below also as a row of the file (ops/results.py), what the tests read.
RESULTS = Results()


@dataclass
class Kind:
    name: str
    target: float  # p95, ms
    url: Callable[[random.Random], str]
    roles: tuple[str, ...] = ("gm", "player")
    samples: int | None = None  # None: --samples


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def timed_get(client: TestClient, url: str, headers: dict[str, str], lat: list[float], cpu: list[float],
              statuses: set[int], profile: cProfile.Profile | None = None) -> None:
    """One GET, its wall and CPU milliseconds and status added to the lists (a 5xx printed with its URL)."""
    if profile:
        profile.enable()
    t0, c0 = time.perf_counter(), time.process_time()
    r = client.get(url, headers=headers)
    lat.append((time.perf_counter() - t0) * 1000)
    cpu.append((time.process_time() - c0) * 1000)
    if profile:
        profile.disable()
    statuses.add(r.status_code)
    if r.status_code >= 500:
        print(f"  {url}: {r.status_code} {r.text[:200]}")


def pg_dsn(dbname: str | None) -> str:
    dsn = os.environ.get("LEDGER_POSTGRES_OWNER_DSN") or os.environ.get("LEDGER_POSTGRES_DSN") \
        or sys.exit("set LEDGER_POSTGRES_DSN (or LEDGER_POSTGRES_OWNER_DSN)")
    return psycopg.conninfo.make_conninfo(dsn, dbname=dbname) if dbname else dsn


def raw_read(ledger: Ledger, cid: uuid.UUID) -> tuple[float, float]:
    """Wall and CPU seconds to read and decode every stored event of the campaign (the raw baseline)."""
    t0, c0 = time.perf_counter(), time.process_time()
    n = 0
    for row in ledger.stored_rows(cid):
        orjson.loads(row.state)
        n += 1
    return time.perf_counter() - t0, time.process_time() - c0


def entry_of_another_country(client: TestClient, ledger: Ledger, cid: uuid.UUID, api: str, gm: str, player: str,
                             turns: int, rng: random.Random) -> tuple[int, int] | None:
    """(turn, position) of a public treasury entry of a country other than ``player``, in a random turn."""
    for _ in range(20):
        t = rng.randint(1, turns)
        rows = client.get(f"{api}/turns/{t}/timeline", headers={"Authorization": f"Bearer {gm}"}).json()
        for row in rows:
            if row["type"] == "TreasuryEntryRecorded" and row["visibility"].get("scope") == "public":
                [r] = read.records(ledger, cid, row["position"] - 1, row["position"])
                if r.data.get("country") != player:
                    return t, r.position
    return None


def line(name: str, role: str, lat: list[float], cpu: list[float], target: float, statuses: set[int],
         how: str = "", startup_p50_ms: float | None = None, **fields: object) -> str:
    """The printed line of a kind and role (``how``: how its reads were made, e.g. "each after an append"); the
    same figures, with ``fields``, also a row of ``--results``."""
    p95 = pct(lat, 0.95)
    verdict = "PASS" if p95 <= target else "MISS"
    RESULTS.add(name, role=role, n=len(lat), p50_ms=statistics.median(lat), p95_ms=p95, cpu_ms=statistics.mean(cpu),
                target_ms=target, verdict=verdict, statuses=statuses, how=how or None, startup_p50_ms=startup_p50_ms,
                **fields)
    note = (f", {how}" if how else "") + (f", start-up p50 {startup_p50_ms:.0f} ms" if startup_p50_ms is not None
                                           else "")
    return (f"{name:22s} {role:6s} p50 {statistics.median(lat):8.1f} ms  p95 {p95:8.1f} ms  "
            f"cpu {statistics.mean(cpu):7.1f} ms  target p95 <= {target:5.0f} ms  {verdict}  "
            f"(n={len(lat)}{note}, statuses {sorted(statuses)})")


def first_read(spec: dict) -> None:
    """The child of ``--first-read``: a new process starts the app as a server does (its lifespan: a new Ledger,
    nothing cached) and times its first request; prints ``{"ms", "cpu", "status"}`` as JSON."""
    settings = Settings(**spec["settings"])
    t0 = time.perf_counter()
    with TestClient(create_app(settings)) as client:
        start = (time.perf_counter() - t0) * 1000  # the lifespan's warm-up (api/warmup.py): not the request's
        logging.getLogger("ledger.access").disabled = True
        profile = cProfile.Profile() if spec.get("profile") else None
        if profile:
            profile_worker_threads(profile)  # the request's own work runs there; this thread only waits
        t0, c0 = time.perf_counter(), time.process_time()
        r = client.get(spec["url"], headers={"Authorization": f"Bearer {spec['token']}"})
        ms, cms = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
        if profile:
            pstats.Stats(profile, stream=sys.stderr).sort_stats("cumulative").print_stats(45)
    print(orjson.dumps({"ms": ms, "cpu": cms, "status": r.status_code, "text": r.text[:200],
                        "start": start}).decode())


def profile_worker_threads(profile: cProfile.Profile) -> None:
    """Profile what the request runs in anyio's worker threads too (sync routes and dependencies run there;
    cProfile sees only the thread that enables it)."""
    import anyio.to_thread

    run_sync = anyio.to_thread.run_sync

    async def profiled(func, *args, **kwargs):
        def call(*a):
            profile.enable()
            try:
                return func(*a)
            finally:
                profile.disable()
        return await run_sync(call, *args, **kwargs)

    anyio.to_thread.run_sync = profiled


def in_fresh_process(settings: Settings, token: str, url: str, profile: bool = False) -> dict:
    """One ``first_read`` in a new Python process (its start and imports not timed); with ``profile``, the
    child's cProfile of its request is printed here."""
    spec = orjson.dumps({"settings": settings.model_dump(mode="json"), "token": token, "url": url,
                         "profile": profile})
    done = subprocess.run([sys.executable, __file__, "--first-read"], input=spec, capture_output=True,
                          timeout=300)
    if done.returncode != 0:
        sys.exit(f"first read of {url} failed:\n{done.stderr.decode()[-3000:]}")
    if profile:
        print(f"  profile of the first read of {url}:\n{done.stderr.decode()}")
    return orjson.loads(done.stdout.splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=5000)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--closes", type=int, default=40, help="phase closes measured (appends)")
    ap.add_argument("--export-samples", type=int, default=20,
                    help="requests per role of each of the charts page's other downloads (xlsx, json, parquet...)")
    ap.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--reuse-db", metavar="DB", help="PostgreSQL database of an existing generated campaign")
    ap.add_argument("--schema", help="its schema (with --reuse-db; with --keep: the name to create)")
    ap.add_argument("--keep", action="store_true", help="PostgreSQL: keep the generated schema for --reuse-db")
    ap.add_argument("--short", action="store_true", help="a tiny campaign and a few samples (the test's run)")
    ap.add_argument("--profile", metavar="KIND",
                    help="print a cProfile of this kind's requests (a kind's name; \"first KIND\": of each fresh "
                         "process's request, its worker threads included)")
    ap.add_argument("--only", metavar="KIND", action="append",
                    help="measure only these kinds (repeatable; \"live\": the live reads; \"built\": the downloads "
                         "written afresh; \"live downloads\")")
    ap.add_argument("--first-samples", type=int, default=3,
                    help="fresh processes per kind and role for the first reads (0: none)")
    ap.add_argument("--live-rounds", type=int, default=20,
                    help="appends, each followed by one read of every live kind per role (0: none)")
    ap.add_argument("--first-read", action="store_true", help=argparse.SUPPRESS)  # the child of a first read
    add_option(ap)
    args = ap.parse_args(argv)
    if args.first_read:
        first_read(orjson.loads(sys.stdin.buffer.read()))
        return
    RESULTS.open(args.results)
    if args.short:
        args.events, args.samples, args.closes = min(args.events, 400), min(args.samples, 5), min(args.closes, 3)
        args.export_samples = min(args.export_samples, 2)
        args.first_samples, args.live_rounds = min(args.first_samples, 1), min(args.live_rounds, 2)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} cores")
    admin = secrets.token_urlsafe(24)
    tmp = tempfile.TemporaryDirectory(prefix="bench-reads-")
    created = None
    if args.reuse_db:
        if not args.schema:
            sys.exit("--reuse-db needs --schema")
        dsn = pg_dsn(args.reuse_db)
        settings = Settings(store="postgres", postgres_dsn=dsn, postgres_schema=args.schema, admin_token=admin,
                            projection_runner="external")
    elif args.store == "postgres":
        dsn = pg_dsn(None)
        created = args.schema or f"bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{created}"')
        settings = Settings(store="postgres", postgres_dsn=dsn, postgres_schema=created, admin_token=admin,
                            projection_runner="external")
    else:
        settings = Settings(store="sqlite", data_dir=Path(tmp.name), admin_token=admin, projection_runner="external")
    ledger = Ledger(settings)
    try:
        if args.reuse_db:
            [state] = ledger.campaigns()
            print(f"reusing {args.reuse_db}.{args.schema}: campaign {state.slug}, {state.version} events")
        else:
            t0 = time.perf_counter()
            head = generate(ledger, "bench-reads", args.events, seed=1, turn_size=min(500, max(50, args.events // 8)))
            print(f"generated {head} events in {time.perf_counter() - t0:.0f} s ({args.store})")
            [state] = ledger.campaigns()
        t0 = time.perf_counter()
        Projector(ledger).catch_up()
        caught_up = time.perf_counter() - t0
        print(f"views caught up in {caught_up:.1f} s")
        RESULTS.add("views caught up", seconds=caught_up)
        # The TestClient runs no lifespan: the server's full-collection clock (api/main.py) is started here.
        SteadyGC(settings.full_gc_seconds, settings.young_gc_objects).start().settle()
        print(f"full garbage collections every {settings.full_gc_seconds:g} s (LEDGER_FULL_GC_SECONDS; 0: Python's own)")
        measure(ledger, settings, admin, state, args)
    finally:
        ledger.close()
        tmp.cleanup()
        if created and not args.keep:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{created}" CASCADE')
        elif created:
            print(f"kept: --reuse-db {psycopg.conninfo.conninfo_to_dict(dsn).get('dbname')} --schema {created}")


def measure(ledger: Ledger, settings: Settings, admin: str, state, args) -> None:
    slug, cid, head = state.slug, state.id, state.version
    turns = max(1, state.turn or 1)
    countries = list(state.countries)
    player = "FRA" if "FRA" in countries else countries[0]
    wall, cpu = raw_read(ledger, cid)
    print(f"raw baseline: read + decode all {head} events {wall * 1000:.0f} ms (cpu {cpu * 1000:.0f} ms); "
          f"{turns} turns, {len(countries)} countries; {args.samples} random targets per kind and role; "
          "TestClient (no network)")
    RESULTS.add("raw baseline", events=head, wall_ms=wall * 1000, cpu_ms=cpu * 1000, turns=turns,
                countries=len(countries))

    client = TestClient(create_app(settings, ledger))
    logging.getLogger("ledger.access").disabled = True  # one JSON line per request would be timed too
    tokens = {}
    for role, body in (("gm", {"role": "gm", "holder": "bench-gm"}),
                       ("player", {"role": "player", "country": player, "holder": f"bench-{player.lower()}"})):
        r = client.post(f"/campaigns/{slug}/tokens", json=body, headers={"Authorization": f"Bearer {admin}"})
        if r.status_code != 201:
            sys.exit(f"token for {role}: {r.status_code} {r.text}")
        tokens[role] = r.json()["token"]
    head = ledger.campaign(cid).version  # the tokens are events too
    ui = f"/ui/campaigns/{quote(slug)}"
    api = f"/campaigns/{quote(slug)}"

    def turn(rng: random.Random) -> int:
        return rng.randint(1, turns)

    kinds = [
        Kind("turn page at a step", PAGE_MS, lambda g: f"{ui}/turns/{turn(g)}?step={g.randint(1, 120)}"),
        Kind("state?at=N", JSON_MS, lambda g: f"{api}/state?at={g.randint(1, head)}"),
        Kind("map.svg?at=N", PAGE_MS, lambda g: f"{api}/map.svg?at={g.randint(1, head)}"),
        Kind("ERS sheet (JSON)", JSON_MS, lambda g: f"{api}/ers/{g.choice(countries)}/{turn(g)}"),
        Kind("ERS page", PAGE_MS, lambda g: f"{ui}/ers/{g.choice(countries)}/{turn(g)}"),
        Kind("timeline of a turn", JSON_MS, lambda g: f"{api}/turns/{turn(g)}/timeline"),
        Kind("export ERS csv (FRA)", PAGE_MS, lambda g: f"{api}/export/ers.csv?country={player}&turns={turn(g)}.."),
        Kind("place page", PAGE_MS, lambda g: f"{ui}/places/{quote(g.choice(LAND))}?at={g.randint(1, head)}"),
    ]
    # The charts page's other downloads of one country (every turn): fewer samples, some take seconds.
    for table, fmt in (("ers", "xlsx"), ("ers", "json"), ("ers", "parquet"), ("ers-wide", "csv"),
                       ("entries", "csv"), ("entries", "xlsx"), ("victory", "csv")):
        kinds.append(Kind(f"export {table}.{fmt} (FRA)", PAGE_MS,
                          lambda g, t=table, f=fmt: f"{api}/export/{t}.{f}?country={player}",
                          samples=args.export_samples))
    rng = random.Random(1)

    # First reads: each kind's first request in a new process (a deploy, a restart, a worker that has not served
    # this campaign or audience yet): ``--first-samples`` processes per kind and role, each starting the app as
    # a server does and timing its one request (the process's start and imports are not timed). Besides the
    # kinds above: the turn page at a public treasury entry of another country than the player's (whose
    # sheets book entries hidden from the player: no stored sheet is theirs), and two more downloads.
    other = entry_of_another_country(client, ledger, cid, api, tokens["gm"], player, turns, rng)
    firsts = [k for k in kinds if k.samples is None] + [
        Kind("turn page (other's entry)", PAGE_MS, lambda g: f"{ui}/turns/{other[0]}?position={other[1]}")
    ] * (other is not None) + [k for k in kinds if k.name in ("export entries.csv (FRA)", "export victory.csv (FRA)")]
    for kind in firsts if args.first_samples else ():
        if args.only and kind.name not in args.only:
            continue
        for role in kind.roles:
            lat, cpus, statuses, starts = [], [], set(), []
            for _ in range(args.first_samples):
                found = in_fresh_process(settings, tokens[role], kind.url(rng),
                                         profile=args.profile == f"first {kind.name}")
                lat.append(found["ms"])
                cpus.append(found["cpu"])
                starts.append(found["start"])
                statuses.add(found["status"])
                if found["status"] >= 500:
                    print(f"  {found['status']} {found['text']}")
            print(line(f"first {kind.name}", role, lat, cpus, kind.target, statuses, "fresh processes",
                       statistics.median(starts)), flush=True)

    for kind in kinds:
        if args.only and kind.name not in args.only:
            continue
        for role in kind.roles:
            headers = {"Authorization": f"Bearer {tokens[role]}"}
            lat, cpus, statuses = [], [], set()
            profile = cProfile.Profile() if args.profile == kind.name else None
            for _ in range(kind.samples or args.samples):
                timed_get(client, kind.url(rng), headers, lat, cpus, statuses, profile)
            print(line(kind.name, role, lat, cpus, kind.target, statuses), flush=True)
            if profile:
                pstats.Stats(profile).sort_stats("cumulative").print_stats(30)

    if not args.only or "built" in args.only:
        built_downloads(client, tokens, api, player, args.export_samples)

    if args.live_rounds and (not args.only or "live" in args.only):
        live_reads(client, ledger, cid, tokens, api, ui, player, args.live_rounds, rng)

    if args.live_rounds and (not args.only or "live downloads" in args.only):
        live_downloads(client, ledger, cid, tokens, api, player, args.live_rounds)

    # Closing a phase: a write, by the game master, through its route; a turn opened (not timed) when needed.
    headers = {"Authorization": f"Bearer {tokens['gm']}"}
    lat, cpus, statuses = [], [], set()
    if args.only and "close a phase" not in args.only:
        return
    for _ in range(args.closes):
        st = ledger.campaign(cid)
        if not st.turn_open:
            client.post(f"{api}/turns", headers=headers)
        elif len(st.phases_closed) == len(PHASES):
            client.post(f"{api}/turns/{st.turn}/close", headers=headers)
            client.post(f"{api}/turns", headers=headers)
        st = ledger.campaign(cid)
        phase = PHASES[len(st.phases_closed)]
        t0, c0 = time.perf_counter(), time.process_time()
        r = client.post(f"{api}/phases/{phase}/close", headers=headers)
        lat.append((time.perf_counter() - t0) * 1000)
        cpus.append((time.process_time() - c0) * 1000)
        statuses.add(r.status_code)
        if r.status_code >= 400:
            print(f"  close {phase}: {r.status_code} {r.text[:200]}")
    added = ledger.campaign(cid).version - head
    print(line("close a phase (write)", "gm", lat, cpus, PAGE_MS, statuses, appended_events=added)
          + f"; appended {added} events in all (turns opened and closed around them)")


#: The charts page's downloads of one country (every turn), in the order the lines print.
DOWNLOADS = (("ers", "csv"), ("ers", "xlsx"), ("ers", "json"), ("ers", "parquet"), ("ers-wide", "csv"),
             ("entries", "csv"), ("entries", "xlsx"), ("victory", "csv"))


def built_downloads(client: TestClient, tokens: dict[str, str], api: str, player: str, samples: int) -> None:
    """Each download written afresh (``built ...``): a distinct URL each time (an ignored ``fresh=`` parameter),
    so the response cache, which serves the same download at the same head to the same audience, holds none of
    them; the history is the read path's, already read (what the first download of a table after another
    download, or after the history's tail was read, costs)."""
    for table, fmt in DOWNLOADS:
        for role in ("gm", "player"):
            headers = {"Authorization": f"Bearer {tokens[role]}"}
            lat, cpus, statuses = [], [], set()
            for i in range(samples):
                timed_get(client, f"{api}/export/{table}.{fmt}?country={player}&fresh={role}{i}", headers, lat,
                          cpus, statuses)
            print(line(f"built {table}.{fmt} ({player})", role, lat, cpus, PAGE_MS, statuses,
                       "each written afresh"), flush=True)


def live_downloads(client: TestClient, ledger: Ledger, cid: uuid.UUID, tokens: dict[str, str], api: str,
                   player: str, rounds: int) -> None:
    """Downloads of a live campaign (``live download ...``): the game master records a treasury entry of the
    player's country (its sheet changes), then each role downloads each of the charts page's files once; the
    views are caught up after each round (untimed), as the projection runner does."""
    gm = {"Authorization": f"Bearer {tokens['gm']}"}
    if not ledger.campaign(cid).turn_open:
        client.post(f"{api}/turns", headers=gm)
    got: dict[tuple[str, str], tuple[list[float], list[float], set[int]]] = {}
    for i in range(rounds):
        r = client.post(f"{api}/treasury", headers=gm, json={"country": player, "line": "A9", "amount": 3,
                                                             "reason": "bench: a live download"})
        if r.status_code != 201:
            sys.exit(f"live append: {r.status_code} {r.text}")
        for role in (("gm", "player") if i % 2 == 0 else ("player", "gm")):
            headers = {"Authorization": f"Bearer {tokens[role]}"}
            for table, fmt in DOWNLOADS:
                timed_get(client, f"{api}/export/{table}.{fmt}?country={player}", headers,
                          *got.setdefault((f"{table}.{fmt}", role), ([], [], set())))
        Projector(ledger).catch_up()
    for table, fmt in DOWNLOADS:
        for role in ("gm", "player"):
            lat, cpus, statuses = got[(f"{table}.{fmt}", role)]
            print(line(f"live download {table}.{fmt} ({player})", role, lat, cpus, PAGE_MS, statuses,
                       "each after an append"), flush=True)


def live_reads(client: TestClient, ledger: Ledger, cid: uuid.UUID, tokens: dict[str, str], api: str, ui: str,
               player: str, rounds: int, rng: random.Random) -> None:
    """Reads of a live campaign: the game master appends an event both roles may see (through the routes: a
    treasury entry of the player's country, then a marker placed on a province, in turn), then each role reads
    every live kind once, the roles in turn first; the views are caught up after each round (untimed), as the
    projection runner does within moments, so each read meets the new event in the tail the views have not
    reached."""
    gm = {"Authorization": f"Bearer {tokens['gm']}"}
    if not ledger.campaign(cid).turn_open:
        client.post(f"{api}/turns", headers=gm)
    got: dict[tuple[str, str], tuple[list[float], list[float], set[int]]] = {}
    for i in range(rounds):
        where = rng.choice(LAND)
        if i % 2 == 0:
            r = client.post(f"{api}/treasury", headers=gm, json={"country": player, "line": "A9", "amount": 5,
                                                                 "reason": "bench: a live read"})
        else:
            r = client.post(f"{api}/map/markers", headers=gm, json={"province": where, "marker": "Revolt"})
        if r.status_code != 201:
            sys.exit(f"live append: {r.status_code} {r.text}")
        st = ledger.campaign(cid)
        position, turn = st.version, st.turn
        urls = {"turn page at the head": f"{ui}/turns/{turn}?position={position}",
                "state (head)": f"{api}/state",
                "timeline of the turn": f"{api}/turns/{turn}/timeline",
                "ERS page": f"{ui}/ers/{player}/{turn}",
                "export ERS csv (FRA)": f"{api}/export/ers.csv?country={player}",
                "place page": f"{ui}/places/{quote(where)}"}
        for role in (("gm", "player") if i % 2 == 0 else ("player", "gm")):
            headers = {"Authorization": f"Bearer {tokens[role]}"}
            for name, url in urls.items():
                timed_get(client, url, headers, *got.setdefault((name, role), ([], [], set())))
        Projector(ledger).catch_up()
    for (name, role), (lat, cpus, statuses) in sorted(got.items(), key=lambda kv: (list(urls).index(kv[0][0]),
                                                                                    kv[0][1])):
        target = JSON_MS if name in ("state (head)", "timeline of the turn") else PAGE_MS
        print(line(f"live {name}", role, lat, cpus, target, statuses, "each after an append"), flush=True)


if __name__ == "__main__":
    main()
