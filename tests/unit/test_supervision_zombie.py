"""A worker that starts just as its master is killed -9 must still see the master gone (ledger/supervision.py).

The master stays a zombie until its own parent reaps it, and ``os.kill(pid, 0)`` succeeds on a zombie: a worker
uvicorn had started just before the kill took the master for alive, decided its LEDGER_SUPERVISOR_PID was an
inherited variable, and outlived the service (found by ops/drills/kill9.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from ledger.supervision import _alive


def test_a_master_killed_and_not_yet_reaped_is_not_alive():
    master = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert _alive(master.pid)
        os.kill(master.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # killed, not reaped: a zombie
            if open(f"/proc/{master.pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z":
                break
            time.sleep(0.05)
        os.kill(master.pid, 0)  # the probe the check used to rely on still succeeds on it
        assert not _alive(master.pid)
    finally:
        master.wait()
    assert not _alive(master.pid)  # reaped: gone
