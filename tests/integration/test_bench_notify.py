"""ops/bench_notify.py in its --short version: the three modes' append rows (raw baseline, views without the
outbox, views and outbox) and the delivery row, every message delivered and none to an endpoint its event does not
concern. No timing is asserted (the machine is shared): the verdicts are the run's to print."""

from __future__ import annotations

import pytest

from tests.opsrun import row, run_ops


@pytest.mark.slow
def test_the_notification_benchmark_delivers_every_message_to_its_endpoints_only(tmp_path):
    run = run_ops("bench_notify.py", "--short", cwd=tmp_path)
    for mode in ("raw baseline", "views, no outbox", "views and outbox"):
        assert row(run.rows, f"append ({mode})")["n"] == 100
    delivered = row(run.rows, "append to delivery")
    assert (delivered["n"], delivered["missing"], delivered["stray"]) == (200, 0, 0), delivered
    assert delivered["verdict"] in ("PASS", "MISS") and row(run.rows, "outbox cost on append p99")["target"] == 0.1
