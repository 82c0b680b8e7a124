"""Benchmark: notifications keep up with many campaigns (issue 38, item 5).

    python ops/bench_notify.py --short          # seconds: 20 campaigns
    python ops/bench_notify.py                  # the issue's run: 200 campaigns

Uses whatever store the LEDGER_* environment selects (SQLite by default, in a temporary directory). Each campaign
is the sample's corner of the board in its military phase; an append is a move of England's fleet between two sea
zones (public: it touches England, so England's endpoint and the game master's are told). The same appends are
measured three times in one run, from two client threads, round-robin over the campaigns:

- raw baseline: the appends alone (no view follows the log, nobody is told);
- without the outbox: the projection runner follows the log with every view but the outbox;
- with the outbox: every view, the outbox among them, and the delivery worker sending to a local receiver
  (an HTTP server in a process of its own; four endpoints per campaign: three players and the game master).

It prints each mode's append p50 / p95 / p99, the outbox's cost (p99 with against without; target <= 10 %), and
the latency from each append's return to the receiver's arrival of its messages, p50 / p95 (target p95 <= 2 s).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson  # noqa: E402

from ledger.application import Actor, Ledger  # noqa: E402
from ledger.config import Settings  # noqa: E402
from ledger.domain import commands as cmd  # noqa: E402
from ledger.notify.signing import new_endpoint_id  # noqa: E402
from ledger.sample import GM, reach_phase  # noqa: E402
from ledger.scenario import import_scenario, load_text  # noqa: E402
from ops.results import Results, add_option  # noqa: E402
from projections.delivery import DeliveryWorker  # noqa: E402
from projections.runner import Projector, ProjectionRunner  # noqa: E402
from projections.views import VIEW_CLASSES  # noqa: E402

DELIVERY_P95_S = 2.0
OUTBOX_COST = 0.10
PLAYERS = {"ENG": "alice", "FRA": "bruno", "SPA": "carla"}
FRA = "  - {code: FRA, name: France, player: bruno, treasury: 150, stability: 0}\n"


def _serve(port_out, log_path: str) -> None:
    """The receiver, in a process of its own (the service's process is what is measured): each message's
    (campaign, position, path) and its arrival time, one JSON line each."""
    log = open(log_path, "a", buffering=1)  # noqa: SIM115 - open for the process's life
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802
            body = orjson.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            line = orjson.dumps([body["campaign"], body["position"], self.path, time.time()]).decode()
            with lock:
                log.write(line + "\n")
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port_out.send(server.server_address[1])
    server.serve_forever()


class Receiver:
    """A local webhook receiver in another process; ``arrived()``: (campaign, position, path) -> first arrival."""

    def __init__(self, folder: str) -> None:
        import multiprocessing

        self.log = str(Path(folder) / "arrivals.jsonl")
        ctx = multiprocessing.get_context("spawn")
        here, there = ctx.Pipe(duplex=False)
        self.process = ctx.Process(target=_serve, args=(there, self.log), daemon=True)
        self.process.start()
        self.port = here.recv()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def arrived(self) -> dict[tuple[str, int, str], float]:
        out: dict[tuple[str, int, str], float] = {}
        try:
            lines = Path(self.log).read_text().splitlines()
        except FileNotFoundError:
            return out
        for line in lines:
            if line.endswith("]"):
                c, p, path, t = orjson.loads(line)
                out.setdefault((c, p, path), t)
        return out

    def close(self) -> None:
        self.process.terminate()
        self.process.join(5)


def pct(xs: list[float], q: float) -> float:
    return sorted(xs)[max(0, min(len(xs) - 1, int(round(len(xs) * q)) - 1))] if xs else float("nan")


def setup(ledger: Ledger, n: int) -> list:
    text = load_text("sample").replace(FRA, FRA + "  - {code: SPA, name: Spain, player: carla, treasury: 90, "
                                                  "stability: 0}\n")
    cids = []
    for i in range(n):
        cid, _ = import_scenario(ledger, text, slug=f"notify-{i}", actor=GM)
        ledger.open_turn(cid, actor=GM)
        reach_phase(ledger, cid, "military")
        cids.append(cid)
    return cids


def appends(ledger: Ledger, cids: list, per_campaign: int, where: dict, threads: int = 2) -> tuple[list, dict]:
    """``per_campaign`` moves of ENG-F1 in each campaign, round-robin, from ``threads`` clients; returns the
    latencies (ms) and, per (campaign, position), when its append returned."""
    jobs = [cid for _ in range(per_campaign) for cid in cids]
    took: list[float] = []
    returned: dict[tuple[str, int], float] = {}
    lock = threading.Lock()

    def client(k: int) -> None:
        for cid in jobs[k::threads]:
            with lock:  # one move at a time per campaign: its fleet's place is known
                here = where[cid]
                there = "Celtique" if here == "Manche" else "Manche"
                where[cid] = there
            context = {"phase": "military", "round": "S1", "impulse": "ENG"}
            t0 = time.perf_counter()
            result = ledger.handle(cid, cmd.build(cmd.MoveStack, stack="ENG-F1", origin=here, destination=there,
                                                  reason="patrol", context=context), actor=GM)
            now = time.time()
            dt = (time.perf_counter() - t0) * 1000
            with lock:
                took.append(dt)
                returned[(str(cid), result.events[-1]["position"])] = now

    workers = [threading.Thread(target=client, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return took, returned


def report(results: Results, name: str, took: list[float]) -> dict:
    row = {"n": len(took), "p50_ms": statistics.median(took), "p95_ms": pct(took, 0.95), "p99_ms": pct(took, 0.99)}
    print(f"  append, {name:<22} p50 {row['p50_ms']:7.2f} ms  p95 {row['p95_ms']:7.2f} ms  p99 {row['p99_ms']:7.2f} ms"
          f"  ({row['n']} appends)")
    results.add(f"append ({name})", **row)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--campaigns", type=int, default=200)
    ap.add_argument("--appends", type=int, default=10, help="appends per campaign and mode")
    ap.add_argument("--short", action="store_true", help="20 campaigns, 5 appends each: seconds")
    add_option(ap)
    args = ap.parse_args()
    n, per = (20, 5) if args.short else (args.campaigns, args.appends)
    results = Results(args.results)
    with tempfile.TemporaryDirectory() as tmp:
        receiver = Receiver(tmp)
        ledger = Ledger(Settings(data_dir=Path(tmp), notify_timeout=5.0))
        try:
            t0 = time.perf_counter()
            cids = setup(ledger, n)
            Projector(ledger).catch_up()
            where = {cid: "Manche" for cid in cids}
            print(f"{n} campaigns ({ledger.settings.backend}), set up in {time.perf_counter() - t0:.1f} s; "
                  f"{per} appends per campaign and mode")
            raw = report(results, "raw baseline", appends(ledger, cids, per, where)[0])
            Projector(ledger).catch_up()

            others = [v for v in VIEW_CLASSES if v != "outbox"]
            runner = ProjectionRunner(ledger, views=others).start()
            without = report(results, "views, no outbox", appends(ledger, cids, per, where)[0])
            runner.stop()
            Projector(ledger).catch_up()

            players = {c: Actor(name, "player", c) for c, name in PLAYERS.items()}
            for cid in cids:
                for c, actor in players.items():
                    ledger.handle(cid, cmd.build(cmd.RegisterEndpoint, kind="json", target=receiver.url(f"/{c}"),
                                                 topics=["moves"]), actor=actor, endpoint_id=new_endpoint_id())
                ledger.handle(cid, cmd.build(cmd.RegisterEndpoint, kind="json", target=receiver.url("/gm"),
                                             topics=["moves"]), actor=GM, endpoint_id=new_endpoint_id())
            Projector(ledger).catch_up()

            runner = ProjectionRunner(ledger).start()
            worker = DeliveryWorker(ledger).start()
            took, returned = appends(ledger, cids, per, where)
            withbox = report(results, "views and outbox", took)
            expected = {(c, p, path) for c, p in returned for path in ("/ENG", "/gm")}
            deadline = time.time() + 120
            arrived = receiver.arrived()
            while time.time() < deadline and not expected <= arrived.keys():
                time.sleep(0.2)
                arrived = receiver.arrived()
            worker.stop()
            runner.stop()
            lat = [arrived[k] - returned[k[:2]] for k in expected if k in arrived]
            stray = [k for k in arrived if k[2] not in ("/ENG", "/gm")]  # FRA, SPA: not touched
            missing = len(expected) - len(lat)
            cost = withbox["p99_ms"] / without["p99_ms"] - 1
            p95 = pct(lat, 0.95)
            dverdict = "PASS" if p95 <= DELIVERY_P95_S and not missing else "MISS"
            cverdict = "PASS" if cost <= OUTBOX_COST else "MISS"
            print(f"  outbox's cost on append p99: {cost * 100:+.1f} % (target <= {OUTBOX_COST * 100:.0f} %: "
                  f"{cverdict}); raw baseline p99 {raw['p99_ms']:.2f} ms")
            print(f"  append to delivery: p50 {statistics.median(lat) if lat else float('nan'):.3f} s  "
                  f"p95 {p95:.3f} s  ({len(lat)} messages; missing {missing}; to endpoints not concerned "
                  f"{len(stray)}) (target p95 <= {DELIVERY_P95_S:.0f} s: {dverdict})")
            results.add("outbox cost on append p99", ratio=cost, target=OUTBOX_COST, verdict=cverdict)
            results.add("append to delivery", n=len(lat), p50_s=statistics.median(lat) if lat else None,
                        p95_s=p95, missing=missing, stray=len(stray), target_s=DELIVERY_P95_S, verdict=dverdict,
                        campaigns=n)
        finally:
            ledger.close()
            receiver.close()


if __name__ == "__main__":
    main()
