"""Benchmark: working out every major's income lines at the head reads no history (issue 36).

    python ops/bench_income.py --short                  # seconds: a 2,000-event campaign
    python ops/bench_income.py --events 300000          # the issue's campaign (minutes to generate)

Uses whatever store the LEDGER_* environment selects (SQLite by default, in a temporary directory). Generates a
campaign through the real application (ops/generate_campaign.py, the sample's corner of the board, 8 majors),
then measures, on a warm ledger:

- the raw baseline, in the same run: reading the write-side state at the head (``Ledger.campaign``, what any
  request does first);
- ``work_out_all`` for the eight majors at the head, p50 / p95 (target p95 <= 50 ms), and the history rows it
  read (counted at the recorder: must be 0);
- the same on the whole 1492 board (783 places, every province's owner, controller and markers in the state),
  the largest state a campaign has.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ledger.application import Actor, Ledger  # noqa: E402
from ledger.config import Settings  # noqa: E402
from ledger.domain import commands as cmd  # noqa: E402
from ledger.domain.campaign import campaign_id  # noqa: E402
from ledger.economy.board_income import work_out_all  # noqa: E402
from ops.generate_campaign import COUNTRIES, generate  # noqa: E402
from ops.results import Results, add_option  # noqa: E402

GM = Actor("gm", "gm")
TARGET_MS = 50.0


class Counting:
    """Counts the history rows the recorder hands out while ``active``."""

    def __init__(self, recorder) -> None:
        self.rows, self.active, select = 0, False, recorder.select_events

        def counted(*args, **kwargs):
            rows = select(*args, **kwargs)
            if self.active:
                self.rows += len(rows)
            return rows

        recorder.select_events = counted


def timed(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def p95(xs: list[float]) -> float:
    return sorted(xs)[max(0, int(len(xs) * 0.95) - 1)]


def measure(results: Results, name: str, ledger: Ledger, cid, counter: Counting, n: int) -> None:
    ledger.campaign(cid)  # warm
    raw = timed(lambda: ledger.campaign(cid), n)
    state = ledger.campaign(cid)
    counter.active = True
    lines = timed(lambda: work_out_all(state, countries=tuple(COUNTRIES)), n)
    counter.active = False
    verdict = "PASS" if p95(lines) <= TARGET_MS else "MISS"
    print(f"{name}: position {state.version}")
    print(f"  read the state (baseline)   p50 {statistics.median(raw):7.3f} ms  p95 {p95(raw):7.3f} ms")
    print(f"  work_out_all, 8 majors      p50 {statistics.median(lines):7.3f} ms  p95 {p95(lines):7.3f} ms"
          f"  (target p95 <= {TARGET_MS:.0f} ms: {verdict}); history rows read: {counter.rows}")
    results.add(f"read the state ({name})", n=n, p50_ms=statistics.median(raw), p95_ms=p95(raw))
    results.add(f"work_out_all 8 majors ({name})", n=n, p50_ms=statistics.median(lines), p95_ms=p95(lines),
                target_ms=TARGET_MS, verdict=verdict, history_rows=counter.rows, position=state.version)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=300_000)
    ap.add_argument("--short", action="store_true", help="a 2,000-event campaign and 50 runs: seconds")
    ap.add_argument("--runs", type=int, default=200)
    add_option(ap)
    args = ap.parse_args()
    events, runs = (2000, 50) if args.short else (args.events, args.runs)
    results = Results(args.results)
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger(Settings(data_dir=Path(tmp)))
        try:
            counter = Counting(ledger.recorder)
            generate(ledger, "bench-income", events, seed=1)
            measure(results, f"generated campaign, {events} events", ledger, campaign_id("bench-income"),
                    counter, runs)
            cid = campaign_id("bench-1492")
            ledger.handle(cid, cmd.CreateCampaign(slug="bench-1492", name="1492", ruleset="eu",
                                                  scenario="eu-1492"), actor=GM)
            ledger.open_turn(cid, actor=GM)
            ledger.handle(cid, cmd.PlaceMarker(province="Beira", marker="Revolt"), actor=GM)
            measure(results, "the 1492 board", ledger, cid, counter, runs)
        finally:
            ledger.close()


if __name__ == "__main__":
    main()
