"""Drill: `ledger backup` under write load, then `ledger restore` into an empty store.

    python ops/drills/backup.py            # throwaway PostgreSQL, `ledger serve --workers 2`, 4 writers, 20 s
    python ops/drills/backup.py --short    # 5 s of load
    python ops/drills/backup.py --store sqlite

1. A backup taken *during* the load, restored into an empty store: every write acknowledged before the backup
   started is in it and every chain verifies (the online backup misses no acknowledged write).
2. A backup taken once the load stopped and the views caught up, restored into another empty store:
   identical events (every row, byte for byte), identical view tables, the same head hash; and the restored
   store goes on as the service would: it rolls a server die in the open turn and closes that turn (its dice
   seeds came with it, readable by the service's key), and the chain verifies after.
3. The same backup restored under another signing key reads broken (`ledger restore` exits 1 naming it): a
   store restored with the wrong key is never taken for a good one.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import (VIEW_TABLES, Service, Store, conclude, create_campaign, figure, generate_key,  # noqa: E402
                      ledger_cli, parser, verify)
from _load import Load  # noqa: E402


def timed_cli(env: dict, *args: str) -> tuple[float, str]:
    started = time.perf_counter()
    done = ledger_cli(env, *args)
    if done.returncode != 0:
        raise SystemExit(f"ledger {' '.join(args)} failed: {done.stdout}{done.stderr[-2000:]}")
    return time.perf_counter() - started, done.stdout.strip()


def main() -> int:
    args = parser(__doc__).parse_args()
    load_seconds = 5 if args.short else 20
    with Store(args.store) as store:
        env = store.env()
        mid_file, final_file = store.tmp / "mid.backup", store.tmp / "final.backup"
        service = Service(env, workers=args.workers).start()
        try:
            create_campaign(service.base, "bk")
            with Load(service.base, "bk") as load:
                time.sleep(load_seconds / 2)
                acked_before = load.snapshot()
                mid_secs, _ = timed_cli(env, "backup", str(mid_file))
                time.sleep(load_seconds / 2)
            deadline = time.monotonic() + 120
            while service.ready()["projections_lag"] and time.monotonic() < deadline:
                time.sleep(0.5)
            source_chain = verify(service.base, "bk")
            final_secs, _ = timed_cli(env, "backup", str(final_file))
        finally:
            service.stop()
        source_events = store.events(env)
        source_views = {t: store.rows(env, t, order) for t, order in VIEW_TABLES.items()}

        mid_env = store.empty_copy()
        mid_restore_secs, mid_out = timed_cli(mid_env, "restore", str(mid_file))
        listed = json.loads(ledger_cli(mid_env, "events", "bk", "--json").stdout)
        in_mid = {e["payload"]["purpose"] for e in listed if e["type"] == "DiceRolled"}
        missing_mid = acked_before - in_mid

        final_env = store.empty_copy()
        final_restore_secs, final_out = timed_cli(final_env, "restore", str(final_file))
        restored_events = store.events(final_env)
        restored_views = {t: store.rows(final_env, t, order) for t, order in VIEW_TABLES.items()}
        # The restored store goes on: a server die in the open turn, the turn closed (its seeds revealed).
        rolled = ledger_cli(final_env, "roll", "bk", "--purpose", "after the restore")
        # create_campaign opened turn 1; its phases are not played here (kept out of sequence, with why).
        closed = ledger_cli(final_env, "turn", "close", "bk", "1", "--out-of-sequence",
                            "the backup drill closes the restored store's turn")
        after = ledger_cli(final_env, "verify", "bk")
        goes_on = rolled.returncode == 0 and closed.returncode == 0 and after.returncode == 0
        # Under another key: the checkpoints it signed and the seeds it sealed are not this service's.
        wrong_env = store.empty_copy()
        other_key = store.tmp / "another-signing-key.pem"
        generate_key(other_key)
        wrong_env["LEDGER_SIGNING_KEY_FILE"] = str(other_key)
        wrong = ledger_cli(wrong_env, "restore", str(final_file))
        sizes = mid_file.stat().st_size, final_file.stat().st_size  # the files go with the store's directory
    differing = [t for t in VIEW_TABLES if source_views[t] != restored_views[t]]
    head_line = f"bk: intact {source_chain['count']} events, head {source_chain['head_hash']}"
    figure("store / workers / load", f"{args.store} / {args.workers} / {load_seconds}s, 4 writers")
    figure("writes acknowledged (failed)", f"{len(load.acked)} ({len(load.failed)})")
    figure("mid-load backup: size / s", f"{sizes[0]} B / {mid_secs:.1f}")
    figure("acked before it, missing after", f"{len(acked_before)}, {len(missing_mid)}")
    figure("mid-load restore s / verify", f"{mid_restore_secs:.1f} / {mid_out.splitlines()[-1]}")
    figure("final backup: size / s", f"{sizes[1]} B / {final_secs:.1f}")
    figure("final restore s", f"{final_restore_secs:.1f}")
    figure("events source = restored", f"{len(source_events)} = {len(restored_events)}: "
                                       f"{source_events == restored_events}")
    figure("same head hash", head_line in final_out)
    figure("view rows equal", {t: len(source_views[t]) for t in VIEW_TABLES})
    figure("view tables differing", differing or "none")
    figure("restored: roll / close turn / verify", f"exit {rolled.returncode} / {closed.returncode} / "
                                                    f"{after.returncode}")
    figure("restored under another key", f"exit {wrong.returncode}, "
                                         f"{'BROKEN' if 'BROKEN' in wrong.stdout else 'not reported broken'}")
    if not goes_on:
        for done in (rolled, closed, after):
            print("  restored store:", (done.stdout + done.stderr).strip()[-400:])
    ok = (not missing_mid and "BROKEN" not in mid_out and source_events == restored_events and not differing
          and head_line in final_out and not load.failed and goes_on
          and wrong.returncode == 1 and "BROKEN" in wrong.stdout)
    return conclude(args, ok)


if __name__ == "__main__":
    sys.exit(main())
