#!/usr/bin/env python3
"""Benchmark the write path against a raw psycopg baseline, in one process.

(a) raw psycopg: single-row INSERT + COMMIT of a payload the size of a stored ruling;
(b) the ledger: record_ruling (server dice + resolver + hash chain + store), same PostgreSQL;
then the ledger on SQLite. Prints both rates and the ratio (b)/(a) (target ≥ 0.40).

    python ops/bench_store.py [--n 2000]          # starts its own throwaway PostgreSQL
    LEDGER_POSTGRES_DSN=... python ops/bench_store.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ledger.application import Actor, Ledger  # noqa: E402
from ledger.config import Settings  # noqa: E402
from ledger.sample import reach_phase  # noqa: E402

GM = Actor("bench", "gm")
INPUTS = {"direction": "exit", "moving_man": 3, "blockader_man": 2, "moving_nd": 4, "blockader_nd": 6,
          "blockader_all_nwd": True, "blockader_technology": "GAL"}


def start_postgres() -> tuple[str, str]:
    out = subprocess.run([str(ROOT / "ops" / "pg.sh"), "start"], check=True, capture_output=True, text=True).stdout
    env = dict(line.removeprefix("export ").split("=", 1) for line in out.splitlines())
    return env["PG_SUPERUSER_DSN"].strip("'"), env["PG_TMP"]  # it creates its own schemas


def ledger_on(settings: Settings) -> tuple[Ledger, uuid.UUID]:
    app = Ledger(settings)
    slug = f"bench-{uuid.uuid4().hex[:8]}"
    cid = uuid.UUID(app.create_campaign(slug=slug, name="bench", ruleset="eu", countries=["ENG", "FRA"],
                                        actor=GM).data["id"])
    app.open_turn(cid, actor=GM)
    reach_phase(app, cid, "military")  # M13 is the military phase's (the sequence of play)
    return app, cid


def rate_ledger(app: Ledger, cid: uuid.UUID, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        app.record_ruling(cid, procedure="M13", inputs=INPUTS, actor=GM)
    return n / (time.perf_counter() - start)


def rate_raw(dsn: str, schema: str, payload: bytes, n: int) -> float:
    with psycopg.connect(dsn) as conn:
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{schema}".raw_events (originator_id uuid, '
                     "originator_version bigint, topic text, state bytea, notification_id bigserial, "
                     "PRIMARY KEY (originator_id, originator_version))")
        conn.commit()
        oid = uuid.uuid4()
        sql = f'INSERT INTO "{schema}".raw_events (originator_id, originator_version, topic, state) VALUES (%s,%s,%s,%s)'
        start = time.perf_counter()
        for i in range(n):
            conn.execute(sql, (oid, i + 1, "ledger.domain.events:RulingRecorded", payload), prepare=True)
            conn.commit()
        return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2000, help="writes per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating measurements of each kind")
    args = parser.parse_args()

    dsn = (os.environ.get("LEDGER_POSTGRES_OWNER_DSN") or os.environ.get("LEDGER_POSTGRES_DSN"))
    pg_dir = None
    if not dsn:
        dsn, pg_dir = start_postgres()
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        pg_app, pg_cid = ledger_on(Settings(store="postgres", postgres_dsn=dsn, postgres_schema=schema))
        pg_app.record_ruling(pg_cid, procedure="M13", inputs=INPUTS, actor=GM)
        payload = bytes(list(pg_app.recorder.select_events(pg_cid, desc=True, limit=1))[0].state)
        rate_raw(dsn, schema, payload, 200)  # warm-up both paths
        rate_ledger(pg_app, pg_cid, 200)

        raw, app = [], []
        for _ in range(args.rounds):
            raw.append(rate_raw(dsn, schema, payload, args.n))
            app.append(rate_ledger(pg_app, pg_cid, args.n))
        pg_app.close()

        with tempfile.TemporaryDirectory() as tmp:
            sq_app, sq_cid = ledger_on(Settings(store="sqlite", data_dir=Path(tmp)))
            rate_ledger(sq_app, sq_cid, 200)
            sqlite_rate = statistics.median(rate_ledger(sq_app, sq_cid, args.n) for _ in range(args.rounds))
            sq_app.close()

        a, b = statistics.median(raw), statistics.median(app)
        print(f"payload: {len(payload)} bytes (one stored RulingRecorded, procedure eu:M13)")
        print(f"(a) raw psycopg INSERT+COMMIT      : {a:8.0f} writes/s  (runs: {', '.join(f'{r:.0f}' for r in raw)})")
        print(f"(b) ledger record_ruling, Postgres : {b:8.0f} rulings/s (runs: {', '.join(f'{r:.0f}' for r in app)})")
        print(f"ratio (b)/(a)                      : {b / a:8.2f}   (target >= 0.40)")
        print(f"ledger record_ruling, SQLite       : {sqlite_rate:8.0f} rulings/s")
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
        if pg_dir:
            subprocess.run([str(ROOT / "ops" / "pg.sh"), "stop", pg_dir], check=False)


if __name__ == "__main__":
    main()
