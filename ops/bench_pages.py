"""CPU per request of the turn page's and the place page's data gathering, in one process, over many campaigns.

    python ops/bench_pages.py --setup /work/bench/setup200.pkl      # a kept ``ops/load.py --save-setup`` store
    python ops/bench_pages.py --short                                # 3 small campaigns on SQLite, seconds

What the many-campaign load's server does for these pages, without HTTP and Jinja: ``turn_view`` at a random
step of a random turn, and ``place_view`` of a random place at the head, for the game master and each player of
random campaigns, through one ``Reader`` (as one worker). The caches are warmed first with as many requests as
are measured. Read only: nothing is appended to the store. Prints ms of CPU per page (``time.process_time``)
beside the target (the load's 1,500 reads/s on 2 cores: 1.3 ms of CPU per request, whole) and a raw baseline:
one indexed statement of the same store (``SELECT`` of the timeline's head position) per page. A/B against
another version of the code: the same command with that version's tree first on PYTHONPATH, rounds alternated.
``--results FILE``: each line also as a JSON row of FILE (ops/results.py), what the tests read.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH: an A/B names the other tree there

from ops.results import Results, add_option  # noqa: E402

#: 1,500 reads/s on this machine's 2 cores: the CPU one request may take, page and all.
TARGET_MS = 2000 / 1500
PLACES = ["Manche", "Picardie", "Normandie", "Artois", "Kent"]


def _targets(made: list[dict]) -> list[tuple]:
    from ledger.application import Actor
    from ledger.domain.campaign import campaign_id

    return [(campaign_id(c["slug"]), Actor(f"{p['role']}-{p['country'] or 'gm'}", p["role"], p["country"]),
             p["turns"]) for c in made for p in c["people"]]


def _short(tmp: str) -> list[dict]:
    """Three generated campaigns in an SQLite store under ``tmp``, each with a turn open."""
    from generate_campaign import COUNTRIES, GM, generate

    from ledger.application import Ledger
    from ledger.domain.campaign import campaign_id
    from projections.runner import Projector

    os.environ.update(LEDGER_STORE="sqlite", LEDGER_DATA_DIR=tmp, LEDGER_ENV="development")
    from ledger.config import Settings

    ledger = Ledger(Settings())
    made = []
    try:
        for i in range(3):
            generate(ledger, f"pages-{i}", 90, seed=i, turn_size=30)
            cid = campaign_id(f"pages-{i}")
            turns = ledger.campaign(cid).turn
            ledger.open_turn(cid, actor=GM)
            made.append({"slug": f"pages-{i}", "people": [{"role": "gm", "country": None, "turns": turns}] + [
                {"role": "player", "country": c, "turns": turns} for c in COUNTRIES]})
        Projector(ledger).catch_up()
    finally:
        ledger.close()
    return made


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setup", help="a kept ops/load.py --save-setup file (its store is read, never written)")
    ap.add_argument("--short", action="store_true", help="3 small campaigns on SQLite, 60 pages of each kind")
    ap.add_argument("--pages", type=int, default=1500, help="pages of each kind measured (as many warm it first)")
    ap.add_argument("--audiences", type=int, default=256, help="the Reader's per-audience cache (its default)")
    ap.add_argument("--seed", type=int, default=1)
    add_option(ap)
    args = ap.parse_args()
    results = Results(args.results)
    if not args.short and not args.setup:
        raise SystemExit("--setup FILE (ops/load.py --save-setup) or --short")
    tmp = tempfile.TemporaryDirectory()
    if args.short:
        made, pages = _short(tmp.name), 60
    else:
        kept = json.loads(Path(args.setup).read_text())
        os.environ.update(kept["env"])
        made, pages = kept["made"], args.pages

    from api.web.place_view import place_view
    from api.web.turn_view import turn_view
    from ledger.application import Ledger
    from ledger.config import Settings
    from projections.head import Reader
    from projections.store import ViewDB

    ledger = Ledger(Settings(), env={"CREATE_TABLE": "n"})
    reader = Reader(ledger, ViewDB(ledger.recorder), audiences=args.audiences)
    rng = random.Random(args.seed)
    targets = _targets(made)
    states: dict = {}
    try:
        def state_of(cid):
            return states.get(cid) or states.setdefault(cid, ledger.campaign(cid))

        def turn(t, step):
            cid, actor, turns = t
            return turn_view(ledger, cid, rng.randint(1, turns), actor, step=step, reader=reader,
                             state=state_of(cid))

        def place(t, name):
            cid, actor, _ = t
            return place_view(ledger, reader, cid, actor, state_of(cid), name, None, 1)

        def raw(t, _):
            with reader.db.reading() as cur:
                cur.execute(reader.db.sql("SELECT COALESCE(MAX(position), 0) AS p FROM {proj_timeline} "
                                          "WHERE campaign = ?"), (str(t[0]),))
                cur.fetchone()

        print(f"{len(made)} campaigns, {len(targets)} people; {pages} pages of each kind after as many to warm; "
              f"load average {os.getloadavg()[0]:.2f}")
        results.add("set-up", campaigns=len(made), people=len(targets), pages=pages)
        for name, fn, arg in (("raw baseline: one indexed statement", raw, lambda: None),
                              ("turn page data (turn_view)", turn, lambda: rng.randint(1, 30)),
                              ("place page data at the head (place_view)", place, lambda: rng.choice(PLACES))):
            picks = [(rng.choice(targets), arg()) for _ in range(2 * pages)]
            for t, a in picks[:pages]:
                fn(t, a)
            t0 = time.process_time()
            for t, a in picks[pages:]:
                fn(t, a)
            ms = (time.process_time() - t0) / pages * 1000
            target = "" if fn is raw else f"  (target: a whole request <= {TARGET_MS:.2f} ms CPU; this part " \
                                          f"takes {ms / TARGET_MS:.0%} of it)"
            print(f"{name}: {ms:.3f} ms CPU per page{target}")
            results.add(name, cpu_ms_per_page=ms, target_ms=None if fn is raw else TARGET_MS,
                        share_of_target=None if fn is raw else ms / TARGET_MS)
    finally:
        ledger.close()
        tmp.cleanup()


if __name__ == "__main__":
    main()
