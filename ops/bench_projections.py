"""Benchmark of the read side on PostgreSQL: raw read vs full rebuild, peak memory, state-at-N latency.

    . /work/pg.env   # or any LEDGER_POSTGRES_DSN
    python ops/bench_projections.py --events 300000      # default 300,000; --events 20000 for a quick run

Creates a fresh schema, generates a campaign through the real application
(ops/generate_campaign.py, seed 1), then measures
(a) a raw psycopg read of every event row plus orjson decoding,
(b) a full rebuild of every view (map, victory, timeline, budget, the public sheets, the turn groups) in this
process, (b') the same with the views split over two processes (``ledger
rebuild --jobs 2``: one reads the log and hands each page to the other), each
beside the CPU of the server's processes serving it, and prints the rates and (b)/(a) (target ≥ 0.50), the peak RSS of this
process (target ≤ 500 MB), and state-at-N latency p50/p95 over 200 random N
(target p95 ≤ 50 ms). The schema is dropped afterwards unless --keep.
``--shares`` also rebuilds each view alone (its CPU and wall time), ``--profile FILE`` profiles one rebuild,
``--stages`` prints each view's CPU by stage in memory (its events decoded and applied, its rows formatted; nothing
written: on a shared machine, a figure that the others' load moves less than the wall time).
Each figure is printed beside its target and the baseline measured before
issue 17's rebuild work (BASELINES, the nearer size). ``--short``: a few hundred events, one
round, for the test suite (it checks the lines, never the timings). ``--results FILE``: each figure also as a
JSON row of FILE (ops/results.py), what the tests read.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson  # noqa: E402
import psycopg  # noqa: E402

from ledger.application import Ledger  # noqa: E402
from ledger.config import Settings  # noqa: E402
from ledger.supervision import SteadyGC  # noqa: E402
from ops.generate_campaign import generate  # noqa: E402
from ops.results import Results, add_option  # noqa: E402
from projections import replay  # noqa: E402
from projections.runner import Projector  # noqa: E402
from projections.views import VIEW_CLASSES  # noqa: E402


#: Figures before this work, printed beside the new ones: at 20,001 events on an idle machine (stop 20's note,
#: main at 77e615b), and at 300,015 events the last stop's final figures on this machine idle (stop 22, main at
#: 97f07de, bench300k: /work/bench/final22/projections.txt), with the share of each view's CPU measured alone.
BASELINES = {
    20_000: {"raw": "83,502 events/s", "rebuild": "29,703 events/s", "ratio": "0.36", "ratio2": "0.52",
             "rss": "178 MB", "state_p95": "69.3 ms", "shares": "not measured", "cpu": "not measured"},
    300_000: {"raw": "89,874 events/s", "rebuild": "22,843 events/s", "ratio": "0.25", "ratio2": "1.12",
              "rss": "594 MB", "state_p95": "15.4 ms", "cpu": "9.68 s",
              "shares": "CPU alone (read + decode included): map 5.2 s, victory 4.9, timeline 6.7, budget 3.5"},
}
#: The last stop's final figures at 300,015 events on this machine idle (stop 25, main at e236821, bench300k:
#: /work/bench/final25/projections.txt), printed beside the issue's baseline above.
LAST = {300_000: {"raw": "79,932 events/s", "rebuild": "34,580 events/s", "ratio": "0.43", "ratio2": "0.97",
                  "cpu": "7.79 s", "cpu2": "5.79 s + 4.34 s", "rss": "652 MB", "state_p95": "18.5 ms",
                  "stages": "not measured"}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=300_000)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3, help="alternating measurements of (a), (b) and (b')")
    ap.add_argument("--jobs", type=int, default=2, help="processes of (b')")
    ap.add_argument("--keep", action="store_true", help="keep the schema (print its name) for --reuse")
    ap.add_argument("--reuse", metavar="SCHEMA", help="measure a campaign kept by an earlier --keep run")
    ap.add_argument("--short", action="store_true", help="300 events, 1 round, 20 samples (the test suite)")
    ap.add_argument("--shares", action="store_true",
                    help="also rebuild each view alone: its CPU and wall time (the share of each view)")
    ap.add_argument("--stages", action="store_true",
                    help="also each view's CPU by stage, in memory (decoded and applied; rows formatted; no writes)")
    ap.add_argument("--ab", metavar="VIEW,VIEW",
                    help="also, in each round, a single-process rebuild without these views (the measurement only): "
                         "their cost is the difference, in the same rounds as (b)")
    ap.add_argument("--split", metavar="A,B/C,D", action="append", default=[],
                    help="also, in each round, (b') with these groups of views (this process's first; repeatable)")
    ap.add_argument("--profile", metavar="FILE",
                    help="also profile one single-process rebuild (cProfile, CPU time) into FILE; prints its top")
    add_option(ap)
    args = ap.parse_args()
    results = Results(args.results)
    if args.short:
        args.events, args.rounds, args.samples = 300, 1, 20
    dsn = (os.environ.get("LEDGER_POSTGRES_OWNER_DSN") or os.environ.get("LEDGER_POSTGRES_DSN"))
    if not dsn:
        sys.exit("set LEDGER_POSTGRES_DSN (e.g. `. /work/pg.env`)")
    schema = args.reuse or f"bench_{uuid.uuid4().hex[:8]}"
    if not args.reuse:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
    settings = Settings(store="postgres", postgres_dsn=dsn, postgres_schema=schema, pool_size=4)
    ledger = Ledger(settings)
    try:
        if args.reuse:
            [state] = ledger.campaigns()
            head = state.version
            print(f"reusing schema {schema}: {head} events")
        else:
            t0 = time.perf_counter()
            head = generate(ledger, "bench", args.events, seed=1, turn_size=1000,
                            progress=lambda h: print(f"\rgenerating: {h} events", end="", file=sys.stderr))
            gen = time.perf_counter() - t0
            print(f"\ngenerated {head} events in {gen:.0f} s through the application ({head / gen:,.0f}/s)")
            [state] = ledger.campaigns()
        cid = state.id

        def raw_read(binary: bool = False) -> tuple[int, float]:
            """(a) raw read + decode: a psycopg server-side cursor and orjson, nothing else (``binary``: the
            results in binary format, as the runner reads its pages: (a'), printed for comparison)."""
            t0 = time.perf_counter()
            n = 0
            with psycopg.connect(dsn) as conn, conn.cursor(name="raw", binary=binary) as cur:
                cur.itersize = 5000
                cur.execute(f'SELECT notification_id, originator_id, originator_version, topic, state '
                            f'FROM "{schema}".ledger_events ORDER BY notification_id')
                for row in cur:
                    orjson.loads(row[4])
                    n += 1
            return n, time.perf_counter() - t0

        # The machine is shared: (a), (b) and (b') alternate for --rounds rounds and the medians are compared,
        # so each sees the same load. CPU seconds of this process are printed beside (b') spawns processes.
        projector = Projector(ledger, page=5000)
        raws, raws_binary, rebuilds, rebuilds2, cpu_raw, cpu_rebuild = [], [], [], [], [], []
        cpu_rebuild2: list[tuple[float, float]] = []
        srv_rebuild: list[float | None] = []  # CPU seconds of the server's processes serving the rebuild
        srv_rebuild2: list[float | None] = []
        left_out = [n for n in (args.ab or "").split(",") if n]
        unknown = [n for n in left_out if n not in VIEW_CLASSES]
        if unknown:
            sys.exit(f"--ab: no view named {', '.join(unknown)} (views: {', '.join(VIEW_CLASSES)})")
        without = Projector(ledger, [n for n in VIEW_CLASSES if n not in left_out], page=5000) if left_out else None
        splits = [[g.split(",") for g in text.split("/")] for text in args.split]
        by_split: list[list[float]] = [[] for _ in splits]
        cpu_split: list[list[tuple[float, float]]] = [[] for _ in splits]
        ab: list[tuple[float, float, float, float]] = []  # per round: (b) wall, (b) CPU, without wall, CPU
        for _ in range(args.rounds):
            c0 = time.process_time()
            n, raw = raw_read()
            cpu_raw.append(time.process_time() - c0)
            raws.append(n / raw)
            n, raw = raw_read(binary=True)
            raws_binary.append(n / raw)
            # (b) full rebuild
            c0, t0 = time.process_time(), time.perf_counter()
            with ServerCPU(dsn) as server:
                done = projector.rebuild(restart=True)["events"]
            rebuilds.append(done / (time.perf_counter() - t0))
            cpu_rebuild.append(time.process_time() - c0)
            srv_rebuild.append(server.seconds)
            # (b') the same rebuild with the views split over two processes (`ledger rebuild --jobs 2`)
            t0, c0, k0 = time.perf_counter(), time.process_time(), _children_cpu()
            with ServerCPU(dsn) as server:
                projector.rebuild(restart=True, jobs=args.jobs)
            rebuilds2.append(head / (time.perf_counter() - t0))
            srv_rebuild2.append(server.seconds)
            cpu_rebuild2.append((time.process_time() - c0, _children_cpu() - k0))
            for i, split in enumerate(splits):  # right after (b'), the same load
                t0, c0, k0 = time.perf_counter(), time.process_time(), _children_cpu()
                projector.rebuild(restart=True, jobs=len(split), groups=split)
                by_split[i].append(head / (time.perf_counter() - t0))
                cpu_split[i].append((time.process_time() - c0, _children_cpu() - k0))
            if without is not None:  # right after (b): the same load, the views left out at their head meanwhile
                _forget(projector)  # one rebuild's caches at a time, as in (b) and (b'): the peak RSS is one's
                c0, t0 = time.process_time(), time.perf_counter()
                without.rebuild(restart=True)
                _forget(without)
                ab.append((done / rebuilds[-1], cpu_rebuild[-1], time.perf_counter() - t0, time.process_time() - c0))
        raw_rate, rebuild_rate, rebuild2_rate = (statistics.median(x) for x in (raws, rebuilds, rebuilds2))
        shares = _shares(ledger) if args.shares else None
        if args.profile:
            _profile(ledger, args.profile)

        # state at N, under the serving process's garbage-collection rule (api/main.py: full collections on a
        # clock, young ones every 10,000 objects, the start-up heap frozen): under Python's own, a full
        # collection of this process (50-100 ms) fell in one read in ten, which no served read pays.
        gc_rule = SteadyGC(ledger.settings.full_gc_seconds, ledger.settings.young_gc_objects).start().settle()
        rng = random.Random(1)
        lat, cpu = [], []
        for _ in range(args.samples):
            at = rng.randint(1, head)
            c0, t0 = time.process_time(), time.perf_counter()
            replay.state_at(ledger, projector.db, cid, at)
            lat.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        gc_rule.stop()
        lat.sort()
        p50 = statistics.median(lat)
        p95 = lat[int(0.95 * len(lat)) - 1]
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        stages = _stages(ledger) if args.stages else None  # after the peak RSS is read: not counted in it
        BASELINE = BASELINES[min(BASELINES, key=lambda size: abs(size - head))]
        last = LAST.get(min(BASELINES, key=lambda size: abs(size - head)))
        was = (lambda key: f"; last {last[key]}") if last else (lambda key: "")  # noqa: E731
        cpu.sort()
        print(f"events: {head}" + ("" if args.reuse else f" (asked {args.events})"))
        results.add("events", count=head, asked=None if args.reuse else args.events, rounds=args.rounds)
        runs = lambda xs: ", ".join(f"{x:,.0f}" for x in xs)  # noqa: E731
        print(f"{args.rounds} alternating rounds; medians, each round in brackets; load average {_load()}")
        print(f"(a) raw psycopg read + orjson decode: {n} rows: {raw_rate:,.0f} events/s  [{runs(raws)}]; "
              f"CPU {statistics.median(cpu_raw):.2f} s  (baseline {BASELINE['raw']}{was('raw')})")
        results.add("(a) raw read", rows=n, events_per_s=raw_rate, per_round=raws, cpu_s=statistics.median(cpu_raw),
                    baseline=BASELINE["raw"])
        print(f"(a') the same read with binary results (how the runner reads its pages): "
              f"{statistics.median(raws_binary):,.0f} events/s  [{runs(raws_binary)}]; (b)/(a') = "
              f"{rebuild_rate / statistics.median(raws_binary):.2f}  (for comparison: the target is against (a))")
        results.add("(a') raw read, binary", events_per_s=statistics.median(raws_binary), per_round=raws_binary,
                    rebuild_ratio=rebuild_rate / statistics.median(raws_binary))
        print(f"(b) full rebuild ({', '.join(VIEW_CLASSES)}): {done} events: {rebuild_rate:,.0f} events/s  "
              f"[{runs(rebuilds)}]; CPU {statistics.median(cpu_rebuild):.2f} s, the server's {_median(srv_rebuild)}  "
              f"(baseline {BASELINE['rebuild']}, CPU {BASELINE['cpu']}{was('rebuild')}"
              f"{', CPU ' + last['cpu'] if last else ''})")
        results.add("(b) full rebuild", events=done, events_per_s=rebuild_rate, per_round=rebuilds,
                    cpu_s=statistics.median(cpu_rebuild), server_cpu_s=_median_s(srv_rebuild),
                    baseline=BASELINE["rebuild"])
        print(f"(b)/(a) = {rebuild_rate / raw_rate:.2f}  (target >= 0.50; baseline {BASELINE['ratio']}{was('ratio')}; "
              f"per round: "
              f"{', '.join(f'{b / a:.2f}' for a, b in zip(raws, rebuilds))})")
        results.add("(b)/(a)", ratio=rebuild_rate / raw_rate, target=0.5, baseline=BASELINE["ratio"],
                    per_round=[b / a for a, b in zip(raws, rebuilds)])
        print(f"(b') full rebuild, views over {args.jobs} processes: {rebuild2_rate:,.0f} events/s  "
              f"[{runs(rebuilds2)}]; (b')/(a) = {rebuild2_rate / raw_rate:.2f}, "
              f"(b')/(b) = {rebuild2_rate / rebuild_rate:.2f}  (target >= 1.0; baseline {BASELINE['ratio2']}"
              f"{was('ratio2')}; per round: {', '.join(f'{b2 / b:.2f}' for b, b2 in zip(rebuilds, rebuilds2))}); CPU "
              f"this process {statistics.median(c for c, _ in cpu_rebuild2):.2f} s + the other "
              f"{statistics.median(k for _, k in cpu_rebuild2):.2f} s, the server's {_median(srv_rebuild2)}"
              f"{'  (last ' + last['cpu2'] + ')' if last else ''}")
        results.add("(b') full rebuild over processes", jobs=args.jobs, events_per_s=rebuild2_rate, per_round=rebuilds2,
                    ratio_to_a=rebuild2_rate / raw_rate, ratio_to_b=rebuild2_rate / rebuild_rate, target=1.0,
                    baseline=BASELINE["ratio2"], cpu_this_s=statistics.median(c for c, _ in cpu_rebuild2),
                    cpu_other_s=statistics.median(k for _, k in cpu_rebuild2), server_cpu_s=_median_s(srv_rebuild2))
        for text, rates, cpus in zip(args.split, by_split, cpu_split):
            print(f"(b') with the groups {text}: {statistics.median(rates):,.0f} events/s  [{runs(rates)}]; against "
                  f"(b): {statistics.median(rates) / rebuild_rate:.2f}  (per round: "
                  f"{', '.join(f'{x / b:.2f}' for b, x in zip(rebuilds, rates))}); CPU this process "
                  f"{statistics.median(c for c, _ in cpus):.2f} s + the other {statistics.median(k for _, k in cpus):.2f} s")
            results.add("(b') with groups", groups=text, events_per_s=statistics.median(rates), per_round=rates,
                        ratio_to_b=statistics.median(rates) / rebuild_rate,
                        cpu_this_s=statistics.median(c for c, _ in cpus),
                        cpu_other_s=statistics.median(k for _, k in cpus))
        if ab:
            med = [statistics.median(x[i] for x in ab) for i in range(4)]
            print(f"A/B, (b) against a rebuild without {', '.join(left_out)} in the same rounds: wall {med[0]:.2f} s "
                  f"against {med[2]:.2f} s ({med[0] - med[2]:+.2f} s), CPU {med[1]:.2f} s against {med[3]:.2f} s "
                  f"({med[1] - med[3]:+.2f} s, {(med[1] - med[3]) / done * 1e6:.1f} us an event); per round (wall, CPU "
                  f"with / without): {'; '.join(f'{a:.2f}/{c:.2f} s, {b:.2f}/{d:.2f} s' for a, b, c, d in ab)}")
            results.add("A/B", left_out=left_out, wall_s=med[0], wall_without_s=med[2], cpu_s=med[1],
                        cpu_without_s=med[3], us_per_event=(med[1] - med[3]) / done * 1e6)
        if shares:
            print(f"each view rebuilt alone (read + decode included): {shares}  (baseline {BASELINE['shares']})")
            results.add("each view rebuilt alone", views=shares)
        if stages:
            print(f"CPU by stage in memory (this process, nothing written; pages of 5,000): {stages}"
                  f"{'  (last ' + last['stages'] + ')' if last else ''}")
            results.add("CPU by stage in memory", stages=stages)
        print(f"peak RSS: {rss:.0f} MB  (target <= 500 MB; baseline {BASELINE['rss']}{was('rss')})")
        results.add("peak RSS", mb=rss, target_mb=500, baseline=BASELINE["rss"])
        print(f"state at N over {len(lat)} random N: p50 {p50:.1f} ms, p95 {p95:.1f} ms  "
              f"(target p95 <= 50 ms; baseline {BASELINE['state_p95']}{was('state_p95')}); "
              f"CPU of this process per read p50 {statistics.median(cpu):.1f} ms, "
              f"p95 {cpu[int(0.95 * len(cpu)) - 1]:.1f} ms; the service's collection rule (full every "
              f"{ledger.settings.full_gc_seconds:g} s, young every {ledger.settings.young_gc_objects:,} objects, "
              f"start-up heap frozen)")
        results.add("state at N", n=len(lat), p50_ms=p50, p95_ms=p95, target_ms=50.0, cpu_p50_ms=statistics.median(cpu),
                    cpu_p95_ms=cpu[int(0.95 * len(cpu)) - 1], baseline=BASELINE["state_p95"])
    finally:
        ledger.close()
        if args.keep or args.reuse:
            print(f"schema kept: {schema} (python ops/bench_projections.py --reuse {schema})")
        else:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def _forget(projector: Projector) -> None:
    """Drop a projector's cached documents and budgets (a rebuild forgets them when it starts, not when it ends)."""
    for v in projector.views:
        v.forget()


def _shares(ledger: Ledger) -> str:
    """Each view rebuilt alone in this process: its CPU and wall seconds (the share of each view)."""
    out = []
    for name in VIEW_CLASSES:
        c0, t0 = time.process_time(), time.perf_counter()
        Projector(ledger, [name], page=5000).rebuild(restart=True)
        out.append(f"{name} {time.process_time() - c0:.1f} s CPU / {time.perf_counter() - t0:.1f} s wall")
    return "; ".join(out)


def _stages(ledger: Ledger) -> str:
    """The CPU seconds of each stage of a rebuild's main thread, in memory: the events decoded and handed to the
    views (``Projector._apply``: each view alone, then all of them), their rows formatted for the writer
    (``View.flush`` into ``DeferredWrites``), and orjson decoding every event for comparison. The views start
    empty: their tables are emptied in a transaction that is rolled back, so nothing is written or kept."""
    from projections.store import DeferredWrites

    out = []
    sets: list[list[str] | None] = [[name] for name in VIEW_CLASSES] + [None]
    with ledger.recorder.datastore.transaction(commit=False) as cur:  # rolled back: the views stay as they are
        decode = 0.0
        for names in sets:
            projector = Projector(ledger, names, page=5000)
            for v in projector.views:
                v.reset(cur)  # empty, as a rebuild starts; undone with the transaction
            applied = formatted = 0.0
            after = 0
            while rows := projector.db.read_events(cur, after, 5000):
                after = rows[-1][0]
                if names is None:
                    c0 = time.process_time()
                    for row in rows:
                        orjson.loads(row[4])
                    decode += time.process_time() - c0
                c0 = time.process_time()
                projector._apply(cur, rows, [(v, 0, after) for v in projector.views])
                c1 = time.process_time()
                writes = DeferredWrites(cur)
                for v in projector.views:
                    v.flush(writes)
                    v.committed()
                formatted += time.process_time() - c1
                applied += c1 - c0
            out.append(f"{'all views' if names is None else names[0]} {applied:.2f} s applied + {formatted:.2f} s "
                       "formatted")
    return "; ".join(out) + f"; orjson decoding every event {decode:.2f} s"


def _profile(ledger: Ledger, path: str) -> None:
    """One single-process rebuild under cProfile, timed in CPU seconds (the machine is shared); its top 25 by own
    time, and the whole profile in ``path`` (``python -m pstats``). Calls of a few microseconds weigh more
    under the profiler than they cost: read it beside the CPU figures, not alone."""
    import cProfile
    import pstats

    profiler = cProfile.Profile(time.process_time)
    projector = Projector(ledger, page=5000)
    profiler.runcall(projector.rebuild, restart=True)
    profiler.dump_stats(path)
    print(f"profile of one rebuild (CPU time) in {path}; its top 25 by own time:")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(25)


class ServerCPU:
    """CPU seconds the PostgreSQL backends connected to the benchmark's database spent meanwhile (read from
    /proc: a server on this machine, readable by this user; ``seconds`` None otherwise). Sampled every 50 ms,
    so that the backends of a rebuild's processes count once they have ended; a 2-core machine shares its
    cores with the server, and two processes each reading the log doubled the server's reading."""

    def __init__(self, dsn: str):
        self.dsn = dsn
        self.start: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.failed = False

    def _sample(self, conn: Any, first: bool = False) -> None:
        for (pid,) in conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                                   "AND pid <> pg_backend_pid()").fetchall():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                if first:
                    self.failed = True  # another machine's server, or not ours to read
                continue
            cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            self.start.setdefault(pid, cpu if first else 0.0)
            self.last[pid] = cpu

    def _run(self) -> None:
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            self._sample(conn, first=True)
            self._started.set()
            while not self._stop.wait(0.05):
                self._sample(conn)
            self._sample(conn)

    def __enter__(self) -> ServerCPU:
        import threading

        self._stop, self._started = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._started.wait(10)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def seconds(self) -> float | None:
        if self.failed or not self.last:
            return None
        return sum(cpu - self.start.get(pid, 0.0) for pid, cpu in self.last.items())


def _median_s(xs: list[float | None]) -> float | None:
    """The median of the server's CPU seconds, None when any round could not measure it (a remote server)."""
    known = [x for x in xs if x is not None]
    return statistics.median(known) if known and len(known) == len(xs) else None


def _median(xs: list[float | None]) -> str:
    seconds = _median_s(xs)
    return f"{seconds:.2f} s" if seconds is not None else "not measured (remote server)"


def _children_cpu() -> float:
    """CPU seconds of this process's ended children (the processes of ``rebuild --jobs``)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _load() -> str:
    """The 1-minute load average (figures on a shared machine are read beside it)."""
    return f"{os.getloadavg()[0]:.2f}"


if __name__ == "__main__":
    main()
