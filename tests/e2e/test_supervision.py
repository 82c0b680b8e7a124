"""`ledger serve --workers N` as real processes: kill -9 of the follower and of the master (bounded in time).

- the master restarts a dead follower, and ``/ready`` reports the follower's liveness from its heartbeat;
- kill -9 of the master takes the workers and the follower with it, and frees the port;
- a follower nobody restarts (LEDGER_PROJECTION_RUNNER=external) is reported dead by ``/ready``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.conftest import PG_DSN

pytestmark = pytest.mark.store_contract  # the store's contract: both stores (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid: int) -> list[int]:
    """Pids whose parent is ``pid`` (from /proc: no psutil here)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
        except (httpx.HTTPError, OSError):
            value = None
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"timed out after {timeout}s waiting for {what}")


@pytest.fixture
def serve_env(store, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    env.update(LEDGER_DATA_DIR=str(tmp_path / "data"), LEDGER_ADMIN_TOKEN="admin-" + uuid.uuid4().hex,
               PYTHONPATH=str(ROOT))
    schema = None
    if store == "postgres":
        schema = f"sup_{uuid.uuid4().hex[:10]}"  # created by the service itself: a fresh schema
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        env.update(LEDGER_POSTGRES_DSN=PG_DSN, LEDGER_POSTGRES_SCHEMA=schema)
    yield env
    if schema:
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def start(env: dict, *args: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "ledger", *args, "--port", str(port)], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    return proc, f"http://127.0.0.1:{port}"


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=10)


def ready(base: str) -> dict:
    return httpx.get(f"{base}/ready", timeout=2).json()


def test_the_master_restarts_a_killed_follower_and_takes_everything_down_when_killed(serve_env):
    master, base = start(serve_env, "serve", "--workers", "2", "--no-sample")
    try:
        first = wait_for(lambda: (r := ready(base)).get("follower", {}).get("alive") and r, 60, "the follower")
        assert first["status"] == "ready"
        follower = first["follower"]["pid"]
        workers = [p for p in children(master.pid) if p != follower]
        assert len(workers) >= 2  # uvicorn's workers (and its resource tracker, maybe)

        os.kill(follower, signal.SIGKILL)
        again = wait_for(lambda: (r := ready(base))["follower"].get("pid") not in (None, follower)
                         and r["follower"]["alive"] and r, 30, "a new follower")
        assert again["status"] == "ready"
        replacement = again["follower"]["pid"]

        os.kill(master.pid, signal.SIGKILL)
        master.wait(timeout=10)
        wait_for(lambda: not any(alive(p) for p in [*workers, replacement]), 20, "workers and follower to exit")
        port = int(base.rsplit(":", 1)[1])
        with socket.socket() as s:  # the port is free again
            s.bind(("127.0.0.1", port))
    finally:
        kill_group(master)


def test_ready_reports_a_dead_external_follower(serve_env):
    env = {**serve_env, "LEDGER_PROJECTION_RUNNER": "external", "LEDGER_FOLLOWER_STALE_SECONDS": "4"}
    api, base = start(env, "serve", "--no-sample")
    follower = subprocess.Popen([sys.executable, "-m", "ledger", "project", "--follow"], env=env, cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        up = wait_for(lambda: (r := ready(base)).get("follower", {}).get("alive") and r, 60, "the follower's beat")
        assert up["status"] == "ready" and up["follower"]["pid"] == follower.pid
        follower.kill()
        follower.wait(timeout=10)
        down = wait_for(lambda: (r := ready(base))["follower"]["alive"] is False and r, 20, "the death noticed")
        assert down["status"] == "degraded" and down["follower"]["age_seconds"] > 4
    finally:
        kill_group(follower)
        kill_group(api)
