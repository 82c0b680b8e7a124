"""A serving process's full garbage collections run on a clock (ledger/supervision.py SteadyGC)."""

from __future__ import annotations

import gc
import time

from ledger.supervision import SteadyGC


def full_collections() -> int:
    return gc.get_stats()[2]["collections"]


def test_full_collections_run_on_the_clock_not_on_allocation_counts():
    before = gc.get_threshold()
    collector = SteadyGC(0.05).start()
    try:
        assert gc.get_threshold() == (before[0], before[1], 2**31 - 1)
        counted = full_collections()
        deadline = time.monotonic() + 5
        while full_collections() < counted + 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert full_collections() >= counted + 2
    finally:
        collector.stop()
    assert gc.get_threshold() == before


def test_the_last_user_restores_pythons_rule():
    before = gc.get_threshold()
    first, second = SteadyGC(30).start(), SteadyGC(30).start()
    first.stop()
    assert gc.get_threshold()[2] == 2**31 - 1  # the second still serves
    first.stop()  # stopping twice changes nothing
    assert gc.get_threshold()[2] == 2**31 - 1
    second.stop()
    assert gc.get_threshold() == before


def test_zero_seconds_leaves_pythons_own_rule():
    before = gc.get_threshold()
    collector = SteadyGC(0).start()
    assert gc.get_threshold() == before
    collector.stop()
    assert gc.get_threshold() == before
