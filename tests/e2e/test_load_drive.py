"""ops/load.py in its --short version: it sets up its campaigns, drives its own `ledger serve` and prints
every figure beside its target. Timings are never asserted (a loaded machine says nothing about the code):
what must hold is that each line is printed, every kind of read and append was made, and no request got a 5xx.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KINDS = ["page:turn", "page:ers", "page:map.svg", "page:place", "json:state", "json:timeline", "json:ers",
         "json:events", "append:ruling", "append:treasury", "append:move"]


@pytest.mark.slow
@pytest.mark.e2e
def test_the_short_load_drive_prints_each_figure_beside_its_target_with_no_server_error():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    # --short: 6 clients on 3 campaigns, a game master, a player who moves (FRA, players_may_move), readers; each
    # client draws from a seeded generator, and every kind comes up within its first 14 requests (4 s is dozens).
    done = subprocess.run([sys.executable, str(ROOT / "ops/load.py"), "--short", "--seconds", "4", "--revalidate"], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=240)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr[-3000:]
    assert re.search(r"^set-up: 3 campaigns, \d+ events, 27 tokens in [\d.]+ s", out, re.M), out
    assert "reads by weight: page:turn 20%" in out and "appends expected" in out, out
    assert re.search(r"^health\s+\d+", out, re.M) and "/health ceiling" in out, out
    calm = out.split("calm pass:")[1].split("ceiling:")[0]
    for kind in KINDS:  # the calm pass times each kind alone
        assert re.search(rf"^{re.escape(kind)}\s+[1-9]", calm, re.M), f"{kind} missing from the calm pass:\n{out}"
        # ... and prints its CPU (the server's; PostgreSQL's and the statements on PostgreSQL only, else "-")
        assert re.search(rf"^  {re.escape(kind)}\s+[\d.]+\s+(-|[\d.]+)\s+(-|[\d.]+)$", calm, re.M), out
    out, revalidated = out.split("mixed run")[1].split("browser-like revalidation")
    # The separate figure: clients holding what they got are answered 304 for some reads, and it says beside what.
    assert re.search(r"^ALL READS\s+\d+.*\d+x304", revalidated, re.M), revalidated
    assert re.search(r"reads [\d,]+ req/s at p99 [\d.]+ ms, beside the headline's [\d,]+ req/s", revalidated), revalidated
    for kind in KINDS:  # each kind was asked at least once, and answered without a 5xx
        # kind, requests, req/s, p50, p95, p99, then the errors by status ("0", or "3x409, 1x503")
        row = re.search(rf"^{re.escape(kind)}\s+(\d+)\s+\S+\s+\S+\s+\S+\s+\S+\s+(.+)$", out, re.M)
        assert row and int(row[1]) > 0, f"no {kind} row:\n{out}"
        assert not re.search(r"x5\d\d", row[2]), f"{kind}: {row[2]}\n{out}"
        if kind == "append:move":  # the mover is alone with its stack and follows it: every move is accepted
            assert row[2].strip() == "0", f"{kind}: {row[2]}\n{out}"
    assert re.search(r"CPU per request: server [\d.]+ ms, clients [\d.]+ ms", out), out
    assert re.search(r"targets: reads >= 1,500 req/s: [\d,]+ \((met|NOT met)\); reads p99 <= 50 ms: [\d.]+", out), out
    assert "server errors (5xx): 0" in out, out


@pytest.mark.slow
@pytest.mark.e2e
def test_a_kept_set_up_is_driven_again_without_setting_it_up(tmp_path):
    """--save-setup keeps the store and what drives it; --setup drives it again (A/B runs of two versions of the
    server on one store), each mover starting where its stack stands, with a server setting passed through."""
    import json
    import shutil

    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    kept = tmp_path / "setup.json"
    first = subprocess.run([sys.executable, str(ROOT / "ops/load.py"), "--short", "--seconds", "2", "--calm", "0",
                            "--save-setup", str(kept)], env=env, cwd=ROOT, capture_output=True, text=True,
                           timeout=240)
    assert first.returncode == 0, first.stdout + first.stderr[-3000:]
    store = json.loads(kept.read_text())["env"]["LEDGER_DATA_DIR"]
    try:
        again = subprocess.run([sys.executable, str(ROOT / "ops/load.py"), "--short", "--seconds", "2", "--calm",
                                "0", "--setup", str(kept), "--server-setting", "read_slots=2"], env=env, cwd=ROOT,
                               capture_output=True, text=True, timeout=240)
        out = again.stdout
        assert again.returncode == 0, out + again.stderr[-3000:]
        assert re.search(r"^set-up: 3 campaigns, 27 tokens kept by --save-setup", out, re.M), out
        assert ", read_slots=2;" in out, out
        moves = re.search(r"^append:move\s+(\d+)\s+\S+\s+\S+\s+\S+\s+\S+\s+(.+)$", out.split("mixed run")[1], re.M)
        assert moves and int(moves[1]) > 0 and moves[2].strip() == "0", out  # from where the first run left it
        assert "server errors (5xx): 0" in out, out
    finally:
        shutil.rmtree(store, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.e2e
def test_cache_stats_prints_each_caches_hits_in_the_mixed_run_and_the_response_caches_bound():
    """--cache-stats counts the server's caches (ops/cachecount) without changing its code: a row per cache the
    mixed run used, named as the code names it, with its hit rate, the response cache bounded in bytes, and the
    garbage collector's share of the server's CPU."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    done = subprocess.run([sys.executable, str(ROOT / "ops/load.py"), "--short", "--seconds", "2", "--calm", "0",
                           "--cache-stats"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=240)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr[-3000:]
    table = out.split("caches in the mixed run")[1].split("targets:")[0]
    rows = {m[1]: m for m in re.finditer(r"^  (\S+:\d+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)%\s+(\d+)\s+([\d,]+)\s+([\d,]+)$",
                                         table, re.M)}
    response = rows.get(next((site for site in rows if site.startswith("readpath.py:")), ""))
    assert response is not None and response[2] == "self._entries", table
    assert int(response[3]) + int(response[4]) > 0, table  # the reads went through it
    assert int(response[8].replace(",", "")) == 64 << 20, table  # bounded in bytes (LEDGER_RESPONSE_CACHE_BYTES)
    assert any(site.startswith("head.py:") for site in rows), table  # the views' caches of projections.head
    # and the collector's CPU by generation, a share of the server's (gc.callbacks in ops/cachecount)
    assert re.search(r"garbage collection in the mixed run: [\d.]+ ms per request, [\d.]+% of the server's CPU "
                     r"\(young \d+ collections", table), table
