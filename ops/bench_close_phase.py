"""Benchmark: closing a phase on a long campaign reads no history (PostgreSQL).

    eval "$(ops/pg.sh start)"
    python ops/bench_close_phase.py --events 300000     # the issue's campaign; --events 20000 for a quick run

Generates a campaign through the real application (ops/generate_campaign.py,
seed 1; or ``--reuse SCHEMA`` of an earlier ``--keep``), then plays a few more
turns, each with a treasury entry before every phase close, and prints:

- the raw baseline, measured in the same run: reading and decoding the
  campaign's whole history with psycopg (what closing a phase cost before the
  ERS moved to the write side: it read every row);
- ``close_phase`` latency p50 / p95 / max on a warm ledger, and the first close
  on a cold one (the state restored from its snapshot plus the tail);
- the history rows the closes read (counted at the recorder: must be 0) and
  the size of the latest snapshot, which now carries the treasury log.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson  # noqa: E402
import psycopg  # noqa: E402

from ledger.application import Actor, Ledger  # noqa: E402
from ledger.config import Settings  # noqa: E402
from ledger.economy.milestones import PHASES  # noqa: E402
from ops.generate_campaign import generate  # noqa: E402

GM = Actor("gm", "gm")


class Counting:
    """Counts the history rows the recorder hands out while ``active``."""

    def __init__(self, recorder):
        self.recorder, self.rows, self.active = recorder, 0, False
        self.select = recorder.select_events

        def select_events(*args, **kwargs):
            rows = self.select(*args, **kwargs)
            if self.active:
                self.rows += len(rows)
            return rows

        recorder.select_events = select_events


def play(ledger: Ledger, cid, turns: int, counter: Counting) -> list[float]:
    latencies = []
    for t in range(turns):
        if ledger.campaign(cid).turn_open:
            ledger.close_turn(cid, actor=GM)
        ledger.open_turn(cid, actor=GM)
        for n, phase in enumerate(PHASES):
            ledger.record_treasury_entry(cid, country="FRA", line="A9", amount=1 + (t + n) % 9,
                                         reason="bench entry", actor=GM)
            ledger.campaign(cid)  # the head read every request does anyway, outside the measure
            counter.active = True
            t0 = time.perf_counter()
            ledger.close_phase(cid, phase, actor=GM)
            latencies.append((time.perf_counter() - t0) * 1000)
            counter.active = False
    return latencies


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=300_000)
    ap.add_argument("--turns", type=int, default=5, help="turns played after the generation (8 closes each)")
    ap.add_argument("--keep", action="store_true", help="keep the schema (print its name) for --reuse")
    ap.add_argument("--reuse", metavar="SCHEMA", help="measure a campaign kept by an earlier --keep run")
    args = ap.parse_args()
    dsn = (os.environ.get("LEDGER_POSTGRES_OWNER_DSN") or os.environ.get("LEDGER_POSTGRES_DSN"))
    if not dsn:
        sys.exit("set LEDGER_POSTGRES_DSN (eval \"$(ops/pg.sh start)\")")
    schema = args.reuse or f"bench_{uuid.uuid4().hex[:8]}"
    if not args.reuse:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
    settings = Settings(store="postgres", postgres_dsn=dsn, postgres_schema=schema, pool_size=4)
    ledger = Ledger(settings)
    try:
        if not args.reuse:
            t0 = time.perf_counter()
            head = generate(ledger, "bench", args.events, seed=1, turn_size=1000,
                            progress=lambda h: print(f"\rgenerating: {h} events", end="", file=sys.stderr))
            gen = time.perf_counter() - t0
            print(f"\ngenerated {head} events in {gen:.0f} s through the application ({head / gen:,.0f}/s)")
        [state] = ledger.campaigns()
        cid = state.id

        # Raw baseline: every row of the campaign's history, read and decoded.
        t0 = time.perf_counter()
        rows = 0
        with psycopg.connect(dsn) as conn, conn.cursor(name="raw") as cur:
            cur.itersize = 5000
            cur.execute(f'SELECT state FROM "{schema}".ledger_events WHERE originator_id = %s '
                        f'ORDER BY originator_version', (cid,))
            for (doc,) in cur:
                orjson.loads(doc)
                rows += 1
        raw_ms = (time.perf_counter() - t0) * 1000

        # Cold: a new process's ledger, first close (snapshot + tail, then the treasury log folded once).
        ledger.close()
        ledger = Ledger(settings)
        counter = Counting(ledger.recorder)
        if ledger.campaign(cid).turn_open:
            ledger.close_turn(cid, actor=GM)
        ledger.open_turn(cid, actor=GM)
        ledger.close()
        ledger = Ledger(settings)
        counter = Counting(ledger.recorder)
        t0 = time.perf_counter()
        ledger.campaign(cid)
        load_ms = (time.perf_counter() - t0) * 1000
        counter.active = True
        t0 = time.perf_counter()
        ledger.close_phase(cid, PHASES[0], actor=GM)
        cold_ms = (time.perf_counter() - t0) * 1000
        counter.active = False
        cold_rows = counter.rows
        for phase in PHASES[1:]:
            ledger.close_phase(cid, phase, actor=GM)

        counter.rows = 0
        lat = sorted(play(ledger, cid, args.turns, counter))
        head = ledger.campaign(cid).version
        with psycopg.connect(dsn) as conn:
            snap = conn.execute(f'SELECT length(state), originator_version FROM "{schema}".ledger_snapshots '
                                f'WHERE originator_id = %s ORDER BY originator_version DESC LIMIT 1',
                                (cid,)).fetchone()
        log = ledger.campaign(cid).treasury
        print(f"campaign: {head} events, treasury log {log.count if log else 0} items")
        print(f"raw baseline: read + decode the whole history ({rows} rows): {raw_ms:.0f} ms")
        print(f"cold start: load the state (snapshot + tail) {load_ms:.0f} ms, then first close_phase "
              f"{cold_ms:.0f} ms, history rows read by it: {cold_rows}")
        print(f"close_phase warm over {len(lat)} closes: p50 {statistics.median(lat):.1f} ms, "
              f"p95 {lat[max(0, int(0.95 * len(lat)) - 1)]:.1f} ms, max {lat[-1]:.1f} ms; "
              f"history rows read: {counter.rows}")
        print(f"p95 close_phase / raw history read = {lat[max(0, int(0.95 * len(lat)) - 1)] / raw_ms:.3f}")
        if snap:
            print(f"latest snapshot: {snap[0] / 1e6:.1f} MB at position {snap[1]}")
    finally:
        ledger.close()
        if args.keep or args.reuse:
            print(f"schema kept: {schema} (python ops/bench_close_phase.py --reuse {schema})")
        else:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


if __name__ == "__main__":
    main()
