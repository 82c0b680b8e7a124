"""CPU of the downloads a player takes home, one country's, for a game master and a player: the ERS workbook, the
entries workbook, entries.csv and victory.csv, each beside its target (a page: 100 ms) and a raw baseline.

Each download is written three ways from the read path's history (already read):
- ``cold``: as the first of its kind in a process (the kept rows of projections/xlsx.py and the comments of
  projections/export.py emptied first);
- ``again``: the same download written again at the same head (another audience's, another URL's: what the
  bench_reads.py ``built`` lines time; a download after an append is between the two: only the changed rows and
  sheets are new);
- ``victory.csv from a new reader``: a first victory.csv's history read from the views by a reader that has read
  nothing yet (its awards carry their events' hashes: no event read), wall and CPU.

The raw baseline: deflating the ERS workbook's parts (zlib-ng level 2, as written), the part of a workbook no
writer of XML avoids.

    python ops/bench_downloads.py --reuse-db mycopy --schema bench_1234abcd   # LEDGER_POSTGRES_OWNER_DSN set
    python ops/bench_downloads.py --short                                      # SQLite, a small campaign

``--results FILE``: each line also as a JSON row of FILE (ops/results.py), what the tests read.
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import secrets
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from api.main import create_app  # noqa: E402
from ledger.application import Actor, Ledger  # noqa: E402
from ledger.config import Settings  # noqa: E402
from ledger.supervision import SteadyGC  # noqa: E402
from ops.generate_campaign import generate  # noqa: E402
from ops.results import Results, add_option  # noqa: E402
from projections import export, xlsx  # noqa: E402
from projections.head import Reader  # noqa: E402
from projections.runner import Projector  # noqa: E402
from projections.store import ViewDB  # noqa: E402

TARGET_MS = 100.0
KEPT = (xlsx._plain_row, xlsx._styled_row, xlsx._tail, xlsx._shape, xlsx._comment)
#: ``--results FILE``: every line below also as a row of the file (ops/results.py).
RESULTS = Results()


def forget() -> None:
    """Empty what the writers keep between downloads: the next one is written as the first in a process."""
    for f in KEPT:
        f.cache_clear()
    with export._LINES_LOCK:
        export._SAID.clear()


def write(history: Any, what: str, country: str) -> bytes:
    """The route's writer of each download (api/routes/export.py)."""
    if what == "ers.xlsx":
        return export.to_xlsx(history, country, None)
    if what == "entries.xlsx":
        return export.encode("entries", "xlsx", export.rows(history, "entries", country))
    if what == "entries.csv":
        return export.entries_csv(history, country, None)
    return export.encode("victory", "csv", export.rows(history, "victory", country))


def cpu_ms(fn: Any) -> float:
    c0 = time.process_time()
    fn()
    return (time.process_time() - c0) * 1000


def line(name: str, role: str, cpus: list[float], note: str = "", **fields: object) -> str:
    """The printed line; its figures, with ``fields``, also a row of ``--results``."""
    worst = max(cpus)
    verdict = "PASS" if worst <= TARGET_MS else "MISS"
    RESULTS.add(name, role=role, n=len(cpus), cpu_p50_ms=statistics.median(cpus), cpu_max_ms=worst,
                target_ms=TARGET_MS, verdict=verdict, **fields)
    return (f"{name:34s} {role:6s} cpu p50 {statistics.median(cpus):7.1f} ms  max {worst:7.1f} ms  "
            f"target <= {TARGET_MS:.0f} ms  {verdict}  (n={len(cpus)}{note})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reuse-db", metavar="DB", help="PostgreSQL database of a generated campaign")
    ap.add_argument("--schema", help="its schema")
    ap.add_argument("--events", type=int, default=5000, help="SQLite: the campaign generated")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--short", action="store_true", help="a small campaign and two rounds (the test's run)")
    add_option(ap)
    args = ap.parse_args()
    RESULTS.open(args.results)
    if args.short:
        args.events, args.rounds = 600, 2
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} cores")
    admin = secrets.token_urlsafe(24)
    tmp = tempfile.TemporaryDirectory(prefix="bench-downloads-")
    if args.reuse_db:
        dsn = os.environ.get("LEDGER_POSTGRES_OWNER_DSN") or os.environ.get("LEDGER_POSTGRES_DSN") \
            or sys.exit("set LEDGER_POSTGRES_OWNER_DSN (or LEDGER_POSTGRES_DSN)")
        settings = Settings(store="postgres", postgres_dsn=psycopg.conninfo.make_conninfo(dsn, dbname=args.reuse_db),
                            postgres_schema=args.schema, admin_token=admin, projection_runner="external")
    else:
        settings = Settings(store="sqlite", data_dir=Path(tmp.name), admin_token=admin, projection_runner="external")
    ledger = Ledger(settings)
    try:
        if not args.reuse_db:
            generate(ledger, "bench-downloads", args.events, seed=1, turn_size=min(500, max(50, args.events // 8)))
        Projector(ledger).catch_up()
        [state] = ledger.campaigns()
        country = "FRA" if "FRA" in state.countries else state.countries[0]
        print(f"campaign {state.slug}: {state.version} events, {state.turn} turns; {country}'s downloads; "
              f"{args.rounds} rounds")
        RESULTS.add("campaign", slug=state.slug, events=state.version, turns=state.turn, country=country,
                    rounds=args.rounds)
        # The server's collections (api/main.py): full ones on a clock, not by Python's count.
        SteadyGC(settings.full_gc_seconds, settings.young_gc_objects).start().settle()
        measure(ledger, settings, admin, state, country, args.rounds)
    finally:
        ledger.close()
        tmp.cleanup()


def measure(ledger: Ledger, settings: Settings, admin: str, state: Any, country: str, rounds: int) -> None:
    client = TestClient(create_app(settings, ledger))
    logging.getLogger("ledger.access").disabled = True  # one JSON line per request
    app = client.app
    actors = {"gm": Actor("bench-gm", "gm"), "player": Actor(f"bench-{country.lower()}", "player", country)}
    for role, body in (("gm", {"role": "gm", "holder": "bench-gm"}),
                       ("player", {"role": "player", "country": country, "holder": f"bench-{country.lower()}"})):
        r = client.post(f"/campaigns/{state.slug}/tokens", json=body, headers={"Authorization": f"Bearer {admin}"})
        if r.status_code != 201:
            sys.exit(f"token for {role}: {r.status_code} {r.text}")
        # One download through the route: the app's read path (app.state.reads) and its history are made.
        client.get(f"/campaigns/{state.slug}/export/victory.csv?country={country}",
                   headers={"Authorization": f"Bearer {r.json()['token']}"})
    state = ledger.campaign(state.id)
    histories = {role: app.state.reads.reader.history(state.id, actor, state) for role, actor in actors.items()}

    book = export.to_xlsx(histories["gm"], country, None)
    with zipfile.ZipFile(io.BytesIO(book)) as z:
        parts = [(name, z.read(name).decode("utf-8")) for name in z.namelist()]
    raw = min(cpu_ms(lambda: xlsx.zip_parts(parts)) for _ in range(max(3, rounds)))
    print(f"raw baseline: deflate the ERS workbook's parts ({sum(len(t) for _, t in parts) / 1e6:.1f} MB of XML, "
          f"zlib-ng level 2): {raw:.1f} ms CPU")
    RESULTS.add("raw baseline", cpu_ms=raw, xml_bytes=sum(len(t) for _, t in parts))

    for what in ("ers.xlsx", "entries.xlsx", "entries.csv", "victory.csv"):
        for role, history in histories.items():
            cold, again = [], []
            for _ in range(rounds):
                forget()
                cold.append(cpu_ms(lambda: write(history, what, country)))
                again.append(cpu_ms(lambda: write(history, what, country)))
            print(line(f"{what} ({country}) cold", role, cold, ", the first of its kind in a process", download=what,
                       how="cold"), flush=True)
            print(line(f"{what} ({country}) again", role, again, ", the same download written again", download=what,
                       how="again"), flush=True)

    db = ViewDB(ledger.recorder)  # a server's, made once
    for role, actor in actors.items():
        walls, cpus = [], []
        for _ in range(rounds):
            t0, c0 = time.perf_counter(), time.process_time()
            fresh = Reader(ledger, db).history(state.id, actor, state)
            write(fresh, "victory.csv", country)
            walls.append((time.perf_counter() - t0) * 1000)
            cpus.append((time.process_time() - c0) * 1000)
        hashes = "stored" if fresh.awards and all(a.get("hash") for a in fresh.awards) else "read"
        print(line(f"victory.csv ({country}) from a new reader", role, cpus,
                   f", wall p50 {statistics.median(walls):.1f} ms max {max(walls):.1f} ms; its awards' hashes: "
                   f"{hashes}", download="victory.csv", how="from a new reader", wall_p50_ms=statistics.median(walls),
                   wall_max_ms=max(walls), awards_hashes=hashes),
              flush=True)


if __name__ == "__main__":
    main()
