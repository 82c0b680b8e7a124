#!/usr/bin/env python3
"""Benchmark group commit on PostgreSQL: many writers on many campaigns, and one hot campaign.

In one run, on one PostgreSQL (fsync on):
(a) raw psycopg baseline: single-row INSERT + COMMIT of a stored ruling's bytes, one connection, serially;
    (a') the same from 16 threads on 16 connections (PostgreSQL's own WAL flush sharing, no table lock);
(b) the ledger, 16 writer threads on 16 campaigns (record_ruling: dice + resolver + hash chain + store),
    group commit off (each append its own transaction), then on; events/s, mean appends per commit;
    target: (b, group commit on) >= 3x (a);
(b2) the same writers and campaigns over ``--processes`` processes (``ledger serve --workers N``: one group
    commit per process), group commit on;
(c) a hot campaign: 9 writers on one campaign (a game master recording rulings, 8 players rolling dice),
    group commit on: append latency p50/p95/p99 (target p99 <= 50 ms).
(d) the CPU of one append by stage (command model, use case, seal, fold, signature, JSON, serialisation, its
    group's commit), timed around each stage in one writer's serial run;
(e) PostgreSQL's own CPU per event (when the benchmark started the cluster), and what the CPU of an append
    bounds (b) at: one process runs its Python on one core; the machine's cores are shared with PostgreSQL.
Rounds alternate off/on so both see the same machine load; medians are printed.

    python ops/bench_group_commit.py [--seconds 5] [--rounds 3]   # starts its own PostgreSQL if no DSN
    LEDGER_POSTGRES_DSN=... python ops/bench_group_commit.py
    python ops/bench_group_commit.py --short                       # seconds: the suite checks it runs
    python ops/bench_group_commit.py --flush-delay-ms 2            # on a simulated slower disk (below)

``--flush-delay-ms X`` starts its own cluster whose every flush (fdatasync) waits X ms more, as a cloud
volume's does (ops/slow_flush.c, loaded with LD_PRELOAD): a separate, labelled figure of what grouping is
worth where the flush bounds a commit. The headline is this machine's own disk.

Figures are wall-clock rates on whatever else the machine runs: the load average is printed with them, and
the CPU the ledger spent per append (process time / appends) beside each ledger figure. ``--results FILE``:
each figure also as a JSON row of FILE (ops/results.py), what the tests read.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import tempfile
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ledger.application import Actor, Ledger  # noqa: E402
from ledger.config import Settings  # noqa: E402
from ledger.sample import reach_phase  # noqa: E402
from ops.results import Results, add_option  # noqa: E402

GM = Actor("bench-gm", "gm")
COUNTRIES = ["ENG", "FRA", "SPA", "POR", "VEN", "TUR", "HAB", "SWE"]
INPUTS = {"direction": "exit", "moving_man": 3, "blockader_man": 2, "moving_nd": 4, "blockader_nd": 6,
          "blockader_all_nwd": True, "blockader_technology": "GAL"}


def start_postgres(flush_delay_ms: float = 0.0) -> tuple[str, str]:
    env = dict(os.environ)
    env.pop("PGPORT_TMP", None)  # a port of its own
    if flush_delay_ms:
        env["PG_FLUSH_DELAY_US"] = str(round(flush_delay_ms * 1000))
    out = subprocess.run([str(ROOT / "ops" / "pg.sh"), "start"], check=True, capture_output=True, text=True,
                         env=env).stdout
    env = dict(line.removeprefix("export ").split("=", 1) for line in out.splitlines())
    return env["PG_SUPERUSER_DSN"].strip("'"), env["PG_TMP"]  # it creates its own schemas


def new_campaign(app: Ledger) -> uuid.UUID:
    cid = uuid.UUID(app.create_campaign(slug=f"bench-{uuid.uuid4().hex[:8]}", name="bench", ruleset="eu",
                                        countries=COUNTRIES, actor=GM).data["id"])
    app.open_turn(cid, actor=GM)
    reach_phase(app, cid, "military")  # M13 is the military phase's (the sequence of play)
    return cid


def cluster_cpu(pg_dir: str | None) -> float | None:
    """CPU seconds the benchmark's own PostgreSQL has spent (postmaster, its live children, the exited ones it
    reaped), from /proc; None on a cluster it did not start (others' work would be counted)."""
    if not pg_dir:
        return None
    pid = int(Path(pg_dir, "data", "postmaster.pid").read_text().split()[0])

    def fields(proc: str) -> list[str]:
        text = Path(f"/proc/{proc}/stat").read_text()
        return text[text.rindex(")") + 2:].split()  # [0] state, [1] ppid, [11..14] utime stime cutime cstime

    ticks = sum(int(x) for x in fields(str(pid))[11:15])
    for proc in os.listdir("/proc"):
        if proc.isdigit() and proc != str(pid):
            try:
                f = fields(proc)
            except (OSError, ValueError):
                continue  # exited meanwhile
            if f[1] == str(pid):
                ticks += int(f[11]) + int(f[12])
    return ticks / os.sysconf("SC_CLK_TCK")


class ServerCPU:
    """PostgreSQL's CPU per event of the measurements made under ``with``: ms, or None (not its own cluster)."""

    def __init__(self, pg_dir: str | None):
        self.pg_dir, self.spent, self.events = pg_dir, 0.0, 0.0

    def measure(self, run: Callable[[], Any], seconds: float) -> Any:
        """``run()`` returns a rate (or a tuple starting with one) over ``seconds``."""
        before = cluster_cpu(self.pg_dir)
        out = run()
        if before is not None:
            time.sleep(0.3)  # a backend whose connection just closed is counted once the postmaster reaped it
            self.spent += (cluster_cpu(self.pg_dir) or 0.0) - before
            self.events += (out[0] if isinstance(out, tuple) else out) * seconds
        return out

    def per_event(self) -> float | None:
        return 1000 * self.spent / self.events if self.pg_dir and self.events else None


def run_threads(workers: list[Callable[[threading.Event], int]], seconds: float) -> tuple[int, float]:
    """Run each worker in a thread for ``seconds``; returns (events appended, elapsed)."""
    stop, start = threading.Event(), threading.Barrier(len(workers) + 1)
    counts = [0] * len(workers)

    def body(i: int) -> None:
        start.wait()
        counts[i] = workers[i](stop)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(len(workers))]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    return sum(counts), time.perf_counter() - t0


def raw_rate(dsn: str, schema: str, payload: bytes, seconds: float, threads: int) -> float:
    sql = (f'INSERT INTO "{schema}".raw_events (originator_id, originator_version, topic, state) '
           "VALUES (%s, %s, %s, %s)")

    def writer(stop: threading.Event) -> int:
        oid, n = uuid.uuid4(), 0
        with psycopg.connect(dsn) as conn:
            while not stop.is_set():
                n += 1
                conn.execute(sql, (oid, n, "ledger.domain.events:RulingRecorded", payload), prepare=True)
                conn.commit()
        return n

    n, elapsed = run_threads([writer] * threads, seconds)
    return n / elapsed


def ledger_rate(app: Ledger, cids: list[uuid.UUID], seconds: float, grouped: bool) -> tuple[float, float, float]:
    """(events/s, mean appends per commit, CPU ms per append) of one writer thread per campaign."""
    app.recorder.group_commit = grouped
    g = app.recorder._group
    groups0, appends0 = g.groups, g.appends
    cpu0 = time.process_time()

    def writer(cid: uuid.UUID) -> Callable[[threading.Event], int]:
        def work(stop: threading.Event) -> int:
            n = 0
            while not stop.is_set():
                n += len(app.record_ruling(cid, procedure="M13", inputs=INPUTS, actor=GM).events)
            return n
        return work

    n, elapsed = run_threads([writer(c) for c in cids], seconds)
    cpu = time.process_time() - cpu0
    per_commit = (g.appends - appends0) / max(1, g.groups - groups0) if grouped else 1.0
    return n / elapsed, per_commit, 1000 * cpu / max(1, n)


def _ledger_process(dsn: str, schema: str, data_dir: str, cids: list[uuid.UUID], seconds: float, start: Any,
                    out: Any) -> None:
    """One process of (b2): its own Ledger on the same schema and key, its share of the campaigns."""
    app = Ledger(Settings(store="postgres", postgres_dsn=dsn, postgres_schema=schema, pool_size=len(cids) + 2,
                          data_dir=Path(data_dir)))
    try:
        ledger_rate(app, cids, 0.5, True)  # warm-up: caches, connections
        start.wait()
        out.put(ledger_rate(app, cids, seconds, True))
    finally:
        app.close()


def processes_rate(dsn: str, schema: str, data_dir: Path, cids: list[uuid.UUID], seconds: float, processes: int
                   ) -> tuple[float, float, float]:
    """(events/s, mean appends per commit, CPU ms per append) of the campaigns' writers spread over processes."""
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Barrier(processes), ctx.Queue()
    procs = [ctx.Process(target=_ledger_process, args=(dsn, schema, str(data_dir), cids[k::processes], seconds,
                                                        start, out)) for k in range(processes)]
    for proc in procs:
        proc.start()
    found = [out.get(timeout=120 + seconds) for _ in procs]
    for proc in procs:
        proc.join()
    return (sum(r for r, _, _ in found), statistics.mean(g for _, g, _ in found),
            statistics.mean(c for _, _, c in found))


def hot_latencies(app: Ledger, cid: uuid.UUID, seconds: float) -> tuple[list[float], float]:
    app.recorder.group_commit = True
    lat: list[float] = []
    lock = threading.Lock()

    def timed(call: Callable[[], object]) -> Callable[[threading.Event], int]:
        def work(stop: threading.Event) -> int:
            n = 0
            while not stop.is_set():
                t0 = time.perf_counter()
                call()
                ms = (time.perf_counter() - t0) * 1000
                with lock:
                    lat.append(ms)
                n += 1
            return n
        return work

    gm = timed(lambda: app.record_ruling(cid, procedure="M13", inputs=INPUTS, actor=GM))
    players = [timed(lambda c=c: app.roll(cid, purpose=f"{c} roll", actor=Actor(f"player-{c}", "player", c)))
               for c in COUNTRIES]
    n, elapsed = run_threads([gm, *players], seconds)
    return sorted(lat), n / elapsed


STAGES = ("command model (validation)", "use case (ruleset, dice)", "seal (hash chain)", "fold into the state",
          "checkpoint (Ed25519 note)", "answer and idempotency JSON", "stored event (serialise)",
          "commit of its group (per group)")


def stage_breakdown(app: Ledger, cid: uuid.UUID, n: int) -> tuple[float, dict[str, float]]:
    """CPU ms per append, in total and by stage, of ``n`` appends one after another in one thread.

    Each stage is timed with ``time.process_time`` around the call that does it, wrapped for the run only
    (a few microseconds of timer per call are counted too). One writer alone leads a group of one: the commit
    line is the CPU of one group's transaction, which (b) shares among the appends of its group.
    """
    import ledger.application as application
    from ledger.checkpoints import Signer
    from ledger.domain import commands as cmd
    from ledger.usecases import HANDLERS

    spent = dict.fromkeys(STAGES, 0.0)

    def timed(stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kw: Any) -> Any:
            t0 = time.process_time()
            try:
                return fn(*args, **kw)
            finally:
                spent[stage] += time.process_time() - t0
        return call

    use = HANDLERS[cmd.RecordRuling]
    group = app.recorder._group  # type: ignore[attr-defined]
    patches: list[tuple[Any, str, Any]] = [
        (cmd, "build", timed(STAGES[0], cmd.build)),
        (application.Draft, "seal", timed(STAGES[2], application.Draft.seal)),
        (application, "project_campaign", timed(STAGES[3], application.project_campaign)),
        (Signer, "note", timed(STAGES[4], Signer.note)),
        (application, "canonical_json", timed(STAGES[5], application.canonical_json)),
        (app.mapper, "to_stored_event", timed(STAGES[6], app.mapper.to_stored_event)),
        (group, "commit", timed(STAGES[7], group.commit)),
    ]
    saved = [(obj, name, obj.__dict__[name] if isinstance(obj, type) else getattr(obj, name))
             for obj, name, _ in patches]
    for obj, name, new in patches:
        setattr(obj, name, new)
    HANDLERS[cmd.RecordRuling] = type(use)(timed(STAGES[1], use.run), use.creating)
    app.recorder.group_commit = True
    try:
        t0 = time.process_time()
        for _ in range(n):
            app.record_ruling(cid, procedure="M13", inputs=INPUTS, actor=GM)
        total = time.process_time() - t0
    finally:
        HANDLERS[cmd.RecordRuling] = use
        for obj, name, old in saved:
            setattr(obj, name, old)
    return 1000 * total / n, {k: 1000 * v / n for k, v in spent.items()}


def pct(xs: list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating measurements of each kind")
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--processes", type=int, default=2, help="(b2): the writers spread over this many")
    parser.add_argument("--short", action="store_true", help="one round of half a second: that every line prints")
    parser.add_argument("--flush-delay-ms", type=float, default=0.0,
                        help="its own cluster on a simulated disk whose every flush waits this much more")
    add_option(parser)
    args = parser.parse_args()
    results = Results(args.results)
    if args.short:
        args.seconds, args.rounds = 0.5, 1

    dsn = None if args.flush_delay_ms else (os.environ.get("LEDGER_POSTGRES_OWNER_DSN")
                                            or os.environ.get("LEDGER_POSTGRES_DSN"))
    pg_dir = None
    if not dsn:
        dsn, pg_dir = start_postgres(args.flush_delay_ms)
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
            conn.execute(f'CREATE TABLE "{schema}".raw_events (originator_id uuid, originator_version bigint, '
                         "topic text, state bytea, notification_id bigserial, "
                         "PRIMARY KEY (originator_id, originator_version))")
        # A pool as large as the writers: connections are not what is measured.
        data_dir = Path(tempfile.mkdtemp(prefix="bench-gc-"))  # the signing key every process of (b2) uses
        app = Ledger(Settings(store="postgres", postgres_dsn=dsn, postgres_schema=schema,
                              pool_size=args.writers + 2, data_dir=data_dir))
        cids = [new_campaign(app) for _ in range(args.writers)]
        hot = new_campaign(app)
        app.record_ruling(cids[0], procedure="M13", inputs=INPUTS, actor=GM)
        payload = bytes(list(app.recorder.select_events(cids[0], desc=True, limit=1))[0].state)
        raw_rate(dsn, schema, payload, 1.0, 1)  # warm-up
        ledger_rate(app, cids, 1.0, True)

        raw1, raw16, off, on, per_commit, cpu_off, cpu_on, spread = [], [], [], [], [], [], [], []
        # PostgreSQL's CPU per event (its own cluster only): it shares the machine's cores with the ledger.
        pg_raw, pg_on = ServerCPU(pg_dir), ServerCPU(pg_dir)
        for _ in range(args.rounds):
            raw1.append(pg_raw.measure(lambda: raw_rate(dsn, schema, payload, args.seconds, 1), args.seconds))
            raw16.append(raw_rate(dsn, schema, payload, args.seconds, args.writers))
            rate, _, cpu = ledger_rate(app, cids, args.seconds, False)
            off.append(rate)
            cpu_off.append(cpu)
            rate, size, cpu = pg_on.measure(lambda: ledger_rate(app, cids, args.seconds, True), args.seconds)
            on.append(rate)
            per_commit.append(size)
            cpu_on.append(cpu)
            spread.append(processes_rate(dsn, schema, data_dir, cids, args.seconds, args.processes))
        lat, hot_rate = hot_latencies(app, hot, args.seconds * args.rounds)
        serial, stages = stage_breakdown(app, cids[0], 200 if args.short else 2000)
        app.close()

        a, a16, b0, b1 = (statistics.median(x) for x in (raw1, raw16, off, on))
        runs = lambda xs: ", ".join(f"{x:.0f}" for x in xs)  # noqa: E731
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        if args.flush_delay_ms:
            print(f"SIMULATED DISK: every flush of this benchmark's own cluster waits {args.flush_delay_ms:g} ms more "
                  "(ops/slow_flush.c), as a network volume's does; not this machine's disk, whose figures are the "
                  "run without --flush-delay-ms")
        print(f"PostgreSQL, fsync on; {args.rounds} rounds of {args.seconds:g} s each, medians (runs in brackets); "
              f"load average {load}")
        print(f"payload: {len(payload)} bytes (one stored RulingRecorded, procedure eu:M13)")
        print(f"(a)  raw INSERT+COMMIT, 1 connection         : {a:8.0f} events/s  [{runs(raw1)}]")
        print(f"(a') raw INSERT+COMMIT, {args.writers} connections       : {a16:8.0f} events/s  [{runs(raw16)}]")
        print(f"(b0) ledger, {args.writers} writers/{args.writers} campaigns, no grouping: {b0:8.0f} events/s  [{runs(off)}]"
              f"  (CPU {statistics.median(cpu_off):.2f} ms per append)")
        print(f"(b)  ledger, {args.writers} writers/{args.writers} campaigns, group commit: {b1:8.0f} events/s  [{runs(on)}]"
              f"  ({statistics.median(per_commit):.1f} appends per commit, CPU {statistics.median(cpu_on):.2f} ms "
              "per append)")
        b2 = statistics.median(r for r, _, _ in spread)
        print(f"(b2) ledger, the same over {args.processes} processes, group commit: {b2:8.0f} events/s  "
              f"[{runs([r for r, _, _ in spread])}]  ({statistics.median(g for _, g, _ in spread):.1f} appends per "
              f"commit, CPU {statistics.median(c for _, _, c in spread):.2f} ms per append)")
        print(f"(b)/(a)  = {b1 / a:5.2f}   (target >= 3.0)")
        print(f"(b2)/(a) = {b2 / a:5.2f}   (target >= 3.0, {args.processes} processes)")
        print(f"(b)/(b0) = {b1 / b0:5.2f}   (group commit against the same writers without it)")
        results.add("run", rounds=args.rounds, seconds=args.seconds, writers=args.writers, processes=args.processes,
                    payload_bytes=len(payload), flush_delay_ms=args.flush_delay_ms)
        results.add("(a) raw, 1 connection", events_per_s=a, per_round=raw1)
        results.add("(a') raw, writers' connections", events_per_s=a16, per_round=raw16)
        results.add("(b0) ledger, no grouping", events_per_s=b0, per_round=off,
                    cpu_ms_per_append=statistics.median(cpu_off))
        results.add("(b) ledger, group commit", events_per_s=b1, per_round=on,
                    appends_per_commit=statistics.median(per_commit), cpu_ms_per_append=statistics.median(cpu_on))
        results.add("(b2) ledger over processes", events_per_s=b2, per_round=[r for r, _, _ in spread],
                    appends_per_commit=statistics.median(g for _, g, _ in spread),
                    cpu_ms_per_append=statistics.median(c for _, _, c in spread))
        results.add("(b)/(a)", ratio=b1 / a, target=3.0)
        results.add("(b2)/(a)", ratio=b2 / a, target=3.0)
        results.add("(b)/(b0)", ratio=b1 / b0)
        print(f"(c)  hot campaign, 1 GM + 8 players: {len(lat)} appends, {hot_rate:.0f}/s; latency p50 "
              f"{pct(lat, 0.50):.1f} ms, p95 {pct(lat, 0.95):.1f} ms, p99 {pct(lat, 0.99):.1f} ms  "
              f"(target p99 <= 50 ms)")
        results.add("(c) hot campaign", appends=len(lat), per_s=hot_rate, p50_ms=pct(lat, 0.50), p95_ms=pct(lat, 0.95),
                    p99_ms=pct(lat, 0.99), target_p99_ms=50.0)
        group_size = statistics.median(per_commit)
        print(f"(d)  CPU per append by stage, one writer alone (a group of one): {serial:.3f} ms in all")
        for stage, ms in stages.items():
            print(f"       {stage:32s} {ms:6.3f} ms" + (f"   (/{group_size:.1f} appends per commit in (b): "
                                                         f"{ms / group_size:.3f} ms per append)"
                                                         if stage == STAGES[-1] else ""))
        print(f"       {'the rest (execute, queue, caches)':32s} {serial - sum(stages.values()):6.3f} ms")
        results.add("(d) CPU per append by stage", total_ms=serial,
                    stages_ms={**stages, "the rest (execute, queue, caches)": serial - sum(stages.values())},
                    appends_per_commit=group_size)
        # What bounds (b): the CPU of one append, the ledger's and PostgreSQL's, on the machine's cores.
        ledger_ms, raw_pg, on_pg = statistics.median(cpu_on), pg_raw.per_event(), pg_on.per_event()
        cores = os.cpu_count() or 1
        if raw_pg is not None and on_pg is not None:
            one = 1000 / ledger_ms  # one process: its Python runs on one core at a time (the GIL)
            machine = 1000 * cores / (ledger_ms + on_pg)
            print(f"(e)  PostgreSQL's CPU per event: raw INSERT+COMMIT {raw_pg:.3f} ms; ledger append, group commit "
                  f"{on_pg:.3f} ms. CPU bounds: one process (one core for the ledger's {ledger_ms:.3f} ms) "
                  f"{one:.0f} events/s = {one / a:.2f} x (a); {cores} cores (ledger + PostgreSQL) {machine:.0f} "
                  f"events/s = {machine / a:.2f} x (a)")
            results.add("(e) PostgreSQL's CPU per event", raw_ms=raw_pg, ledger_ms=on_pg,
                        one_process_events_per_s=one, machine_events_per_s=machine)
        else:
            print("(e)  PostgreSQL's CPU per event: not measured (a cluster this benchmark did not start)")
            results.add("(e) PostgreSQL's CPU per event", raw_ms=None, ledger_ms=None)
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
        if pg_dir:
            subprocess.run([str(ROOT / "ops" / "pg.sh"), "stop", pg_dir], check=False)


if __name__ == "__main__":
    main()
