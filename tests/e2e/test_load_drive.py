"""ops/load.py in its --short version: it sets up its campaigns, drives its own `ledger serve` and prints
every figure beside its target. Timings are never asserted (a loaded machine says nothing about the code): what
must hold is that every kind of read and append was made and no request got a 5xx, read from its results file
(``--results``: a row per kind and run, with its errors by status), never from the figures' text."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.opsrun import assert_no_server_error, row, rows_named, run_ops

KINDS = ["page:turn", "page:ers", "page:map.svg", "page:place", "json:state", "json:timeline", "json:ers",
         "json:events", "append:ruling", "append:treasury", "append:move"]


@pytest.mark.slow
@pytest.mark.e2e
def test_the_short_load_drive_makes_every_kind_of_request_beside_its_target_with_no_server_error():
    # --short: 6 clients on 3 campaigns, a game master, a player who moves (FRA, players_may_move), readers; each
    # client draws from a seeded generator, and every kind comes up within its first 14 requests (4 s is dozens).
    run = run_ops("load.py", "--short", "--seconds", "4", "--revalidate")
    rows = run.rows
    set_up = row(rows, "set-up")
    assert (set_up["campaigns"], set_up["tokens"]) == (3, 27) and set_up["events"] > 0, set_up
    assert row(rows, "server")["reads_by_weight"]["page:turn"] == 20, rows  # the mix, as stated
    assert "reads by weight: page:turn 20%" in run.out and "appends expected" in run.out, run
    assert row(rows, "health", run="ceiling")["requests"] > 0, rows
    for kind in KINDS:  # the calm pass times each kind alone ...
        assert row(rows, kind, run="calm")["requests"] > 0, f"{kind} missing from the calm pass:\n{run}"
        # ... and measures its CPU (the server's; PostgreSQL's and the statements on PostgreSQL only, else None)
        assert row(rows, kind, run="calm cpu")["server_cpu_ms"] is not None, rows
    # The separate figure: clients holding what they got are answered 304 for some reads.
    assert row(rows, "ALL READS", run="revalidation")["errors_by_status"].get("304", 0) > 0, rows
    assert row(rows, "revalidation")["headline_reads_rps"] > 0, rows
    for kind in KINDS:  # each kind was asked at least once in the mixed run (a 5xx: below, for every row)
        found = row(rows, kind, run="mixed")
        assert found["requests"] > 0, f"no {kind} row:\n{run}"
        if kind == "append:move":  # the mover is alone with its stack and follows it: every move is accepted
            assert found["errors_by_status"] == {}, found
    assert row(rows, "CPU per request", run="mixed")["server_ms"] is not None, rows
    targets = row(rows, "targets")
    assert (targets["reads_rps_target"], targets["reads_p99_target_ms"]) == (1500, 50), targets
    assert isinstance(targets["reads_rps_met"], bool) and isinstance(targets["reads_p99_met"], bool), targets
    assert row(rows, "server errors", run="mixed")["server_errors"] == 0, rows
    assert_no_server_error(rows)


@pytest.mark.slow
@pytest.mark.e2e
def test_a_kept_set_up_is_driven_again_without_setting_it_up(tmp_path):
    """--save-setup keeps the store and what drives it; --setup drives it again (A/B runs of two versions of the
    server on one store), each mover starting where its stack stands, with a server setting passed through."""
    kept = tmp_path / "setup.json"
    first = run_ops("load.py", "--short", "--seconds", "2", "--calm", "0", "--save-setup", str(kept))
    assert_no_server_error(first.rows)
    store = json.loads(kept.read_text())["env"]["LEDGER_DATA_DIR"]
    try:
        again = run_ops("load.py", "--short", "--seconds", "2", "--calm", "0", "--setup", str(kept),
                        "--server-setting", "read_slots=2")
        set_up = row(again.rows, "set-up")
        assert (set_up["campaigns"], set_up["tokens"], set_up["kept"]) == (3, 27, str(kept)), set_up
        assert row(again.rows, "server")["settings"] == {"read_slots": "2"}, again.rows
        assert ", read_slots=2;" in again.out, again  # and said so
        moves = row(again.rows, "append:move", run="mixed")  # from where the first run left it: every move accepted
        assert moves["requests"] > 0 and moves["errors_by_status"] == {}, moves
        assert row(again.rows, "server errors", run="mixed")["server_errors"] == 0
        assert_no_server_error(again.rows)
    finally:
        shutil.rmtree(store, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.e2e
def test_cache_stats_counts_each_caches_hits_in_the_mixed_run_and_the_response_caches_bound():
    """--cache-stats counts the server's caches (ops/cachecount) without changing its code: a row per cache the
    mixed run used, named as the code names it, with its hits, the response cache bounded in bytes, and the
    garbage collector's share of the server's CPU."""
    run = run_ops("load.py", "--short", "--seconds", "2", "--calm", "0", "--cache-stats")
    caches = rows_named(run.rows, "cache")
    response = [c for c in caches if c["site"].startswith("readpath.py:")]
    assert len(response) == 1 and response[0]["cache"] == "self._entries", caches
    assert response[0]["hits"] + response[0]["misses"] > 0, response  # the reads went through it
    assert response[0]["bound"] == 64 << 20, response  # bounded in bytes (LEDGER_RESPONSE_CACHE_BYTES)
    assert any(c["site"].startswith("head.py:") for c in caches), caches  # the views' caches of projections.head
    assert "caches in the mixed run" in run.out, run  # the table printed for people
    # and the collector's CPU by generation, a share of the server's (gc.callbacks in ops/cachecount)
    collected = row(run.rows, "garbage collection", run="mixed")
    assert collected["share_of_server"] is not None and collected["collections"]["young"] >= 0, collected
    assert_no_server_error(run.rows)
