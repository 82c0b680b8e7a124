"""Drill: kill -9 of every part of the service, under write load: workers, the follower, the master, the whole
service, and PostgreSQL.

    python ops/drills/kill9.py            # K = 10, throwaway PostgreSQL, `ledger serve --workers 2`, 4 writers
    python ops/drills/kill9.py --short    # K = 2

1. K rounds: one uvicorn worker killed (uvicorn's master starts another), then the follower (`ledger serve`
   restarts it; /ready shows the new pid alive).
2. The master killed alone: its workers and the follower must go with it (ledger/supervision.py), and a new
   `ledger serve` on the same port takes over while the writers retry.
3. The whole service killed at once (its process group), and started again.
4. PostgreSQL killed: with a cluster of the drill's own, its postmaster (kill -9) and the cluster restarted;
   on a shared cluster (LEDGER_DRILL_POSTGRES_DSN: the test suite's), every backend of the drill's roles
   (pg_terminate_backend), since killing the cluster would kill the suite. SQLite: not applicable.

Each kill is counted, and the drill fails unless each one it planned found its target. Writers retry a lost
request with the same Idempotency-Key. Afterwards: every acknowledged write is in the history exactly once, the
chain verifies, the follower catches up (lag 0), and every view table equals a fresh rebuild (`ledger rebuild`,
service stopped).
"""

from __future__ import annotations

import os
import random
import shlex
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import (ROOT, VIEW_TABLES, Service, Store, conclude, create_campaign, figure, history,  # noqa: E402
                      ledger_cli, parser, verify)
from _load import Load  # noqa: E402


def survivors(pids: list[int], timeout: float) -> list[str]:
    """The command lines of ``pids`` still running (not zombies) after ``timeout`` seconds (as soon as none)."""
    deadline = time.monotonic() + timeout
    while True:
        alive = []
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                alive.append(pid)
        if not alive or time.monotonic() > deadline:
            return [f"{pid} {_cmdline(pid)}" for pid in alive]
        time.sleep(0.2)


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError):
        return None


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
    except OSError:
        return "(gone)"


def kill_postgres(store: Store) -> str | None:
    """Kill PostgreSQL under the service: the drill's own cluster's postmaster (restarted), or the backends of the
    drill's roles on a shared cluster. Returns what was killed, None when nothing was found."""
    if store.pg_tmp:
        data = Path(store.pg_tmp) / "data"
        postmaster = int((data / "postmaster.pid").read_text().split()[0])
        backends = [int(pid) for pid in os.listdir("/proc") if pid.isdigit() and _parent(int(pid)) == postmaster]
        os.kill(postmaster, signal.SIGKILL)
        # Its backends notice the postmaster's death and exit; a new postmaster refuses to start while they hold
        # the old shared memory. Then it starts with the options it last ran with (postmaster.opts), the dead
        # one's lock file taken over (its pid no longer runs).
        survivors(backends, 60)
        # Dead, but a zombie where nothing reaps orphans (a container's init): a new postmaster's kill(pid, 0)
        # then takes its lock file for a live server's. What an operator does once they see it dead: remove it.
        options = shlex.split((data / "postmaster.opts").read_text())[1:]
        options = [o for i, o in enumerate(options) if o != "-D" and (i == 0 or options[i - 1] != "-D")]
        if not survivors([postmaster], 10):
            (data / "postmaster.pid").unlink(missing_ok=True)
            sockets = Path(options[options.index("-k") + 1]) if "-k" in options else None
            for lock in sockets.glob(".s.PGSQL.*.lock") if sockets else ():
                lock.unlink(missing_ok=True)
        run_as = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        started = subprocess.run([*run_as, "/usr/lib/postgresql/15/bin/pg_ctl", "-D", str(data), "-l",
                                  str(Path(store.pg_tmp) / "server.log"), "-w", "-t", "60", "-o", shlex.join(options),
                                  "start"], capture_output=True, text=True)
        if started.returncode != 0:
            raise SystemExit(f"PostgreSQL did not start again: {started.stdout}{started.stderr}")
        return "postmaster (kill -9, cluster started again)"
    killed = store.sql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       f"WHERE usename IN ('{store.service}', '{store.owner}')")
    return f"{len(killed)} backends of the drill's roles (shared cluster)" if killed else None


def main() -> int:
    p = parser(__doc__)
    p.add_argument("--rounds", type=int, default=None, help="worker and follower rounds (default 10, --short 2)")
    args = p.parse_args()
    rounds = args.rounds if args.rounds is not None else 2 if args.short else 10  # the size: kill -9 x 10
    rng = random.Random(16)
    follower_restarts: list[float] = []
    kills: Counter[str] = Counter()
    planned = {"worker": rounds, "follower": rounds, "master": 1, "whole service": 1,
               "postgresql": 1 if args.store == "postgres" else 0}
    notes: list[str] = []
    with Store(args.store) as store:
        env = store.env()
        service = Service(env, workers=args.workers).start()
        try:
            create_campaign(service.base, "k9")
            service.wait_follower()
            with Load(service.base, "k9") as load:
                for _ in range(rounds):
                    time.sleep(1.5)
                    workers = service.workers_pids()
                    if workers:
                        os.kill(rng.choice(workers), signal.SIGKILL)
                        kills["worker"] += 1
                    else:
                        notes.append("no worker process to kill")
                    time.sleep(1.5)
                    follower = service.ready()["follower"]["pid"]
                    os.kill(follower, signal.SIGKILL)
                    kills["follower"] += 1
                    killed_at = time.monotonic()
                    service.wait_follower(timeout=60, not_pid=follower)
                    follower_restarts.append(time.monotonic() - killed_at)

                # The master alone: what it leaves must die with it (the port freed for the next one).
                time.sleep(1.5)
                others = [pid for pid in service.descendants() if pid != service.proc.pid]
                os.kill(service.proc.pid, signal.SIGKILL)
                kills["master"] += 1
                for left in survivors(others, 30):
                    notes.append(f"outlived the master by 30 s: {left}")
                service.stop()
                service = Service(env, workers=args.workers, port=service.port).start()
                service.wait_follower()

                # The whole service at once.
                time.sleep(1.5)
                os.killpg(service.proc.pid, signal.SIGKILL)
                kills["whole service"] += 1
                service.stop()
                service = Service(env, workers=args.workers, port=service.port).start()
                service.wait_follower()

                if args.store == "postgres":
                    time.sleep(1.5)
                    what = kill_postgres(store)
                    if what:
                        kills["postgresql"] += 1
                        notes.append(f"PostgreSQL: {what}")
                    else:
                        notes.append("PostgreSQL: nothing to kill")
                time.sleep(2.0)
            deadline = time.monotonic() + 120
            while (lag := service.ready()["projections_lag"]) and time.monotonic() < deadline:
                time.sleep(0.5)
            events = history(service.base, "k9")
            chain = verify(service.base, "k9")
        finally:
            service.stop()
        views = {t: store.rows(env, t, order) for t, order in VIEW_TABLES.items()}
        rebuilt = ledger_cli(env, "rebuild")
        fresh = {t: store.rows(env, t, order) for t, order in VIEW_TABLES.items()}
    recorded = Counter(e["payload"]["purpose"] for e in events if e["type"] == "DiceRolled")
    acked = set(load.acked)
    missing = acked - set(recorded)
    duplicated = sum(c - 1 for c in recorded.values() if c > 1)
    unacked_present = len(set(recorded) - acked)  # committed, then the answer was lost with the worker: fine
    differing = [t for t in VIEW_TABLES if views[t] != fresh[t]]
    short_of_plan = {what: f"{kills[what]} of {n}" for what, n in planned.items() if kills[what] != n}
    figure("store / workers", f"{args.store} / {args.workers}")
    figure("kills -9 (done of planned)", {what: f"{kills[what]}/{n}" for what, n in planned.items()})
    figure("kills short of the plan", short_of_plan or "none")
    figure("follower back after (s)", " ".join(f"{s:.1f}" for s in follower_restarts))
    figure("acknowledged writes", len(acked))
    figure("failed writes (non-201 at the end)", len(load.failed))
    figure("client retries", load.retries)
    figure("acknowledged but missing", len(missing))
    figure("recorded twice", duplicated)
    figure("recorded, answer lost (not acked)", unacked_present)
    figure("history length / chain intact", f"{len(events)} / {chain['intact']}")
    figure("projection lag at the end", lag)
    figure("ledger rebuild exit code", rebuilt.returncode)
    figure("view rows (stored = rebuilt)", {t: f"{len(views[t])}={len(fresh[t])}" for t in VIEW_TABLES})
    figure("view tables differing", differing or "none")
    for note in notes:
        print("  note:", note)
    for f in load.failed[:5]:
        print("  failure:", f)
    outlived = any("outlived" in n for n in notes)
    ok = (not missing and not duplicated and chain["intact"] and lag == 0 and rebuilt.returncode == 0
          and not differing and not load.failed and not short_of_plan and not outlived)
    return conclude(args, ok)


if __name__ == "__main__":
    sys.exit(main())
