"""``ledger serve --workers 2`` with LEDGER_POSTGRES_REPLICA_DSN: a client that sends back the position of its
last write (``Ledger-Position``) reads every write it made, whichever worker and store answer, and the reads
are served by the replica."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid

import httpx
import psycopg
import pytest

from tests.conftest import PG_DSN, REPLICA_DSN
from tests.e2e.test_http import free_port

ADMIN = "replica-serve-admin"


@pytest.fixture
def served(tmp_path):
    import os

    schema = f"rs_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEDGER_", "POSTGRES_"))}
    env.update(LEDGER_DATA_DIR=str(tmp_path / "data"), LEDGER_ADMIN_TOKEN=ADMIN, LEDGER_POSTGRES_DSN=PG_DSN,
               LEDGER_POSTGRES_SCHEMA=schema, LEDGER_POSTGRES_REPLICA_DSN=REPLICA_DSN)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "ledger", "serve", "--port", str(port), "--workers", "2"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/ready", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail("server did not start: " + proc.stdout.read().decode(errors="replace"))
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def test_a_client_naming_its_last_write_reads_it_from_any_worker(served):
    last: dict[str, str] = {}

    def remember(response: httpx.Response) -> None:  # what a client does: keep the position of its last write
        if "Ledger-Position" in response.headers:
            last["position"] = response.headers["Ledger-Position"]

    def naming(request: httpx.Request) -> None:
        if request.method == "GET" and "position" in last:
            request.headers["Ledger-Position"] = last["position"]

    with httpx.Client(base_url=served, timeout=10, headers={"Authorization": f"Bearer {ADMIN}"},
                      event_hooks={"request": [naming], "response": [remember]}) as http:
        made = http.post("/campaigns", json={"slug": "rs", "name": "RS", "ruleset": "eu",
                                             "countries": ["ENG", "FRA"]})
        assert made.status_code == 201, made.text
        assert http.get("/campaigns/rs").status_code == 200  # never a 404 for a campaign just made
        assert http.post("/campaigns/rs/turns").status_code == 201
        sources = []
        for n in range(20):
            rolled = http.post("/campaigns/rs/rolls", json={"purpose": f"roll {n}", "sides": 6})
            assert rolled.status_code == 201, rolled.text
            version = int(rolled.headers["Ledger-Position"].rsplit(":", 1)[1])
            seen = http.get("/campaigns/rs")
            assert seen.json()["position"] == version  # its own write, at once
            events = http.get("/campaigns/rs/events", params={"after": version - 1})
            assert [e["type"] for e in events.json()] == ["DiceRolled"]
            sources += [seen.headers["Ledger-Read"], events.headers["Ledger-Read"]]
        assert "replica" in sources, sources  # the replica serves reads (the primary only when it lags)
